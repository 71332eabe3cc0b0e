package simdevice

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// shName is how mksh names itself in its error messages on a phone.
const shName = "/system/bin/sh"

// androidPath is $PATH in an adb shell of Android 10 and later.
const androidPath = "/product/bin:/apex/com.android.runtime/bin:/apex/com.android.art/bin:/system_ext/bin:/system/bin:/system/xbin:/odm/bin:/vendor/bin:/vendor/xbin"

// internalPrefix marks a command name the call handler rewrote to one of the
// shell's own implementations; no word a user types can start with a NUL.
const internalPrefix = "\x00"

// unreachableTmp is the interpreter's private temporary directory. The
// interpreter opens paths inside its temporary directory on the host for
// process substitution; a path holding a NUL byte cannot be opened, so no
// script can reach a host file that way.
const unreachableTmp = "/\x00perfgate-no-host-tmp"

// Shell runs a command line as `/system/bin/sh -c cmd` would on the device
// and returns its exit status. It returns soon after ctx ends or the device
// closes, with status 130 if the command had not finished. stdout and stderr
// may be the same writer; writes to each are serialised.
//
// stdin may be nil: reads then see end of file. An *os.File is read
// directly. Any other reader is copied into a pipe by a goroutine that ends
// when the reader does, so it should end with the stream, as an adb
// stream's stdin does. An empty cmd with a stdin runs the script read from
// stdin, as `adb shell` without a command does.
func (d *Device) Shell(ctx context.Context, cmd string, stdin io.Reader, stdout, stderr io.Writer) int {
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	if err := d.enter(); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", shName, err)
		return 255
	}
	defer d.running.Done()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(d.ctx, cancel)
	defer stop()

	out := &lockedWriter{w: stdout}
	errw := out
	if stderr != stdout {
		errw = &lockedWriter{w: stderr}
	}
	in, _ := stdin.(*os.File)
	if stdin != nil && in == nil {
		pr, pw, err := os.Pipe()
		if err != nil {
			fmt.Fprintf(errw, "%s: %v\n", shName, err)
			return 1
		}
		defer pr.Close()
		go func() {
			// This goroutine ends when stdin does (the adb stream closes)
			// or when the shell closed the read end.
			io.Copy(pw, stdin)
			pw.Close()
		}()
		in = pr
	}
	if strings.TrimSpace(cmd) == "" && stdin != nil {
		// `adb shell` without a command runs a shell that reads its
		// script from the stream.
		cmd = "sh"
	}
	st := d.runScript(ctx, shellRun{src: cmd, dir: "/", stdin: in, stdout: out, stderr: errw})
	if ctx.Err() != nil && st == 0 {
		return 130
	}
	return st
}

// lockedWriter serialises writes from the goroutines of a pipeline.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// shellRun is one invocation of the shell: a -c script and its arguments.
type shellRun struct {
	src    string
	name   string   // $0
	args   []string // $1...
	dir    string
	env    expand.Environ // nil: a fresh adb shell's environment
	stdin  *os.File
	stdout io.Writer
	stderr io.Writer
}

// shellEnv is the environment of an adb shell session.
func (d *Device) shellEnv() expand.Environ {
	user, uid := "shell", "2000"
	if d.cfg.Root {
		user, uid = "root", "0"
	}
	_, _, dev := d.Product()
	return expand.ListEnviron(
		"PATH="+androidPath,
		"HOME=/",
		"USER="+user,
		"LOGNAME="+user,
		"UID="+uid,
		"EUID="+uid,
		"GID="+uid,
		"HOSTNAME="+dev,
		"SHELL=/bin/sh",
		"TERM=dumb",
		"TMPDIR="+unreachableTmp,
		"ANDROID_DATA=/data",
		"ANDROID_ROOT=/system",
		"ANDROID_STORAGE=/storage",
		"EXTERNAL_STORAGE=/sdcard",
		"ANDROID_ASSETS=/system/app",
	)
}

// deviceEnv answers ~user expansion from the device's users instead of the
// host's password database: bionic gives root, shell and system the home
// "/", and mksh leaves ~name of an unknown user as it is.
type deviceEnv struct{ expand.Environ }

func (e deviceEnv) Get(name string) expand.Variable {
	if user, ok := strings.CutPrefix(name, "HOME "); ok {
		home := "~" + user
		if user == "root" || user == "shell" || user == "system" {
			home = "/"
		}
		return expand.Variable{Set: true, Kind: expand.String, Str: home}
	}
	return e.Environ.Get(name)
}

// runScript parses and interprets one script, returning its exit status.
func (d *Device) runScript(ctx context.Context, sr shellRun) int {
	name := sr.name
	if name == "" {
		name = shName
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangMirBSDKorn)).Parse(strings.NewReader(sr.src), name)
	if err != nil {
		fmt.Fprintf(sr.stderr, "%s: syntax error: %s\n", shName, syntaxMessage(err))
		return 1
	}
	if bad := hostOnlySyntax(file); bad != "" {
		fmt.Fprintf(sr.stderr, "%s: syntax error: '%s' unexpected\n", shName, bad)
		return 1
	}
	env := sr.env
	if env == nil {
		env = d.shellEnv()
	}
	v := d.fsFor()
	sh := &shellHandlers{d: d, v: v}
	opts := []interp.RunnerOption{
		interp.Env(deviceEnv{env}),
		func(r *interp.Runner) error { r.Dir = sr.dir; return nil },
		interp.StdIO(nil, sr.stdout, sr.stderr),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc { return sh.exec }),
		interp.CallHandler(sh.call),
		interp.OpenHandler(sh.open),
		interp.ReadDirHandler2(sh.readDir),
		interp.StatHandler(sh.stat),
		interp.AccessHandler(sh.access),
	}
	if sr.stdin != nil {
		opts = append(opts, interp.StdIO(sr.stdin, sr.stdout, sr.stderr))
	}
	if sr.args != nil {
		opts = append(opts, interp.Params(append([]string{"--"}, sr.args...)...))
	}
	r, err := interp.New(opts...)
	if err != nil {
		fmt.Fprintf(sr.stderr, "%s: %v\n", shName, err)
		return 1
	}
	// The interpreter fixes its temporary directory from $TMPDIR on its
	// first reset; only then may the script see the phone's real value.
	r.Reset()
	r.Run(ctx, preludeScript)

	status := exitCode(r.Run(ctx, file), sr.stderr)
	// adbd keeps the stream open while background jobs hold its output.
	r.Run(ctx, waitScript)
	return status
}

// Fixed scripts every run needs, parsed once; the interpreter only reads them.
var (
	preludeScript = mustParse("export TMPDIR=/data/local/tmp")
	waitScript    = mustParse("wait")
)

func mustParse(src string) *syntax.File {
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
	if err != nil {
		panic(err) // the sources above are constants
	}
	return f
}

// exitCode turns the interpreter's result into an exit status, reporting
// internal failures the way mksh reports its own.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var es interp.ExitStatus
	if errors.As(err, &es) {
		return int(es)
	}
	fmt.Fprintf(stderr, "%s: %v\n", shName, err)
	return 1
}

// syntaxMessage trims the parser's position prefix, which mksh does not print
// for -c scripts.
func syntaxMessage(err error) string {
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		return pe.Text
	}
	return err.Error()
}

// hostOnlySyntax finds constructs that mksh lacks and the interpreter would
// implement with host FIFOs: process substitution.
func hostOnlySyntax(f *syntax.File) string {
	bad := ""
	syntax.Walk(f, func(n syntax.Node) bool {
		if ps, ok := n.(*syntax.ProcSubst); ok && bad == "" {
			bad = ps.Op.String()
		}
		return bad == ""
	})
	return bad
}

// shellHandlers connect the interpreter to the simulated device; none of
// them reaches the host's files or processes.
type shellHandlers struct {
	d *Device
	v *vfs
}

// call rewrites the builtins that would search the host's $PATH.
func (sh *shellHandlers) call(ctx context.Context, args []string) ([]string, error) {
	switch args[0] {
	case "type", "kill":
		return append([]string{internalPrefix + args[0]}, args[1:]...), nil
	case "command":
		if len(args) > 1 && (args[1] == "-v" || args[1] == "-V") {
			return append([]string{internalPrefix + "command"}, args[1:]...), nil
		}
	case "source", ".":
		if len(args) < 2 {
			return args, nil
		}
		hc := interp.HandlerCtx(ctx)
		data, err := sh.v.readFile(cleanPath(args[1], hc.Dir))
		if err != nil {
			return []string{internalPrefix + "fail", "1", fmt.Sprintf("%s: %s: %s", shName, args[1], errText(err))}, nil
		}
		return []string{"eval", string(data)}, nil
	}
	return args, nil
}

// exec runs every command that is not a shell builtin.
func (sh *shellHandlers) exec(ctx context.Context, args []string) error {
	hc := interp.HandlerCtx(ctx)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := &proc{
		ctx:    ctx,
		d:      sh.d,
		v:      sh.v,
		args:   args,
		dir:    hc.Dir,
		env:    hc.Env,
		stdin:  hc.Stdin,
		stdout: &cancelWriter{w: hc.Stdout, cancel: cancel},
		stderr: hc.Stderr,
	}
	if p.stdin == nil {
		p.stdin = strings.NewReader("")
	} else if f, ok := p.stdin.(*os.File); ok {
		// A command reading its input must still end when the stream does.
		// The file outlives the command (a later command of the script
		// reads on), so the deadline is lifted again, under a lock so that
		// a late AfterFunc cannot set it after the lift.
		var mu sync.Mutex
		done, fired := false, false
		context.AfterFunc(ctx, func() {
			mu.Lock()
			defer mu.Unlock()
			if !done {
				fired = true
				f.SetReadDeadline(time.Unix(1, 0))
			}
		})
		defer func() {
			mu.Lock()
			defer mu.Unlock()
			done = true
			if fired {
				f.SetReadDeadline(time.Time{})
			}
		}()
	}
	if st := p.run(); st != 0 {
		return interp.ExitStatus(uint8(st))
	}
	return nil
}

// cancelWriter stops a command whose reader went away (`logcat | head -1`).
type cancelWriter struct {
	w      io.Writer
	cancel context.CancelFunc
}

func (c *cancelWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	if err != nil {
		c.cancel()
	}
	return n, err
}

// open serves redirections. Errors read like mksh's.
func (sh *shellHandlers) open(ctx context.Context, name string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
	hc := interp.HandlerCtx(ctx)
	p := cleanPath(name, hc.Dir)
	write := flag&(os.O_WRONLY|os.O_RDWR) != 0
	op := shName + ": can't open"
	if write {
		op = shName + ": can't create"
	}
	fail := func(err error) (io.ReadWriteCloser, error) {
		return nil, &os.PathError{Op: op, Path: name, Err: errors.New(errText(err))}
	}
	if p == "/dev/null" {
		return nopRW{r: strings.NewReader("")}, nil
	}
	if !write {
		data, err := sh.v.readFile(p)
		if err != nil {
			return fail(err)
		}
		return nopRW{r: strings.NewReader(string(data))}, nil
	}
	fi, err := sh.v.stat(p)
	if err == nil && fi.IsDir() {
		return fail(syscall.EISDIR)
	}
	if err == nil && flag&os.O_EXCL != 0 && flag&os.O_CREATE != 0 {
		return fail(fs.ErrExist)
	}
	if err != nil && flag&os.O_CREATE == 0 {
		return fail(err)
	}
	if err := sh.v.user.mayWrite(p); err != nil {
		return fail(err)
	}
	now := time.Now()
	if err := sh.v.writeFile(p, nil, perm, now, flag&os.O_TRUNC == 0); err != nil {
		return fail(err)
	}
	f := &memFile{v: sh.v, p: p, write: true, append: true, now: time.Now}
	if flag&os.O_RDWR != 0 {
		data, _ := sh.v.readFile(p)
		f.r = bytes.NewReader(data)
	}
	return f, nil
}

// readDir serves glob expansion.
func (sh *shellHandlers) readDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	hc := interp.HandlerCtx(ctx)
	fis, err := sh.v.readDir(cleanPath(name, hc.Dir))
	if errors.Is(err, fs.ErrPermission) {
		// Globbing lists each directory on the way to check that it
		// exists; /data may be crossed (mode --x) though not listed.
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]fs.DirEntry, len(fis))
	for i, fi := range fis {
		out[i] = fs.FileInfoToDirEntry(fi)
	}
	return out, nil
}

// stat serves test -e/-f/-d and cd.
func (sh *shellHandlers) stat(ctx context.Context, name string, _ bool) (fs.FileInfo, error) {
	hc := interp.HandlerCtx(ctx)
	return sh.v.stat(cleanPath(name, hc.Dir))
}

// access serves test -r/-w/-x and cd.
func (sh *shellHandlers) access(ctx context.Context, name string, mode interp.AccessMode) error {
	p := cleanPath(name, "/")
	fi, err := sh.v.stat(p)
	if err != nil {
		return err
	}
	if sh.v.user.root {
		if mode&interp.AccessExec != 0 && !fi.IsDir() && fi.Mode().Perm()&0o111 == 0 {
			return pathErr("access", name, syscall.EACCES)
		}
		return nil
	}
	perm := fi.Mode().Perm()
	if mode&interp.AccessRead != 0 && perm&0o044 == 0 && perm&0o400 != 0 && !ownedByShell(fi) {
		return pathErr("access", name, syscall.EACCES)
	}
	if mode&interp.AccessWrite != 0 && sh.v.user.mayWrite(p) != nil {
		return pathErr("access", name, syscall.EACCES)
	}
	if mode&interp.AccessExec != 0 && perm&0o111 == 0 {
		return pathErr("access", name, syscall.EACCES)
	}
	return nil
}

func ownedByShell(fi fs.FileInfo) bool {
	f, ok := fi.(*fileInfo)
	return ok && f.owner == "shell"
}

// errText is the strerror text toybox and mksh print for err.
func errText(err error) string {
	err = underlying(err)
	switch {
	case errors.Is(err, syscall.EROFS):
		return "Read-only file system"
	case errors.Is(err, syscall.EISDIR):
		return "Is a directory"
	case errors.Is(err, syscall.ENOTDIR):
		return "Not a directory"
	case errors.Is(err, syscall.ENOTEMPTY):
		return "Directory not empty"
	case errors.Is(err, fs.ErrNotExist):
		return "No such file or directory"
	case errors.Is(err, fs.ErrPermission):
		return "Permission denied"
	case errors.Is(err, fs.ErrExist):
		return "File exists"
	case errors.Is(err, fs.ErrInvalid):
		return "Invalid argument"
	}
	return err.Error()
}

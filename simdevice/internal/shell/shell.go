// Package shell is the simulated phone's /system/bin/sh: mksh's language,
// run by the mvdan.cc/sh interpreter, and toybox's commands (cat, grep,
// awk, ls, ps-free text tools …) printing what they print on a phone. It
// reaches nothing of the host: every file operation goes to a vfs.FS,
// every program that is not the shell's own (dumpsys, am, logcat …) to a
// Command the device supplies, and the identity, clock and properties a
// command prints come from the Config.
//
// The interpreter calls back into this package through its handlers
// (handlers.go): exec runs a command (proc.go dispatches it), open serves
// redirections, stat and readDir serve tests and globs. The toybox commands
// live in files by family: text.go, files.go and ls.go, system.go, time.go,
// grep.go, awk.go and tr.go.
package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/perfgate/perfgate/simdevice/internal/vfs"
)

// Name is how mksh names itself in its error messages on a phone.
const Name = "/system/bin/sh"

// Command is a program of the device's own that the shell runs by name,
// such as dumpsys or am: it gets its arguments (without its name) and
// returns its exit status. It must return soon after ctx ends.
type Command func(ctx context.Context, args []string, stdout, stderr io.Writer) int

// stdinKey carries a Command's standard input in its context.
type stdinKey struct{}

// Stdin is the standard input of the Command running under ctx (what a
// pipe or a redirection feeds it), or an empty reader.
func Stdin(ctx context.Context) io.Reader {
	if r, ok := ctx.Value(stdinKey{}).(io.Reader); ok {
		return r
	}
	return strings.NewReader("")
}

// Signal is how kill reaches the device's own processes: it delivers sig
// (a number, 0 to probe) to pid and returns nil, or an error wrapping
// syscall.ESRCH for no such process or syscall.EPERM for one the shell
// user may not signal. handled is false for a pid it knows nothing of.
type Signal func(pid, sig int) (handled bool, err error)

// Config is the device a Shell runs on.
type Config struct {
	// FS is the file tree as the shell's user sees it.
	FS *vfs.FS
	// Root makes the shell run as root (uid 0) instead of shell (uid 2000).
	Root bool
	// Hostname is uname -n and $HOSTNAME (ro.product.device).
	Hostname string
	// Kernel and KernelBuild are uname -r and uname -v.
	Kernel, KernelBuild string
	// Cores is how many CPU cores the device has, Online how many of them
	// are online (nproc).
	Cores, Online int
	// Commands are the executables on /system/bin: a selection of Toybox()
	// and of the keys of Programs. Any other name is not found.
	Commands []string
	// Programs are the device's own programs.
	Programs map[string]Command
	// Kill, when set, signals the processes the device itself runs for the
	// shell user (a background perfetto); other pids exist only as /proc
	// entries that refuse signals.
	Kill Signal
	// Wall is the device's wall clock (date).
	Wall func() time.Time
	// Props returns the system properties (getprop).
	Props func() map[string]string
}

// Shell runs command lines on one device. It is safe for concurrent use:
// each command line runs in an interpreter of its own.
type Shell struct {
	cfg Config
}

// New returns a shell for the device cfg describes.
func New(cfg Config) *Shell { return &Shell{cfg: cfg} }

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

// Run runs a command line as `/system/bin/sh -c cmd` would on the device
// and returns its exit status. It returns soon after ctx ends, with status
// 130 if the command had not finished. stdout and stderr may be the same
// writer; writes to each are serialised.
//
// stdin may be nil: reads then see end of file. An *os.File is read
// directly. Any other reader is copied into a pipe by a goroutine that ends
// when the reader does, so it should end with the stream, as an adb
// stream's stdin does. An empty cmd with a stdin runs the script read from
// stdin, as `adb shell` without a command does.
func (s *Shell) Run(ctx context.Context, cmd string, stdin io.Reader, stdout, stderr io.Writer) int {
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	out := &lockedWriter{w: stdout}
	errw := out
	if stderr != stdout {
		errw = &lockedWriter{w: stderr}
	}
	in, _ := stdin.(*os.File)
	if stdin != nil && in == nil {
		pr, pw, err := os.Pipe()
		if err != nil {
			fmt.Fprintf(errw, "%s: %v\n", Name, err)
			return 1
		}
		defer pr.Close()
		go func() {
			// This goroutine ends when stdin does (the adb stream closes)
			// or when the shell closed the read end. Commands rarely get
			// much input: a small buffer, where io.Copy would take 32 KB
			// for every command.
			io.CopyBuffer(struct{ io.Writer }{pw}, stdin, make([]byte, 4096))
			pw.Close()
		}()
		in = pr
	}
	if strings.TrimSpace(cmd) == "" && stdin != nil {
		// `adb shell` without a command runs a shell that reads its
		// script from the stream.
		cmd = "sh"
	}
	st := s.runScript(ctx, shellRun{src: cmd, dir: "/", stdin: in, stdout: out, stderr: errw})
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

// env is the environment of an adb shell session.
func (s *Shell) env() expand.Environ {
	user, uid := "shell", "2000"
	if s.cfg.Root {
		user, uid = "root", "0"
	}
	dev := s.cfg.Hostname
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
func (s *Shell) runScript(ctx context.Context, sr shellRun) int {
	name := sr.name
	if name == "" {
		name = Name
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangMirBSDKorn)).Parse(strings.NewReader(sr.src), name)
	if err != nil {
		fmt.Fprintf(sr.stderr, "%s: syntax error: %s\n", Name, syntaxMessage(err))
		return 1
	}
	if bad := hostOnlySyntax(file); bad != "" {
		fmt.Fprintf(sr.stderr, "%s: syntax error: '%s' unexpected\n", Name, bad)
		return 1
	}
	env := sr.env
	if env == nil {
		env = s.env()
	}
	sh := &handlers{s: s, v: s.cfg.FS}
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
		fmt.Fprintf(sr.stderr, "%s: %v\n", Name, err)
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
	fmt.Fprintf(stderr, "%s: %v\n", Name, err)
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

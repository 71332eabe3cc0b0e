package shell

import (
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

	"mvdan.cc/sh/v3/interp"

	"github.com/perfgate/perfgate/simdevice/internal/vfs"
)

// handlers connect the interpreter to the simulated device; none of
// them reaches the host's files or processes.
type handlers struct {
	s *Shell
	v *vfs.FS
}

// call rewrites the builtins that would search the host's $PATH.
func (sh *handlers) call(ctx context.Context, args []string) ([]string, error) {
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
		data, err := sh.v.ReadFile(vfs.Clean(args[1], hc.Dir))
		if err != nil {
			return []string{internalPrefix + "fail", "1", fmt.Sprintf("%s: %s: %s", Name, args[1], errText(err))}, nil
		}
		return []string{"eval", string(data)}, nil
	}
	return args, nil
}

// exec runs every command that is not a shell builtin.
func (sh *handlers) exec(ctx context.Context, args []string) error {
	hc := interp.HandlerCtx(ctx)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := &proc{
		ctx:    ctx,
		s:      sh.s,
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
func (sh *handlers) open(ctx context.Context, name string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
	hc := interp.HandlerCtx(ctx)
	p := vfs.Clean(name, hc.Dir)
	write := flag&(os.O_WRONLY|os.O_RDWR) != 0
	op := Name + ": can't open"
	if write {
		op = Name + ": can't create"
	}
	fail := func(err error) (io.ReadWriteCloser, error) {
		return nil, &os.PathError{Op: op, Path: name, Err: errors.New(errText(err))}
	}
	if p == "/dev/null" {
		return nopRW{r: strings.NewReader("")}, nil
	}
	if !write {
		data, err := sh.v.ReadFile(p)
		if err != nil {
			return fail(err)
		}
		return nopRW{r: strings.NewReader(string(data))}, nil
	}
	fi, err := sh.v.Stat(p)
	if err == nil && fi.IsDir() {
		return fail(syscall.EISDIR)
	}
	if err == nil && flag&os.O_EXCL != 0 && flag&os.O_CREATE != 0 {
		return fail(fs.ErrExist)
	}
	if err != nil && flag&os.O_CREATE == 0 {
		return fail(err)
	}
	if err := sh.v.MayWrite(p); err != nil {
		return fail(err)
	}
	now := time.Now()
	if err := sh.v.WriteFile(p, nil, perm, now, flag&os.O_TRUNC == 0); err != nil {
		return fail(err)
	}
	return sh.v.OpenAppend(p, flag&os.O_RDWR != 0), nil
}

// readDir serves glob expansion.
func (sh *handlers) readDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	hc := interp.HandlerCtx(ctx)
	fis, err := sh.v.ReadDir(vfs.Clean(name, hc.Dir))
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
func (sh *handlers) stat(ctx context.Context, name string, _ bool) (fs.FileInfo, error) {
	hc := interp.HandlerCtx(ctx)
	return sh.v.Stat(vfs.Clean(name, hc.Dir))
}

// access serves test -r/-w/-x and cd.
func (sh *handlers) access(ctx context.Context, name string, mode interp.AccessMode) error {
	p := vfs.Clean(name, "/")
	fi, err := sh.v.Stat(p)
	if err != nil {
		return err
	}
	if sh.v.Root {
		if mode&interp.AccessExec != 0 && !fi.IsDir() && fi.Mode().Perm()&0o111 == 0 {
			return &fs.PathError{Op: "access", Path: name, Err: syscall.EACCES}
		}
		return nil
	}
	perm := fi.Mode().Perm()
	if mode&interp.AccessRead != 0 && perm&0o044 == 0 && perm&0o400 != 0 && !ownedByShell(fi) {
		return &fs.PathError{Op: "access", Path: name, Err: syscall.EACCES}
	}
	if mode&interp.AccessWrite != 0 && sh.v.MayWrite(p) != nil {
		return &fs.PathError{Op: "access", Path: name, Err: syscall.EACCES}
	}
	if mode&interp.AccessExec != 0 && perm&0o111 == 0 {
		return &fs.PathError{Op: "access", Path: name, Err: syscall.EACCES}
	}
	return nil
}

func ownedByShell(fi fs.FileInfo) bool {
	owner, _ := vfs.Owner(fi)
	return owner == "shell"
}

// ErrText is the strerror text the device's own programs print for err,
// as toybox and mksh do.
func ErrText(err error) string { return errText(err) }

// errText is the strerror text toybox and mksh print for err.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
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

// nopRW is /dev/null and read-only virtual files opened by the shell.
type nopRW struct {
	r io.Reader
}

func (n nopRW) Read(b []byte) (int, error)  { return n.r.Read(b) }
func (n nopRW) Write(b []byte) (int, error) { return len(b), nil }
func (n nopRW) Close() error                { return nil }

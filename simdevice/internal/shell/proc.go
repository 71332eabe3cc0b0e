package shell

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"

	"github.com/perfgate/perfgate/simdevice/internal/vfs"
)

// proc is one external command being run by the shell.
type proc struct {
	ctx    context.Context
	s      *Shell
	v      *vfs.FS
	args   []string
	dir    string
	env    expand.Environ
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// Implemented lists the commands the shell implements itself, sorted: the
// toybox commands, getprop and sh.
func Implemented() []string {
	return []string{
		"awk", "base64", "cat", "chmod", "cut", "date", "echo", "egrep", "env", "false", "fgrep",
		"getconf", "getprop", "grep", "head", "id", "ls", "mkdir", "nproc",
		"printf", "rm", "seq", "sh", "sleep", "sort", "stat",
		"tail", "test", "toybox", "touch", "tr", "true", "uname", "uniq", "wc", "which",
	}
}

// binDirs are the $PATH directories whose executables the simulation knows.
var binDirs = []string{"/system/bin", "/system/xbin", "/vendor/bin", "/product/bin", "/system_ext/bin", "/odm/bin", "/vendor/xbin", "/bin"}

func (p *proc) errf(format string, a ...any) { fmt.Fprintf(p.stderr, format, a...) }

// run dispatches p.args[0] and returns the exit status.
func (p *proc) run() int {
	name := p.args[0]
	if strings.HasPrefix(name, internalPrefix) {
		return p.internal(strings.TrimPrefix(name, internalPrefix))
	}
	if strings.Contains(name, "/") {
		full := vfs.Clean(name, p.dir)
		if slices.Contains(binDirs, path.Dir(full)) && slices.Contains(p.s.cfg.Commands, path.Base(full)) {
			return p.command(path.Base(full))
		}
		fi, err := p.v.Stat(full)
		if err != nil {
			p.errf("%s: %s: inaccessible or not found\n", Name, name)
			return 127
		}
		if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
			p.errf("%s: %s: can't execute: Permission denied\n", Name, name)
			return 126
		}
		data, err := p.v.ReadFile(full)
		if err != nil {
			p.errf("%s: %s: can't execute: %s\n", Name, name, errText(err))
			return 126
		}
		return p.script(string(data), name, p.args[1:])
	}
	return p.command(name)
}

// command runs a command found on $PATH.
func (p *proc) command(name string) int {
	p.args[0] = name
	if !slices.Contains(p.s.cfg.Commands, name) {
		p.errf("%s: %s: inaccessible or not found\n", Name, name)
		return 127
	}
	switch name {
	case "cat":
		return p.cat()
	case "ls":
		return p.ls()
	case "head":
		return p.headTail(true)
	case "tail":
		return p.headTail(false)
	case "grep":
		return p.grep("")
	case "egrep":
		return p.grep("E")
	case "fgrep":
		return p.grep("F")
	case "wc":
		return p.wc()
	case "sleep":
		return p.sleep()
	case "id":
		return p.id()
	case "nproc":
		// toybox nproc counts the cores the shell may run on: the online ones.
		fmt.Fprintln(p.stdout, p.s.cfg.Online)
		return 0
	case "getconf":
		return p.getconf()
	case "uname":
		return p.uname()
	case "date":
		return p.date()
	case "echo", "printf", "test", "true", "false":
		return p.viaBuiltin()
	case "mkdir":
		return p.mkdir()
	case "rm":
		return p.rm()
	case "touch":
		return p.touch()
	case "stat":
		return p.stat()
	case "chmod":
		return p.chmod()
	case "sh":
		return p.sh()
	case "toybox":
		return p.toybox()
	case "base64":
		return p.base64()
	case "env":
		return p.printEnv()
	case "which":
		return p.which()
	case "seq":
		return p.seq()
	case "sort":
		return p.sort()
	case "uniq":
		return p.uniq()
	case "cut":
		return p.cut()
	case "tr":
		return p.tr()
	case "awk":
		return p.awk()
	case "getprop":
		return p.getprop()
	}
	if prog, ok := p.s.cfg.Programs[name]; ok {
		return prog(context.WithValue(p.ctx, stdinKey{}, p.stdin), p.args[1:], p.stdout, p.stderr)
	}
	p.errf("%s: %s: inaccessible or not found\n", Name, name)
	return 127
}

// internal runs the shell's replacements for builtins that would look at
// the host (see handlers.call).
func (p *proc) internal(name string) int {
	args := p.args[1:]
	switch name {
	case "fail":
		if len(args) == 2 {
			p.errf("%s\n", args[1])
			n, _ := strconv.Atoi(args[0])
			return n
		}
		return 1
	case "type":
		st := 0
		for _, a := range args {
			switch {
			case interp.IsBuiltin(a):
				fmt.Fprintf(p.stdout, "%s is a shell builtin\n", a)
			case slices.Contains(p.s.cfg.Commands, a):
				fmt.Fprintf(p.stdout, "%s is a tracked alias for /system/bin/%s\n", a, a)
			default:
				fmt.Fprintf(p.stdout, "%s not found\n", a)
				st = 1
			}
		}
		return st
	case "command":
		st := 0
		for _, a := range args[1:] {
			switch {
			case interp.IsBuiltin(a):
				fmt.Fprintln(p.stdout, a)
			case slices.Contains(p.s.cfg.Commands, a):
				fmt.Fprintf(p.stdout, "/system/bin/%s\n", a)
			default:
				st = 1
			}
		}
		return st
	case "kill":
		return p.kill(args)
	}
	p.errf("%s: %s: inaccessible or not found\n", Name, name)
	return 127
}

// viaBuiltin runs /system/bin/echo and friends with the shell's builtins,
// which follow the same POSIX rules.
func (p *proc) viaBuiltin() int {
	err := interp.HandlerCtx(p.ctx).Builtin(p.ctx, p.args)
	if err == nil {
		return 0
	}
	var es interp.ExitStatus
	if errors.As(err, &es) {
		return int(es)
	}
	return 1
}

// script runs src in a child shell, as sh FILE or an executable script does.
func (p *proc) script(src, name string, args []string) int {
	var in *os.File
	if f, ok := p.stdin.(*os.File); ok {
		in = f
	}
	var env []string
	p.env.Each(func(n string, vr expand.Variable) bool {
		if vr.Exported && vr.IsSet() {
			env = append(env, n+"="+vr.String())
		}
		return true
	})
	return p.s.runScript(p.ctx, shellRun{
		src: src, name: name, args: append([]string{}, args...), dir: p.dir,
		env: expand.ListEnviron(env...), stdin: in, stdout: p.stdout, stderr: p.stderr,
	})
}

// sh implements `sh -c SCRIPT [NAME [ARGS...]]`, `sh FILE [ARGS...]` and a
// script read from standard input.
func (p *proc) sh() int {
	args := p.args[1:]
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && args[0] != "-c" {
		if args[0] == "--" {
			args = args[1:]
			break
		}
		args = args[1:] // -e, -x and the like do not change what runs here
	}
	switch {
	case len(args) > 0 && args[0] == "-c":
		if len(args) < 2 {
			p.errf("%s: -c: option requires an argument\n", Name)
			return 1
		}
		name, rest := Name, []string{}
		if len(args) > 2 {
			name, rest = args[2], args[3:]
		}
		return p.script(args[1], name, rest)
	case len(args) > 0:
		data, err := p.v.ReadFile(vfs.Clean(args[0], p.dir))
		if err != nil {
			p.errf("%s: %s: %s\n", Name, args[0], errText(err))
			return 127
		}
		return p.script(string(data), args[0], args[1:])
	}
	src, err := io.ReadAll(p.stdin)
	if err != nil && p.ctx.Err() != nil {
		return 130
	}
	return p.script(string(src), Name, nil)
}

// toybox runs `toybox CMD ARGS...`, or lists its commands.
func (p *proc) toybox() int {
	if len(p.args) < 2 {
		fmt.Fprintln(p.stdout, strings.Join(p.s.cfg.Commands, " "))
		return 0
	}
	p.args = p.args[1:]
	if !slices.Contains(p.s.cfg.Commands, p.args[0]) || p.args[0] == "toybox" {
		p.errf("toybox: Unknown command %s\n", p.args[0])
		return 1
	}
	return p.command(p.args[0])
}

// readFile reads an operand, where "-" is standard input.
func (p *proc) readFile(name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(p.stdin)
	}
	return p.v.ReadFile(vfs.Clean(name, p.dir))
}

// lineReader opens an operand for reading line by line; standard input is
// read as it arrives so that a pipeline from a stream keeps flowing.
func (p *proc) lineReader(name string) (*bufio.Reader, error) {
	if name == "-" {
		return bufio.NewReader(p.stdin), nil
	}
	data, err := p.readFile(name)
	if err != nil {
		return nil, err
	}
	return bufio.NewReader(bytes.NewReader(data)), nil
}

// inputs returns the operands, or standard input when there are none.
func inputs(ops []string) []string {
	if len(ops) == 0 {
		return []string{"-"}
	}
	return ops
}

// usageError is toybox's message for a command line it rejects ("Unknown
// option 'z'"), printed after the command's name. It is output in toybox's
// wording, capital first, not a Go error message to be wrapped.
type usageError string

func (e usageError) Error() string { return string(e) }

func (p *proc) usage(cmd string, err error) int {
	p.errf("%s: %v\n", cmd, err)
	return 1
}

func has(fl map[string]string, k string) bool { _, ok := fl[k]; return ok }

// scanFlags walks a toybox command line: flag gets each flag character of
// each word that starts with '-' and, if the flag takes a value, calls
// value for the rest of the word or else the next word. A word "--" ends
// the flags; "-" is an operand. Flags may follow operands, as toybox
// allows. It returns the operands.
func scanFlags(args []string, flag func(c byte, value func() (string, error)) error) ([]string, error) {
	var ops []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			ops = append(ops, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			ops = append(ops, a)
			continue
		}
		for j := 1; j < len(a); j++ {
			took := false
			value := func() (string, error) {
				took = true
				if v := a[j+1:]; v != "" {
					return v, nil
				}
				if i+1 >= len(args) {
					return "", usageError("Missing argument to -" + string(a[j]))
				}
				i++
				return args[i], nil
			}
			if err := flag(a[j], value); err != nil {
				return nil, err
			}
			if took {
				break
			}
		}
	}
	return ops, nil
}

// parseFlags is a small getopt over scanFlags: boolFlags take no value,
// valFlags take one (attached, -n5, or as the next word).
func parseFlags(args []string, boolFlags, valFlags string) (map[string]string, []string, error) {
	fl := map[string]string{}
	ops, err := scanFlags(args, func(b byte, value func() (string, error)) error {
		c := string(b)
		switch {
		case strings.Contains(valFlags, c):
			v, err := value()
			if err != nil {
				return err
			}
			fl[c] = v
		case strings.Contains(boolFlags, c):
			fl[c] = "1"
		default:
			return usageError("Unknown option '" + c + "'")
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return fl, ops, nil
}

package simdevice

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
)

// proc is one external command being run by the shell.
type proc struct {
	ctx    context.Context
	d      *Device
	v      *vfs
	args   []string
	dir    string
	env    expand.Environ
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// commandNames lists the executables of the simulated /system/bin.
func commandNames() []string {
	return []string{
		"am", "awk", "base64", "cat", "chmod", "cmd", "cut", "date", "dumpsys", "echo", "egrep", "env", "false", "fgrep",
		"getconf", "getprop", "grep", "head", "id", "input", "logcat", "ls", "mkdir", "monkey", "nproc",
		"pidof", "pm", "printf", "ps", "rm", "seq", "service", "settings", "sh", "sleep", "sort", "stat",
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
		full := cleanPath(name, p.dir)
		if slices.Contains(binDirs, path.Dir(full)) && slices.Contains(p.d.cfg.Quirks.commands(), path.Base(full)) {
			return p.command(path.Base(full))
		}
		fi, err := p.v.stat(full)
		if err != nil {
			p.errf("%s: %s: inaccessible or not found\n", shName, name)
			return 127
		}
		if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
			p.errf("%s: %s: can't execute: Permission denied\n", shName, name)
			return 126
		}
		data, err := p.v.readFile(full)
		if err != nil {
			p.errf("%s: %s: can't execute: %s\n", shName, name, errText(err))
			return 126
		}
		return p.script(string(data), name, p.args[1:])
	}
	return p.command(name)
}

// command runs a command found on $PATH.
func (p *proc) command(name string) int {
	p.args[0] = name
	if slices.Contains(p.d.cfg.Quirks.MissingCommands, name) {
		p.errf("%s: %s: inaccessible or not found\n", shName, name)
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
		fmt.Fprintln(p.stdout, p.d.cfg.online())
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
	case "dumpsys", "pm", "am", "monkey", "input", "pidof", "ps", "logcat", "service", "settings", "cmd":
		return p.world(name)
	}
	p.errf("%s: %s: inaccessible or not found\n", shName, name)
	return 127
}

// internal runs the shell's replacements for builtins that would look at
// the host (see shellHandlers.call).
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
			case slices.Contains(p.d.cfg.Quirks.commands(), a):
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
			case slices.Contains(p.d.cfg.Quirks.commands(), a):
				fmt.Fprintf(p.stdout, "/system/bin/%s\n", a)
			default:
				st = 1
			}
		}
		return st
	case "kill":
		return p.kill(args)
	}
	p.errf("%s: %s: inaccessible or not found\n", shName, name)
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
	return p.d.runScript(p.ctx, shellRun{
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
			p.errf("%s: -c: option requires an argument\n", shName)
			return 1
		}
		name, rest := shName, []string{}
		if len(args) > 2 {
			name, rest = args[2], args[3:]
		}
		return p.script(args[1], name, rest)
	case len(args) > 0:
		data, err := p.v.readFile(cleanPath(args[0], p.dir))
		if err != nil {
			p.errf("%s: %s: %s\n", shName, args[0], errText(err))
			return 127
		}
		return p.script(string(data), args[0], args[1:])
	}
	src, err := io.ReadAll(p.stdin)
	if err != nil && p.ctx.Err() != nil {
		return 130
	}
	return p.script(string(src), shName, nil)
}

// toybox runs `toybox CMD ARGS...`, or lists its commands.
func (p *proc) toybox() int {
	if len(p.args) < 2 {
		fmt.Fprintln(p.stdout, strings.Join(p.d.cfg.Quirks.commands(), " "))
		return 0
	}
	p.args = p.args[1:]
	if !slices.Contains(p.d.cfg.Quirks.commands(), p.args[0]) || p.args[0] == "toybox" {
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
	return p.v.readFile(cleanPath(name, p.dir))
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

func (p *proc) cat() int {
	fl, ops, err := parseFlags(p.args[1:], "uvAet", "")
	if err != nil {
		return p.usage("cat", err)
	}
	_ = fl
	st := 0
	for _, op := range inputs(ops) {
		if op == "-" {
			if _, err := io.Copy(p.stdout, p.stdin); err != nil && p.ctx.Err() != nil {
				return 130
			}
			continue
		}
		data, err := p.readFile(op)
		if err != nil {
			p.errf("cat: %s: %s\n", op, errText(err))
			st = 1
			continue
		}
		if _, err := p.stdout.Write(data); err != nil {
			return 1
		}
	}
	return st
}

func (p *proc) usage(cmd string, err error) int {
	p.errf("%s: %v\n", cmd, err)
	return 1
}

// lines splits data into lines, keeping a final line without a newline.
func lines(data []byte) []string {
	if len(data) == 0 {
		return nil
	}
	s := strings.TrimSuffix(string(data), "\n")
	return strings.Split(s, "\n")
}

// headTail implements head and tail: -n N (tail also +N), -c N, -N.
func (p *proc) headTail(head bool) int {
	name := "tail"
	if head {
		name = "head"
	}
	args := slices.Clone(p.args[1:])
	for i, a := range args {
		// The historic -N form means -n N.
		if len(a) > 1 && a[0] == '-' && a[1] >= '0' && a[1] <= '9' {
			args[i] = "-n" + a[1:]
		}
	}
	fl, ops, err := parseFlags(args, "qvf", "nc")
	if err != nil {
		return p.usage(name, err)
	}
	count, bytesMode, fromStart := 10, false, false
	spec, ok := fl["n"]
	if c, okc := fl["c"]; okc {
		spec, ok, bytesMode = c, true, true
	}
	if ok {
		if !head && strings.HasPrefix(spec, "+") {
			fromStart = true
		}
		n, err := strconv.Atoi(strings.TrimPrefix(spec, "+"))
		if err != nil || n < 0 {
			p.errf("%s: Not integer '%s'\n", name, spec)
			return 1
		}
		count = n
	}
	ins := inputs(ops)
	st := 0
	for i, op := range ins {
		if len(ins) > 1 && fl["q"] == "" {
			if i > 0 {
				fmt.Fprintln(p.stdout)
			}
			fmt.Fprintf(p.stdout, "==> %s <==\n", op)
		}
		if head {
			r, err := p.lineReader(op)
			if err != nil {
				p.errf("%s: %s: %s\n", name, op, errText(err))
				st = 1
				continue
			}
			if !p.copyHead(r, count, bytesMode) {
				return 1
			}
			continue
		}
		data, err := p.readFile(op)
		if err != nil {
			if p.ctx.Err() != nil {
				return 130
			}
			p.errf("%s: %s: %s\n", name, op, errText(err))
			st = 1
			continue
		}
		var out []byte
		switch {
		case bytesMode && fromStart:
			out = data[min(max(count-1, 0), len(data)):]
		case bytesMode:
			out = data[len(data)-min(count, len(data)):]
		default:
			ls := splitKeep(data)
			if fromStart {
				ls = ls[min(max(count-1, 0), len(ls)):]
			} else {
				ls = ls[len(ls)-min(count, len(ls)):]
			}
			out = []byte(strings.Join(ls, ""))
		}
		if _, err := p.stdout.Write(out); err != nil {
			return 1
		}
	}
	if p.ctx.Err() != nil {
		return 130
	}
	return st
}

// copyHead copies the first n lines (or bytes) of r and stops reading, so
// that `logcat | head -n 5` ends after five lines.
func (p *proc) copyHead(r *bufio.Reader, n int, bytesMode bool) bool {
	if bytesMode {
		_, err := io.CopyN(p.stdout, r, int64(n))
		return err == nil || err == io.EOF
	}
	for range n {
		line, err := r.ReadString('\n')
		if line != "" {
			if _, werr := io.WriteString(p.stdout, line); werr != nil {
				return false
			}
		}
		if err != nil {
			break
		}
	}
	return true
}

// splitKeep splits data into lines that keep their newline.
func splitKeep(data []byte) []string {
	var out []string
	s := string(data)
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

func (p *proc) wc() int {
	fl, ops, err := parseFlags(p.args[1:], "lwcm", "")
	if err != nil {
		return p.usage("wc", err)
	}
	cols := ""
	for _, c := range "lwcm" {
		if _, ok := fl[string(c)]; ok {
			cols += string(c)
		}
	}
	if cols == "" {
		cols = "lwc"
	}
	var total [3]int
	st := 0
	show := func(n [3]int, name string) {
		var f []string
		for _, c := range cols {
			switch c {
			case 'l':
				f = append(f, itoa(n[0]))
			case 'w':
				f = append(f, itoa(n[1]))
			case 'c', 'm':
				f = append(f, itoa(n[2]))
			}
		}
		if name != "" {
			f = append(f, name)
		}
		fmt.Fprintln(p.stdout, strings.Join(f, " "))
	}
	for _, op := range inputs(ops) {
		data, err := p.readFile(op)
		if err != nil {
			if p.ctx.Err() != nil {
				return 130
			}
			p.errf("wc: %s: %s\n", op, errText(err))
			st = 1
			continue
		}
		n := [3]int{bytes.Count(data, []byte("\n")), len(bytes.Fields(data)), len(data)}
		if _, ok := fl["m"]; ok {
			n[2] = len([]rune(string(data)))
		}
		for i := range n {
			total[i] += n[i]
		}
		name := op
		if op == "-" && len(ops) == 0 {
			name = ""
		}
		show(n, name)
	}
	if len(ops) > 1 {
		show(total, "total")
	}
	return st
}

// sleep waits, ending early (status 130) when the stream closes.
func (p *proc) sleep() int {
	if len(p.args) < 2 {
		p.errf("sleep: Needs 1 argument\n")
		return 1
	}
	var d time.Duration
	for _, a := range p.args[1:] {
		n, err := parseSleep(a)
		if err != nil {
			p.errf("sleep: Bad duration '%s'\n", a)
			return 1
		}
		d += n
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return 0
	case <-p.ctx.Done():
		return 130
	}
}

// parseSleep reads a toybox duration: a decimal number with an optional
// s, m, h or d suffix.
func parseSleep(s string) (time.Duration, error) {
	unit := time.Second
	if s != "" {
		switch s[len(s)-1] {
		case 's':
			s = s[:len(s)-1]
		case 'm':
			unit, s = time.Minute, s[:len(s)-1]
		case 'h':
			unit, s = time.Hour, s[:len(s)-1]
		case 'd':
			unit, s = 24*time.Hour, s[:len(s)-1]
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f > 1e6 || s == "" || strings.ContainsAny(s, "xXpPeEnNiI_") {
		return 0, fmt.Errorf("bad duration %q", s)
	}
	return time.Duration(f * float64(unit)), nil
}

func (p *proc) id() int {
	fl, ops, err := parseFlags(p.args[1:], "ugGnrZ", "")
	if err != nil {
		return p.usage("id", err)
	}
	if len(ops) > 0 && ops[0] != "shell" && ops[0] != "root" {
		p.errf("id: %s: no such user\n", ops[0])
		return 1
	}
	root := p.d.cfg.Root
	if len(ops) > 0 {
		root = ops[0] == "root"
	}
	uid, name := 2000, "shell"
	if root {
		uid, name = 0, "root"
	}
	_, n := fl["n"]
	switch {
	case has(fl, "u"), has(fl, "g"):
		if n {
			fmt.Fprintln(p.stdout, name)
		} else {
			fmt.Fprintln(p.stdout, uid)
		}
	case has(fl, "G"):
		if root {
			fmt.Fprintln(p.stdout, "0")
		} else {
			fmt.Fprintln(p.stdout, "2000 1004 1007 1011 1015 1028 3001 3002 3003 3006 3009 3011")
		}
	case root:
		fmt.Fprintln(p.stdout, "uid=0(root) gid=0(root) groups=0(root),1004(input),1007(log),1011(adb),1015(sdcard_rw),1028(sdcard_r),3001(net_bt_admin),3002(net_bt),3003(inet),3006(net_bw_stats),3009(readproc),3011(uhid) context=u:r:su:s0")
	default:
		fmt.Fprintln(p.stdout, "uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb),1015(sdcard_rw),1028(sdcard_r),3001(net_bt_admin),3002(net_bt),3003(inet),3006(net_bw_stats),3009(readproc),3011(uhid) context=u:r:shell:s0")
	}
	return 0
}

func has(fl map[string]string, k string) bool { _, ok := fl[k]; return ok }

func (p *proc) getconf() int {
	if len(p.args) != 2 {
		p.errf("getconf: Needs 1 argument\n")
		return 1
	}
	switch p.args[1] {
	case "CLK_TCK":
		// USER_HZ: the unit of /proc/<pid>/stat times on every Android kernel.
		fmt.Fprintln(p.stdout, 100)
	case "PAGESIZE", "PAGE_SIZE":
		fmt.Fprintln(p.stdout, 4096)
	case "_NPROCESSORS_ONLN", "NPROCESSORS_ONLN":
		fmt.Fprintln(p.stdout, p.d.cfg.online())
	case "_NPROCESSORS_CONF", "NPROCESSORS_CONF":
		fmt.Fprintln(p.stdout, p.d.cfg.Cores)
	case "LONG_BIT":
		fmt.Fprintln(p.stdout, 64)
	default:
		p.errf("getconf: bad '%s'\n", p.args[1])
		return 1
	}
	return 0
}

func (p *proc) uname() int {
	fl, _, err := parseFlags(p.args[1:], "asnrvmop", "")
	if err != nil {
		return p.usage("uname", err)
	}
	pr := products[p.d.cfg.API]
	_, _, host := p.d.Product()
	fields := []struct{ flag, val string }{
		{"s", "Linux"}, {"n", host}, {"r", pr.kernel}, {"v", pr.kernelBuild}, {"m", "aarch64"}, {"o", "Toybox"},
	}
	var out []string
	for _, f := range fields {
		if has(fl, "a") && f.flag != "p" || has(fl, f.flag) {
			out = append(out, f.val)
		}
	}
	if has(fl, "p") {
		out = append(out, "aarch64")
	}
	if len(out) == 0 {
		out = []string{"Linux"}
	}
	fmt.Fprintln(p.stdout, strings.Join(out, " "))
	return 0
}

func (p *proc) date() int {
	args := p.args[1:]
	now := p.d.world.Wall()
	format := "%a %b %e %H:%M:%S %Z %Y"
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-u" || a == "--utc":
		case a == "-d" && i+1 < len(args):
			i++
			t, ok := parseDateArg(args[i])
			if !ok {
				p.errf("date: bad date '%s'\n", args[i])
				return 1
			}
			now = t
		case strings.HasPrefix(a, "+"):
			format = a[1:]
		default:
			// Setting the clock needs root and a real RTC.
			p.errf("date: cannot set date: Operation not permitted\n")
			return 1
		}
	}
	fmt.Fprintln(p.stdout, strftime(format, now))
	return 0
}

// parseDateArg reads the -d forms scripts use: @SECONDS and RFC 3339.
func parseDateArg(s string) (time.Time, bool) {
	if rest, ok := strings.CutPrefix(s, "@"); ok {
		f, err := strconv.ParseFloat(rest, 64)
		if err != nil || f < -1e12 || f > 1e12 {
			return time.Time{}, false
		}
		sec := int64(f)
		return time.Unix(sec, int64((f-float64(sec))*1e9)).UTC(), true
	}
	for _, l := range []string{time.RFC3339, "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// strftime formats t with the conversions of toybox date.
func strftime(f string, t time.Time) string {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c != '%' || i+1 >= len(f) {
			b.WriteByte(c)
			continue
		}
		i++
		switch f[i] {
		case '%':
			b.WriteByte('%')
		case 'a':
			b.WriteString(t.Format("Mon"))
		case 'A':
			b.WriteString(t.Format("Monday"))
		case 'b', 'h':
			b.WriteString(t.Format("Jan"))
		case 'B':
			b.WriteString(t.Format("January"))
		case 'c':
			b.WriteString(t.Format("Mon Jan  2 15:04:05 2006"))
		case 'C':
			fmt.Fprintf(&b, "%02d", t.Year()/100)
		case 'd':
			fmt.Fprintf(&b, "%02d", t.Day())
		case 'D':
			b.WriteString(t.Format("01/02/06"))
		case 'e':
			fmt.Fprintf(&b, "%2d", t.Day())
		case 'F':
			b.WriteString(t.Format("2006-01-02"))
		case 'H':
			fmt.Fprintf(&b, "%02d", t.Hour())
		case 'I':
			fmt.Fprintf(&b, "%02d", (t.Hour()+11)%12+1)
		case 'j':
			fmt.Fprintf(&b, "%03d", t.YearDay())
		case 'k':
			fmt.Fprintf(&b, "%2d", t.Hour())
		case 'm':
			fmt.Fprintf(&b, "%02d", int(t.Month()))
		case 'M':
			fmt.Fprintf(&b, "%02d", t.Minute())
		case 'n':
			b.WriteByte('\n')
		case 'N':
			fmt.Fprintf(&b, "%09d", t.Nanosecond())
		case 'p':
			b.WriteString(t.Format("PM"))
		case 'R':
			b.WriteString(t.Format("15:04"))
		case 's':
			fmt.Fprintf(&b, "%d", t.Unix())
		case 'S':
			fmt.Fprintf(&b, "%02d", t.Second())
		case 't':
			b.WriteByte('\t')
		case 'T':
			b.WriteString(t.Format("15:04:05"))
		case 'u':
			fmt.Fprintf(&b, "%d", (int(t.Weekday())+6)%7+1)
		case 'w':
			fmt.Fprintf(&b, "%d", int(t.Weekday()))
		case 'y':
			fmt.Fprintf(&b, "%02d", t.Year()%100)
		case 'Y':
			fmt.Fprintf(&b, "%d", t.Year())
		case 'z':
			b.WriteString(t.Format("-0700"))
		case 'Z':
			b.WriteString(t.Format("MST"))
		default:
			b.WriteByte('%')
			b.WriteByte(f[i])
		}
	}
	return b.String()
}

func (p *proc) mkdir() int {
	fl, ops, err := parseFlags(p.args[1:], "pv", "m")
	if err != nil || len(ops) == 0 {
		p.errf("mkdir: Needs 1 argument\n")
		return 1
	}
	st := 0
	for _, op := range ops {
		if err := p.v.mkdir(cleanPath(op, p.dir), has(fl, "p"), time.Now()); err != nil {
			p.errf("mkdir: %s: %s\n", op, errText(err))
			st = 1
		}
	}
	return st
}

func (p *proc) rm() int {
	fl, ops, err := parseFlags(p.args[1:], "rRfiv", "")
	if err != nil {
		return p.usage("rm", err)
	}
	if len(ops) == 0 && !has(fl, "f") {
		p.errf("rm: Needs 1 argument\n")
		return 1
	}
	st := 0
	for _, op := range ops {
		err := p.v.remove(cleanPath(op, p.dir), has(fl, "r") || has(fl, "R"))
		if err == nil {
			continue
		}
		if has(fl, "f") && errText(err) == "No such file or directory" {
			continue
		}
		if errText(err) == "Is a directory" {
			p.errf("rm: %s: Is a directory\n", op)
		} else {
			p.errf("rm: %s: %s\n", op, errText(err))
		}
		st = 1
	}
	return st
}

func (p *proc) touch() int {
	fl, ops, err := parseFlags(p.args[1:], "acm", "dtr")
	if err != nil || len(ops) == 0 {
		p.errf("touch: Needs 1 argument\n")
		return 1
	}
	st := 0
	for _, op := range ops {
		cp := cleanPath(op, p.dir)
		if has(fl, "c") {
			if _, err := p.v.stat(cp); err != nil {
				continue
			}
		}
		if err := p.v.touch(cp, time.Now()); err != nil {
			p.errf("touch: %s: %s\n", op, errText(err))
			st = 1
		}
	}
	return st
}

func (p *proc) chmod() int {
	args := p.args[1:]
	if len(args) > 0 && (args[0] == "-R" || args[0] == "-f") {
		args = args[1:]
	}
	if len(args) < 2 {
		p.errf("chmod: Needs 2 arguments\n")
		return 1
	}
	st := 0
	for _, op := range args[1:] {
		cp := cleanPath(op, p.dir)
		if err := p.v.chmod(cp, args[0]); err != nil {
			p.errf("chmod: %s: %s\n", op, errText(err))
			st = 1
		}
	}
	return st
}

// stat implements `stat [-c FORMAT] FILE...` with the common conversions.
func (p *proc) stat() int {
	fl, ops, err := parseFlags(p.args[1:], "Lft", "c")
	if err != nil || len(ops) == 0 {
		p.errf("stat: Needs 1 argument\n")
		return 1
	}
	st := 0
	for _, op := range ops {
		fi, err := p.v.stat(cleanPath(op, p.dir))
		if err != nil {
			p.errf("stat: %s: %s\n", op, errText(err))
			st = 1
			continue
		}
		format, ok := fl["c"]
		if !ok {
			format = "  File: %n\n  Size: %s\t Blocks: %b\t IO Blocks: 4096\t%F\nAccess: (%a/%A)\tUid: (%u/%U)\tGid: (%g/%G)\nModify: %y"
		}
		fmt.Fprintln(p.stdout, statFormat(format, op, fi))
	}
	return st
}

func statFormat(f, name string, fi fs.FileInfo) string {
	owner, group := "root", "root"
	if x, ok := fi.(*fileInfo); ok {
		owner, group = x.owner, x.group
	}
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 >= len(f) {
			b.WriteByte(f[i])
			continue
		}
		i++
		switch f[i] {
		case 'n':
			b.WriteString(name)
		case 's':
			b.WriteString(strconv.FormatInt(fi.Size(), 10))
		case 'b':
			b.WriteString(strconv.FormatInt((fi.Size()+511)/512, 10))
		case 'a':
			fmt.Fprintf(&b, "%o", fi.Mode().Perm())
		case 'A':
			b.WriteString(modeString(fi.Mode()))
		case 'F':
			b.WriteString(fileType(fi.Mode()))
		case 'U':
			b.WriteString(owner)
		case 'G':
			b.WriteString(group)
		case 'u':
			b.WriteString(userID(owner))
		case 'g':
			b.WriteString(userID(group))
		case 'Y', 'X', 'Z':
			b.WriteString(strconv.FormatInt(fi.ModTime().Unix(), 10))
		case 'y', 'x', 'z':
			b.WriteString(fi.ModTime().UTC().Format("2006-01-02 15:04:05.000000000 -0700"))
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('?')
		}
	}
	return b.String()
}

func userID(name string) string {
	switch name {
	case "root":
		return "0"
	case "system":
		return "1000"
	case "shell":
		return "2000"
	case "everybody":
		return "9997"
	}
	return "0"
}

func fileType(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m&fs.ModeCharDevice != 0:
		return "character special file"
	}
	return "regular file"
}

func (p *proc) base64() int {
	fl, ops, err := parseFlags(p.args[1:], "di", "w")
	if err != nil {
		return p.usage("base64", err)
	}
	data, err := p.readFile(inputs(ops)[0])
	if err != nil {
		p.errf("base64: %s: %s\n", inputs(ops)[0], errText(err))
		return 1
	}
	if has(fl, "d") {
		clean := strings.Map(func(r rune) rune {
			if r == '\n' || r == '\r' || r == ' ' || r == '\t' {
				return -1
			}
			return r
		}, string(data))
		out, err := base64.StdEncoding.DecodeString(clean)
		p.stdout.Write(out)
		if err != nil {
			p.errf("base64: bad input\n")
			return 1
		}
		return 0
	}
	wrap := 76
	if w, ok := fl["w"]; ok {
		if wrap, err = strconv.Atoi(w); err != nil || wrap < 0 {
			p.errf("base64: Not integer '%s'\n", w)
			return 1
		}
	}
	enc := base64.StdEncoding.EncodeToString(data)
	var b strings.Builder
	for wrap > 0 && len(enc) > wrap {
		b.WriteString(enc[:wrap] + "\n")
		enc = enc[wrap:]
	}
	b.WriteString(enc + "\n")
	io.WriteString(p.stdout, b.String())
	return 0
}

func (p *proc) printEnv() int {
	var env []string
	p.env.Each(func(n string, vr expand.Variable) bool {
		if vr.Exported && vr.IsSet() {
			env = append(env, n+"="+vr.String())
		}
		return true
	})
	slices.Sort(env)
	for _, e := range env {
		fmt.Fprintln(p.stdout, e)
	}
	return 0
}

func (p *proc) which() int {
	st := 0
	for _, a := range p.args[1:] {
		if slices.Contains(p.d.cfg.Quirks.commands(), a) {
			fmt.Fprintf(p.stdout, "/system/bin/%s\n", a)
		} else {
			st = 1
		}
	}
	return st
}

func (p *proc) seq() int {
	var n []int
	for _, a := range p.args[1:] {
		v, err := strconv.Atoi(a)
		if err != nil {
			p.errf("seq: Not integer '%s'\n", a)
			return 1
		}
		n = append(n, v)
	}
	first, step, last := 1, 1, 0
	switch len(n) {
	case 1:
		last = n[0]
	case 2:
		first, last = n[0], n[1]
	case 3:
		first, step, last = n[0], n[1], n[2]
	default:
		p.errf("seq: Needs 1 to 3 arguments\n")
		return 1
	}
	if step == 0 {
		p.errf("seq: step cannot be 0\n")
		return 1
	}
	w := bufio.NewWriter(p.stdout)
	for i := first; step > 0 && i <= last || step < 0 && i >= last; i += step {
		if p.ctx.Err() != nil {
			return 130
		}
		if _, err := fmt.Fprintln(w, i); err != nil {
			return 1
		}
	}
	if w.Flush() != nil {
		return 1
	}
	return 0
}

func (p *proc) sort() int {
	fl, ops, err := parseFlags(p.args[1:], "nru", "")
	if err != nil {
		return p.usage("sort", err)
	}
	var all []string
	for _, op := range inputs(ops) {
		data, err := p.readFile(op)
		if err != nil {
			p.errf("sort: %s: %s\n", op, errText(err))
			return 2
		}
		all = append(all, lines(data)...)
	}
	cmp := strings.Compare
	if has(fl, "n") {
		cmp = func(a, b string) int {
			x, y := leadingNumber(a), leadingNumber(b)
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return strings.Compare(a, b)
		}
	}
	slices.SortStableFunc(all, cmp)
	if has(fl, "r") {
		slices.Reverse(all)
	}
	if has(fl, "u") {
		all = slices.Compact(all)
	}
	for _, l := range all {
		fmt.Fprintln(p.stdout, l)
	}
	return 0
}

func leadingNumber(s string) float64 {
	s = strings.TrimLeft(s, " \t")
	end := 0
	for end < len(s) && (s[end] >= '0' && s[end] <= '9' || s[end] == '.' || end == 0 && s[end] == '-') {
		end++
	}
	f, _ := strconv.ParseFloat(s[:end], 64)
	return f
}

func (p *proc) uniq() int {
	fl, ops, err := parseFlags(p.args[1:], "c", "")
	if err != nil {
		return p.usage("uniq", err)
	}
	data, err := p.readFile(inputs(ops)[0])
	if err != nil {
		p.errf("uniq: %s: %s\n", inputs(ops)[0], errText(err))
		return 1
	}
	ls := lines(data)
	for i := 0; i < len(ls); {
		j := i
		for j < len(ls) && ls[j] == ls[i] {
			j++
		}
		if has(fl, "c") {
			fmt.Fprintf(p.stdout, "%7d %s\n", j-i, ls[i])
		} else {
			fmt.Fprintln(p.stdout, ls[i])
		}
		i = j
	}
	return 0
}

// cut implements -d DELIM -f LIST (fields) and -c LIST (characters).
func (p *proc) cut() int {
	fl, ops, err := parseFlags(p.args[1:], "s", "dfc")
	if err != nil {
		return p.usage("cut", err)
	}
	list, chars := fl["f"], false
	if c, ok := fl["c"]; ok {
		list, chars = c, true
	}
	ranges, err := parseList(list)
	if err != nil {
		p.errf("cut: bad list '%s'\n", list)
		return 1
	}
	delim := "\t"
	if d, ok := fl["d"]; ok {
		if len(d) != 1 {
			p.errf("cut: -d needs one character\n")
			return 1
		}
		delim = d
	}
	for _, op := range inputs(ops) {
		data, err := p.readFile(op)
		if err != nil {
			p.errf("cut: %s: %s\n", op, errText(err))
			return 1
		}
		for _, l := range lines(data) {
			var parts []string
			if chars {
				for _, r := range l {
					parts = append(parts, string(r))
				}
			} else {
				if !strings.Contains(l, delim) {
					if !has(fl, "s") {
						fmt.Fprintln(p.stdout, l)
					}
					continue
				}
				parts = strings.Split(l, delim)
			}
			var sel []string
			for i, part := range parts {
				if inRanges(ranges, i+1) {
					sel = append(sel, part)
				}
			}
			sep := delim
			if chars {
				sep = ""
			}
			fmt.Fprintln(p.stdout, strings.Join(sel, sep))
		}
	}
	return 0
}

// parseList reads a cut list such as 1,3-5,7-.
func parseList(s string) ([][2]int, error) {
	if s == "" {
		return nil, fmt.Errorf("empty list")
	}
	var out [][2]int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, b := 1, 1<<30
		var err error
		if lo != "" {
			if a, err = strconv.Atoi(lo); err != nil || a < 1 {
				return nil, fmt.Errorf("bad list")
			}
		}
		if !isRange {
			b = a
		} else if hi != "" {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("bad list")
			}
		}
		out = append(out, [2]int{a, b})
	}
	return out, nil
}

func inRanges(r [][2]int, n int) bool {
	for _, x := range r {
		if n >= x[0] && n <= x[1] {
			return true
		}
	}
	return false
}

func (p *proc) getprop() int {
	args := p.args[1:]
	if len(args) == 0 {
		props := p.d.world.Props()
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		w := bufio.NewWriter(p.stdout)
		for _, k := range keys {
			fmt.Fprintf(w, "[%s]: [%s]\n", k, props[k])
		}
		w.Flush()
		return 0
	}
	v, ok := p.d.world.Prop(args[0])
	if !ok && len(args) > 1 {
		v = args[1]
	}
	fmt.Fprintln(p.stdout, v)
	return 0
}

// kill signals a simulated process. The shell user may signal none of them
// (they belong to app UIDs); a missing pid says so.
func (p *proc) kill(args []string) int {
	st := 0
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		pid, err := strconv.Atoi(a)
		if err != nil || pid <= 0 {
			p.errf("kill: %s: Invalid argument\n", a)
			st = 1
			continue
		}
		if _, err := p.v.stat("/proc/" + itoa(pid)); err != nil {
			p.errf("kill: %s: No such process\n", a)
			st = 1
			continue
		}
		if k, ok := any(p.d.world).(interface{ Kill(pid int) error }); ok && p.d.cfg.Root {
			if err := k.Kill(pid); err != nil {
				p.errf("kill: %s: %v\n", a, err)
				st = 1
			}
			continue
		}
		p.errf("kill: %s: Operation not permitted\n", a)
		st = 1
	}
	return st
}

// parseFlags is a small getopt: boolFlags take no value, valFlags take one
// (attached, -n5, or as the next word). A word "--" ends the flags; "-" is
// an operand. Flags may follow operands, as toybox allows.
func parseFlags(args []string, boolFlags, valFlags string) (map[string]string, []string, error) {
	fl := map[string]string{}
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
			c := string(a[j])
			switch {
			case strings.Contains(valFlags, c):
				v := a[j+1:]
				if v == "" {
					if i+1 >= len(args) {
						return nil, nil, fmt.Errorf("Missing argument to -%s", c)
					}
					i++
					v = args[i]
				}
				fl[c] = v
				j = len(a)
			case strings.Contains(boolFlags, c):
				fl[c] = "1"
			default:
				return nil, nil, fmt.Errorf("Unknown option '%s'", c)
			}
		}
	}
	return fl, ops, nil
}

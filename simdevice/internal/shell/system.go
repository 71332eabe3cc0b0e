package shell

import (
	"bufio"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"mvdan.cc/sh/v3/expand"
)

func (p *proc) id() int {
	fl, ops, err := parseFlags(p.args[1:], "ugGnrZ", "")
	if err != nil {
		return p.usage("id", err)
	}
	if len(ops) > 0 && ops[0] != "shell" && ops[0] != "root" {
		p.errf("id: %s: no such user\n", ops[0])
		return 1
	}
	root := p.s.cfg.Root
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
		fmt.Fprintln(p.stdout, p.s.cfg.Online)
	case "_NPROCESSORS_CONF", "NPROCESSORS_CONF":
		fmt.Fprintln(p.stdout, p.s.cfg.Cores)
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
	c := p.s.cfg
	fields := []struct{ flag, val string }{
		{"s", "Linux"}, {"n", c.Hostname}, {"r", c.Kernel}, {"v", c.KernelBuild}, {"m", "aarch64"}, {"o", "Toybox"},
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
		if slices.Contains(p.s.cfg.Commands, a) {
			fmt.Fprintf(p.stdout, "/system/bin/%s\n", a)
		} else {
			st = 1
		}
	}
	return st
}

func (p *proc) getprop() int {
	args := p.args[1:]
	props := p.s.cfg.Props()
	if len(args) == 0 {
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
	v, ok := props[args[0]]
	if !ok && len(args) > 1 {
		v = args[1]
	}
	fmt.Fprintln(p.stdout, v)
	return 0
}

// kill signals a simulated process. The device's own processes of the
// shell user (Config.Kill) take signals; the others take none, so
// signalling one that exists fails as it does for the shell user on a
// phone (they belong to app UIDs), even as root; a missing pid says so.
func (p *proc) kill(args []string) int {
	st := 0
	sig := 15
	if len(args) > 1 && args[0] == "-s" {
		args = append([]string{"-" + args[1]}, args[2:]...)
	}
	for i, a := range args {
		if strings.HasPrefix(a, "-") {
			if i == 0 {
				if n, ok := signalNumber(a[1:]); ok {
					sig = n
				} else if a != "--" {
					p.errf("kill: Unknown signal '%s'\n", a[1:])
					return 1
				}
			}
			continue
		}
		pid, err := strconv.Atoi(a)
		if err != nil || pid <= 0 {
			p.errf("kill: %s: Invalid argument\n", a)
			st = 1
			continue
		}
		if k := p.s.cfg.Kill; k != nil {
			if handled, err := k(pid, sig); handled {
				switch {
				case errors.Is(err, syscall.ESRCH):
					p.errf("kill: %s: No such process\n", a)
					st = 1
				case err != nil:
					p.errf("kill: %s: Operation not permitted\n", a)
					st = 1
				}
				continue
			}
		}
		if _, err := p.v.Stat("/proc/" + strconv.Itoa(pid)); err != nil {
			p.errf("kill: %s: No such process\n", a)
			st = 1
			continue
		}
		p.errf("kill: %s: Operation not permitted\n", a)
		st = 1
	}
	return st
}

// signalNumber reads kill's signal option: "TERM", "SIGTERM", "15", "0".
func signalNumber(s string) (int, bool) {
	if n, err := strconv.Atoi(s); err == nil && n >= 0 && n < 65 {
		return n, true
	}
	switch strings.TrimPrefix(strings.ToUpper(s), "SIG") {
	case "HUP":
		return 1, true
	case "INT":
		return 2, true
	case "KILL":
		return 9, true
	case "TERM":
		return 15, true
	}
	return 0, false
}

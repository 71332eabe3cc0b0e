package simdevice

import (
	"fmt"
	"slices"
)

// services are the binder services `cmd -l` lists and `cmd` can reach.
var services = []string{"activity", "display", "gfxinfo", "meminfo", "package", "settings", "SurfaceFlinger", "window"}

// world runs the commands whose output is the World's: services and the
// app's processes.
func (p *proc) world(name string) int {
	w := p.d.world
	args := p.args[1:]
	switch name {
	case "dumpsys":
		return w.Dumpsys(args, p.stdout, p.stderr)
	case "pm":
		return w.Pm(args, p.stdout, p.stderr)
	case "am":
		return w.Am(p.ctx, args, p.stdout, p.stderr)
	case "monkey":
		return w.Monkey(p.ctx, args, p.stdout, p.stderr)
	case "input":
		return w.Input(args, p.stdout, p.stderr)
	case "pidof":
		return w.Pidof(args, p.stdout, p.stderr)
	case "ps":
		return w.Ps(args, p.stdout, p.stderr)
	case "logcat":
		return w.Logcat(p.ctx, args, p.stdout, p.stderr)
	case "service":
		return p.service(args)
	case "settings":
		return p.settings(args)
	case "cmd":
		return p.cmd(args)
	}
	p.errf("%s: %s: inaccessible or not found\n", shName, name)
	return 127
}

// cmd reaches a service the way `cmd SERVICE ARGS...` does; package and
// activity are the pm and am shells.
func (p *proc) cmd(args []string) int {
	if len(args) == 0 {
		p.errf("cmd: No service specified; use -l to list all running services. Use -w to wait for a service.\n")
		return 20
	}
	switch args[0] {
	case "-l":
		fmt.Fprintln(p.stdout, "Currently running services:")
		for _, s := range services {
			fmt.Fprintf(p.stdout, "  %s\n", s)
		}
		return 0
	case "package":
		return p.d.world.Pm(args[1:], p.stdout, p.stderr)
	case "activity":
		return p.d.world.Am(p.ctx, args[1:], p.stdout, p.stderr)
	case "settings":
		return p.settings(args[1:])
	}
	if slices.Contains(services, args[0]) {
		// The service exists but its shell command is not simulated.
		p.errf("cmd: %s: no shell command implementation.\n", args[0])
		return 255
	}
	p.errf("cmd: Can't find service: %s\n", args[0])
	return 20
}

// service implements `service call`, `service check` and `service list`.
func (p *proc) service(args []string) int {
	if len(args) == 0 {
		p.errf("Usage: service [-h|-?]\n       service list\n       service check SERVICE\n       service call SERVICE CODE [i32 N | i64 N | f N | d N | s16 STR | null | fd f | nfd n | afd f ] ...\n")
		return 0
	}
	switch args[0] {
	case "call":
		return p.d.world.ServiceCall(args[1:], p.stdout, p.stderr)
	case "check":
		for _, s := range args[1:] {
			state := "not found"
			if slices.Contains(services, s) {
				state = "found"
			}
			fmt.Fprintf(p.stdout, "Service %s: %s\n", s, state)
		}
		return 0
	case "list":
		fmt.Fprintf(p.stdout, "Found %d services:\n", len(services))
		for i, s := range services {
			fmt.Fprintf(p.stdout, "%d\t%s: []\n", i, s)
		}
		return 0
	}
	p.errf("service: Unknown command %s\n", args[0])
	return 1
}

// settings answers `settings get NAMESPACE KEY` from the World's optional
// settings table (null when it has none), as the settings provider does for
// an unset key. Writes need a permission the shell user lacks on the
// simulated build.
func (p *proc) settings(args []string) int {
	if len(args) >= 3 && args[0] == "get" {
		ns := args[1]
		if ns != "system" && ns != "secure" && ns != "global" {
			p.errf("Invalid namespace '%s'\n", ns)
			return 255
		}
		v := "null"
		if s, ok := any(p.d.world).(interface {
			Setting(ns, key string) (string, bool)
		}); ok {
			if got, ok := s.Setting(ns, args[2]); ok {
				v = got
			}
		}
		fmt.Fprintln(p.stdout, v)
		return 0
	}
	if len(args) > 0 && (args[0] == "put" || args[0] == "delete") {
		p.errf("Security exception: Permission denial: writing to settings requires:android.permission.WRITE_SECURE_SETTINGS\n")
		return 255
	}
	p.errf("usage:  settings [--user <USER_ID> | current] get namespace key\n")
	return 255
}

package simdevice

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/perfgate/perfgate/simdevice/internal/shell"
)

// services are the binder services `cmd -l` lists and `cmd` can reach.
var services = []string{"activity", "display", "dropbox", "gfxinfo", "meminfo", "package", "settings", "SurfaceFlinger", "window"}

// programs are the device's own programs the shell runs: the services'
// command-line tools and the tools that list the World's processes.
func programs(w *World) map[string]shell.Command {
	plain := func(f func(args []string, stdout, stderr io.Writer) int) shell.Command {
		return func(_ context.Context, args []string, stdout, stderr io.Writer) int { return f(args, stdout, stderr) }
	}
	return map[string]shell.Command{
		"dumpsys":  plain(w.Dumpsys),
		"pm":       plain(w.Pm),
		"am":       w.Am,
		"monkey":   w.Monkey,
		"input":    plain(w.Input),
		"pidof":    plain(w.Pidof),
		"ps":       plain(w.Ps),
		"logcat":   w.Logcat,
		"service":  plain(w.service),
		"settings": plain(settings),
		"cmd":      w.cmd,
		"setprop":  plain(w.Setprop),
		// simpleperf is on /system/bin from Android 9 (API 28), as is
		// every API the device simulates.
		"simpleperf": w.Simpleperf,
		"pkill":      plain(w.Pkill),
	}
}

// cmd reaches a service the way `cmd SERVICE ARGS...` does; package and
// activity are the pm and am shells.
func (w *World) cmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintf(stderr, "cmd: No service specified; use -l to list all running services. Use -w to wait for a service.\n")
		return 20
	}
	switch args[0] {
	case "-l":
		fmt.Fprintln(stdout, "Currently running services:")
		for _, s := range services {
			fmt.Fprintf(stdout, "  %s\n", s)
		}
		return 0
	case "package":
		if len(args) > 1 && args[1] == "compile" {
			return w.pmCompile(ctx, args[2:], stdout, stderr)
		}
		return w.Pm(args[1:], stdout, stderr)
	case "activity":
		return w.Am(ctx, args[1:], stdout, stderr)
	case "settings":
		return settings(args[1:], stdout, stderr)
	}
	if slices.Contains(services, args[0]) {
		// The service exists but its shell command is not simulated.
		fmt.Fprintf(stderr, "cmd: %s: no shell command implementation.\n", args[0])
		return 255
	}
	fmt.Fprintf(stderr, "cmd: Can't find service: %s\n", args[0])
	return 20
}

// service implements `service call`, `service check` and `service list`.
func (w *World) service(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintf(stderr, "Usage: service [-h|-?]\n       service list\n       service check SERVICE\n       service call SERVICE CODE [i32 N | i64 N | f N | d N | s16 STR | null | fd f | nfd n | afd f ] ...\n")
		return 0
	}
	switch args[0] {
	case "call":
		return w.ServiceCall(args[1:], stdout, stderr)
	case "check":
		for _, s := range args[1:] {
			state := "not found"
			if slices.Contains(services, s) {
				state = "found"
			}
			fmt.Fprintf(stdout, "Service %s: %s\n", s, state)
		}
		return 0
	case "list":
		fmt.Fprintf(stdout, "Found %d services:\n", len(services))
		for i, s := range services {
			fmt.Fprintf(stdout, "%d\t%s: []\n", i, s)
		}
		return 0
	}
	fmt.Fprintf(stderr, "service: Unknown command %s\n", args[0])
	return 1
}

// settings answers `settings get NAMESPACE KEY` with null, as the settings
// provider does for an unset key: the simulated build sets none. Writes
// need a permission the shell user lacks on the simulated build.
func settings(args []string, stdout, stderr io.Writer) int {
	if len(args) >= 3 && args[0] == "get" {
		ns := args[1]
		if ns != "system" && ns != "secure" && ns != "global" {
			fmt.Fprintf(stderr, "Invalid namespace '%s'\n", ns)
			return 255
		}
		fmt.Fprintln(stdout, "null")
		return 0
	}
	if len(args) > 0 && (args[0] == "put" || args[0] == "delete") {
		fmt.Fprintf(stderr, "Security exception: Permission denial: writing to settings requires:android.permission.WRITE_SECURE_SETTINGS\n")
		return 255
	}
	fmt.Fprintf(stderr, "usage:  settings [--user <USER_ID> | current] get namespace key\n")
	return 255
}

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/devicepool"
	"github.com/perfgate/perfgate/simlab"
)

// labFlags are the simdevice flags a lab goes with; the others describe one
// phone.
var labFlags = []string{"count", "lab", "connect"}

// runLab serves a lab of simulated phones until interrupted.
func runLab(count int, file string, connect bool, set map[string]bool, stdout io.Writer) error {
	for name := range set {
		if !slices.Contains(labFlags, name) {
			return fmt.Errorf("simdevice: --%s describes one phone; a lab file says it per phone", name)
		}
	}
	var lab simlab.Lab
	switch {
	case count != 0 && file != "":
		return errors.New("simdevice: --count and --lab: give one")
	case file != "":
		var err error
		if lab, err = simlab.Read(file); err != nil {
			return fmt.Errorf("simdevice: --lab: %w", err)
		}
	case count < 0 || count > 64:
		return fmt.Errorf("simdevice: --count %d: want 1 to 64", count)
	default:
		lab = simlab.Spread(count)
	}
	// The stock adb server the "adb" phones join: the user's.
	addr, err := adbx.EnvServer()
	if err != nil {
		return fmt.Errorf("simdevice: %w", err)
	}
	opt := simlab.Options{ADB: addr, Connect: adbConnect}
	if !connect {
		// The user runs adb connect; the server will list the phone under
		// the address it joined.
		opt.Connect = func(addr string) (string, error) { return addr, nil }
	}
	r, err := simlab.Serve(lab, opt)
	if err != nil {
		return fmt.Errorf("simdevice: %w", err)
	}
	defer r.Close()

	ctx, stop := interruptContext()
	defer stop()
	fmt.Fprintf(stdout, "perfgate simdevice: a lab of %d phones\n", len(r.Phones))
	var join []string
	for _, p := range r.Phones {
		where := "adb server " + p.Server
		if p.Config.Server == simlab.ServerADB {
			where = "adbd " + p.Serial
			if !connect {
				join = append(join, p.Serial)
			}
		}
		fmt.Fprintf(stdout, "  %s: %s, API %d, %s, speed %g, %s on %s\n", p.Dev.Serial(), p.Device.Model, p.Dev.Config().API,
			hz(p.Dev.World().RefreshPeriod()), p.Speed, p.Device.Workload.Name, where)
	}
	if len(join) > 0 {
		fmt.Fprintln(stdout, "join the adbd phones to your adb server with:")
		for _, a := range join {
			fmt.Fprintf(stdout, "\tadb connect %s\n", a)
		}
	}
	fmt.Fprintf(stdout, "point a device pool at it with:\n\texport %s=%s\n", devicepool.EnvServers, strings.Join(r.Servers(), ","))
	fmt.Fprintln(stdout, "stop with Ctrl-C")
	<-ctx.Done()
	fmt.Fprintln(stdout, "perfgate simdevice: stopping")
	if connect {
		for _, p := range r.Phones {
			if p.Config.Server == simlab.ServerADB {
				_ = adbRun("disconnect", p.Serial)
			}
		}
	}
	if err := r.Close(); err != nil {
		return fmt.Errorf("simdevice: %w", err)
	}
	return nil
}

// hz formats a refresh period as a rate.
func hz(period time.Duration) string {
	if period <= 0 {
		return "? Hz"
	}
	return fmt.Sprintf("%.0f Hz", float64(time.Second)/float64(period))
}

// adbConnect joins addr to the user's adb server with the stock adb
// binary and returns the serial the server lists it under.
func adbConnect(addr string) (string, error) {
	if err := adbRun("connect", addr); err != nil {
		return "", err
	}
	return addr, adbRun("-s", addr, "wait-for-device")
}

// adbRun runs the stock adb binary with the user's environment, bounded.
func adbRun(args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "adb", args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("adb %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(out.String()))
	}
	if s := out.String(); strings.Contains(s, "failed") || strings.Contains(s, "cannot") {
		return fmt.Errorf("adb %s: %s", strings.Join(args, " "), strings.TrimSpace(s))
	}
	return nil
}

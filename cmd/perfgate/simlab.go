package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

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
	opt := simlab.Options{ADB: addr, Connect: simlab.ConnectStock}
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
		if p.Config.Server == simlab.ServerADB && !connect {
			join = append(join, p.Serial)
		}
		fmt.Fprintf(stdout, "  %s\n", p)
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
				_ = simlab.DisconnectStock(p.Serial)
			}
		}
	}
	if err := r.Close(); err != nil {
		return fmt.Errorf("simdevice: %w", err)
	}
	return nil
}

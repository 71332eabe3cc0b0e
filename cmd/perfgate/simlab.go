package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

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
	lab, err := simlab.LabOf(count, file)
	if err != nil {
		return fmt.Errorf("simdevice: %w", err)
	}
	r, err := simlab.ServeStock(lab, connect)
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
		r.DisconnectStock()
	}
	if err := r.Close(); err != nil {
		return fmt.Errorf("simdevice: %w", err)
	}
	return nil
}

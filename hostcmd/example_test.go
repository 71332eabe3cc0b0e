//go:build unix

package hostcmd_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/hostcmd"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/simdevice"
)

// Run a script twice around a session on the simulated phone: each run is
// a step, and the script knows which phone to drive.
func ExampleRun() {
	wl, _ := simdevice.Preset("smooth-scroll")
	sim, _ := simdevice.New(simdevice.Config{Workload: wl})
	defer sim.Close()
	srv := adbtest.NewServer(sim)
	defer srv.Close()
	dir, _ := os.MkdirTemp("", "hostcmd-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	dev := srv.Open("")
	s, err := perftest.NewSession(ctx, dev, perftest.Config{Name: "flow", ResultsDir: dir, Package: wl.Package, WaitForApp: true})
	if err != nil {
		log.Fatal(err)
	}
	its := hostcmd.Run(ctx, s, dev, []string{"sh", "-c", `echo "driving $ANDROID_SERIAL: $PERFGATE_STEP"`},
		hostcmd.Config{Package: wl.Package, Iterations: 2, Stdout: os.Stdout})
	r := s.Stop()
	for i, it := range its {
		fmt.Printf("%s: exit %d, step %s in the Result\n", it.Step, it.Exit, r.Steps[i].Name)
	}
	// Output:
	// driving perfgate-sim: iteration
	// driving perfgate-sim: iteration#2
	// iteration: exit 0, step iteration in the Result
	// iteration#2: exit 0, step iteration#2 in the Result
}

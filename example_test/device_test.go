package example_test

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/android/dumpsys"
	"github.com/perfgate/perfgate/simdevice"
)

// openDevice gives the examples a device and the package of the app to
// measure: a real phone when ANDROID_SERIAL is set (the app named by
// PERFGATE_APP), otherwise a simulated phone running the given workload
// preset, served by a pure-Go adb server inside the test. A test on a
// simulated phone runs in parallel with the others.
//
// PERFGATE_SIM_WORKLOAD names another preset (or a workload JSON file) for
// the simulated phone to run instead: a worse app, to see a test fail.
func openDevice(t *testing.T, preset string) (*adbx.Device, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if serial := os.Getenv("ANDROID_SERIAL"); serial != "" {
		app := os.Getenv("PERFGATE_APP")
		if app == "" {
			t.Skip("ANDROID_SERIAL is set but PERFGATE_APP (the package to measure) is not")
		}
		dev, err := adbx.Open(ctx, adbx.Options{Serial: serial})
		if err != nil {
			t.Fatal(err)
		}
		return dev, app
	}
	// A simulated phone is this test's own, so the examples run at once;
	// on a real phone, which they share, they take turns.
	t.Parallel()
	if w := os.Getenv(EnvSimWorkload); w != "" {
		preset = w
	}
	wl, err := simdevice.Preset(preset)
	if err != nil && strings.HasSuffix(preset, ".json") {
		wl, err = simdevice.LoadWorkload(preset)
	}
	if err != nil {
		t.Fatal(err)
	}
	sim, err := simdevice.New(simdevice.Config{Workload: wl})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	srv := adbtest.NewServer(sim)
	t.Cleanup(srv.Close)
	return srv.Open(""), wl.Package
}

// EnvSimWorkload names the variable that swaps the simulated app of the
// examples for another.
const EnvSimWorkload = "PERFGATE_SIM_WORKLOAD"

// launch starts the app cold and waits until it has drawn its first frame.
func launch(t *testing.T, dev *adbx.Device, app string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := dumpsys.ValidatePackage(app); err != nil {
		t.Fatal(err)
	}
	res, err := dev.Shell(ctx, "am force-stop "+app+"; monkey -p "+app+" -c android.intent.category.LAUNCHER 1")
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("launch %s: %v %s", app, err, res.Stderr)
	}
	// The new process counts its frames from zero.
	drawn := regexp.MustCompile(`Total frames rendered: [1-9]`)
	for {
		res, err := dev.Shell(ctx, "dumpsys gfxinfo "+app)
		if err == nil && drawn.Match(res.Stdout) {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("launch %s: no frame drawn in 30 s (last dumpsys gfxinfo: %v %.200s)", app, err, res.Stdout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

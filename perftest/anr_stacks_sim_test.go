package perftest_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/simdevice"
)

// Two ANRs of one process, each in work of its own: the phone keeps a
// dump per ANR, and each ANR of the step gets the main-thread stack of
// its own dump, the truth's stack of the work that froze it.
func TestCausesTwoANRsOwnStacks(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		export := simdevice.Cause{Name: "export", Phase: "wait", Handler: "android.os.Handler", Callback: pkg + ".Exporter$1",
			Stack: []string{"android.os.Looper.loop", "android.os.Handler.dispatchMessage", "android.os.Handler.handleCallback",
				pkg + ".Exporter$1.run", pkg + ".Exporter.writeAll", "java.io.FileOutputStream.write", "libcore.io.IoBridge.write"}}
		dev, d := causeDevice(t, 33, 60, simdevice.Quirks{}, func(wl *simdevice.Workload) {
			wl.Causes = append(wl.Causes, export)
			for i := range wl.Phases {
				if wl.Phases[i].Name == "save" {
					wl.Phases[i].DurationMs = 20_000
					wl.Phases[i].Janks = append(wl.Phases[i].Janks, simdevice.Jank{At: []int{40}, Ms: 6000, Cause: "export", ANR: true})
				}
			}
		})
		s := perftest.Start(t, d, perftest.WithConfig(perftest.Config{Package: pkg, Name: t.Name(), ResultsDir: t.TempDir(), WaitForApp: true}))
		launchCold(t, s, d, dev)
		s.Step("save", func() {
			tapSave(t, d)
			waitCauseFrames(t, dev, map[string]int{"commit": 1, "export": 1})
		})
		r := s.Stop()
		st := r.Step("save")
		// The truth's ANRs, in time order: the causes of the ANR frames.
		wl := dev.World().Workload()
		var truth [][]string
		for _, f := range dev.World().TruthFrames() {
			if f.Cause == "commit" || f.Cause == "export" {
				ci := slices.IndexFunc(wl.Causes, func(c simdevice.Cause) bool { return c.Name == f.Cause })
				truth = append(truth, wl.Causes[ci].Stack)
			}
		}
		anrs := st.ANRs()
		if len(anrs) != 2 || len(truth) != 2 || anrs[0].PID != anrs[1].PID {
			t.Fatalf("ANRs %+v, truth %q (not measured: %v)", anrs, truth, st.Causes.NotMeasured)
		}
		for i, a := range anrs {
			// The dump prints the stack innermost first, each frame with
			// its file and line.
			var got []string
			for _, f := range slices.Backward(a.MainStack) {
				m, _, _ := strings.Cut(f, "(")
				got = append(got, m)
			}
			if !slices.Equal(got, truth[i]) {
				t.Errorf("ANR %d at %.3f s: main stack %q, want the truth's %q", i, a.AtS, got, truth[i])
			}
		}
		for _, n := range r.Notes {
			if strings.Contains(n, "anrs:") {
				t.Errorf("note %q", n)
			}
		}
	})
}

// tapSave taps janky-feed's "Save" button, which freezes the app.
func tapSave(t *testing.T, d *adbx.Device) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if r, err := d.Shell(ctx, "input tap 880 2270"); err != nil || r.ExitCode != 0 {
		t.Fatalf("tap: %v %+v", err, r)
	}
}

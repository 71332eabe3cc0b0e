package perftest_test

import (
	"testing"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/causes"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/simdevice"
)

// The profiler's sample report is read as it is printed, not held whole:
// a report longer than the device's output bound (adbx Options.MaxOutput,
// 64 MiB by default, which 10 s of a busy main thread passes on a phone)
// still gives the step its stacks. Here the bound is 32 KiB, a few dozen
// samples' worth, and the report of the step holds hundreds.
func TestStacksPastOutputBound(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		wl, err := simdevice.Preset("janky-feed")
		if err != nil {
			t.Fatal(err)
		}
		dev, err := simdevice.New(simdevice.Config{API: 33, RefreshHz: 60, Workload: wl, Serial: "sim-bound"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { dev.Close() })
		srv := adbtest.NewPipeServer(dev)
		t.Cleanup(srv.Close)
		const bound = 32 << 10
		d, err := adbx.Open(t.Context(), adbx.Options{Server: srv.Addr, Dial: srv.Dial, Serial: dev.Serial(), MaxOutput: bound})
		if err != nil {
			t.Fatal(err)
		}
		s := perftest.Start(t, d, perftest.WithConfig(perftest.Config{Package: pkg, Name: t.Name(), ResultsDir: t.TempDir(), WaitForApp: true}))
		launchCold(t, s, d, dev)
		s.Step("scroll", func() { waitCauseFrames(t, dev, map[string]int{"bind": 4}) })
		r := s.Stop()
		c := r.Step("scroll").Causes
		if c == nil {
			t.Fatal("no causes")
		}
		if why := c.NotMeasured[causes.SourceStacks]; why != "" {
			t.Fatalf("stacks not measured: %s", why)
		}
		// report-sample prints each sample's time, thread and frames: well
		// over 100 bytes a sample.
		if r.Causes.Samples*100 <= bound {
			t.Errorf("%d samples: a report that fits in the %d-byte bound proves nothing", r.Causes.Samples, bound)
		}
		if len(c.TopStacks) == 0 {
			t.Errorf("%d samples and no top stacks", r.Causes.Samples)
		}
		for _, n := range r.Notes {
			t.Log(n)
		}
	})
}

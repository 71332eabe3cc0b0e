package perftest_test

import (
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/simdevice"
)

// A phone whose `dumpsys meminfo` prints 4 GiB (simdevice's HugeOutputs):
// every read of it passes the device's output bound and is stopped, so the
// step's PSS is not measured, with the bound as the reason, while the
// samples the cheap lane took (frames, CPU, RSS) are kept and measured.
func TestMemoryOutputTooLargeOnDevice(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		wl, err := simdevice.Preset("smooth-scroll")
		if err != nil {
			t.Fatal(err)
		}
		dev, err := simdevice.New(simdevice.Config{API: 33, RefreshHz: 60, Workload: simtest.QuickStart(wl),
			Quirks: simdevice.Quirks{HugeOutputs: []simdevice.HugeOutput{{Command: "dumpsys meminfo", Bytes: 4 << 30}}}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { dev.Close() })
		srv := adbtest.NewPipeServer(dev)
		t.Cleanup(srv.Close)
		// A bound of 1 MiB, so each read stops soon (the default 64 MiB would
		// move 64 MiB a read through this test's own server).
		d, err := adbx.Open(t.Context(), adbx.Options{Server: srv.Addr, Dial: srv.Dial, Serial: dev.Serial(), MaxOutput: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		simtest.Launch(t, d, dev)

		s := perftest.Start(t, d, perftest.App(pkg), perftest.WithResultsDir(t.TempDir()), perftest.WithSlowInterval(200*time.Millisecond))
		s.Begin("scroll")
		time.Sleep(1500 * time.Millisecond)
		s.End()
		r := s.Stop()

		st := r.Step("scroll")
		if st == nil {
			t.Fatal("no step scroll")
		}
		for _, n := range []metrics.Name{"pss_max", "pss_growth"} {
			why := st.NotMeasured[n]
			if !strings.Contains(why, "dumpsys meminfo "+pkg) || !strings.Contains(why, "printed more than 1048576 bytes") {
				t.Errorf("%s not measured because %q; want the bound passed by dumpsys meminfo", n, why)
			}
		}
		if len(r.Memory) != 0 {
			t.Errorf("%d memory samples from reads that were all stopped", len(r.Memory))
		}
		// The cheap lane's samples are all kept.
		if len(r.Samples) < 3 || st.Frames().Frames == 0 || st.CPU().Mean <= 0 || st.Memory().RSSMaxKB <= 0 {
			t.Errorf("%d samples, %d frames, cpu %v, rss %v: the other metrics should be measured",
				len(r.Samples), st.Frames().Frames, st.CPU().Mean, st.Memory().RSSMaxKB)
		}
		for _, n := range []metrics.Name{"frames", "cpu", "rss_max"} {
			if why, ok := st.NotMeasured[n]; ok {
				t.Errorf("%s not measured: %s", n, why)
			}
		}
	})
}

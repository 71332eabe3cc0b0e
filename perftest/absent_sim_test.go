package perftest_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
)

// Unmeasured is never zero: on a simulated phone with a source switched
// off the way real phones lack it, each metric of that source is absent
// from the step with a reason naming the source and its error, while the
// other sources still match the phone's ground truth.

// simQuirks builds a simulated phone with quirks on and opens it through
// the pure-Go adb server.
func simQuirks(t *testing.T, preset string, api int, q simdevice.Quirks) (*simdevice.Device, *adbx.Device) {
	t.Helper()
	wl, err := simdevice.Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	return simWorkload(t, wl, api, q)
}

// simWorkload is simQuirks for a workload of the test's own.
func simWorkload(t *testing.T, wl *simdevice.Workload, api int, q simdevice.Quirks) (*simdevice.Device, *adbx.Device) {
	t.Helper()
	dev, err := simdevice.New(simdevice.Config{API: api, RefreshHz: 60, Workload: simtest.QuickStart(wl), Quirks: q})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	d, _ := openHost(t, dev, nil)
	launch(t, d, dev)
	return dev, d
}

// ticker counts a session's ticks, so a test waits on ticks rather than
// on the clock.
type ticker chan struct{}

func newTicker() ticker { return make(ticker, 1024) }

func (tk ticker) onTick(result.Live) {
	select {
	case tk <- struct{}{}:
	default:
	}
}

// wait lets n more ticks happen.
func (tk ticker) wait(t *testing.T, n int) {
	t.Helper()
	tk.waitOr(t, n, nil)
}

// waitOr lets n more ticks happen, or fewer when done closes first, and
// reports whether all n did. tickBound bounds a broken test, not the wait.
func (tk ticker) waitOr(t *testing.T, n int, done <-chan struct{}) bool {
	t.Helper()
	for len(tk) > 0 {
		<-tk
	}
	timeout := time.After(tickBound)
	for i := 0; i < n; i++ {
		select {
		case <-tk:
		case <-done:
			return false
		case <-timeout:
			t.Fatalf("only %d of %d ticks in %v", i, n, tickBound)
		}
	}
	return true
}

// tickBound is how long a test waits for its ticks before it calls the
// session broken: a tick the phone answers late takes up to
// Config.TickTimeout (2 s) and still counts, so 15 ticks took over 30 s
// with two suites running at once; a session that gets no tick through
// ends by itself (Config.GiveUpAfter) and closes done first.
const tickBound = 2 * time.Minute

// tickStep records one step named name, n ticks long, in a session on d
// with cfg, whose OnTick must feed tk. It returns the result, and why the
// session ended before the step's ticks were in, "" when it did not: a host
// too busy to get a tick through for GiveUpAfter ends the session as
// unreachable, which a test that needs the ticks tries again. Anything
// else the session reports fails the test.
func tickStep(t *testing.T, d *adbx.Device, cfg perftest.Config, tk ticker, name string, n int) (r *result.Result, early string) {
	t.Helper()
	rt := &recT{}
	s := perftest.Start(rt, d, perftest.WithConfig(cfg))
	if s == nil {
		t.Fatalf("start failed: %s", rt.joined())
	}
	s.Begin(name)
	ticked := tk.waitOr(t, n, s.Done())
	s.End()
	r = s.Stop()
	if !ticked {
		if !errors.Is(s.Err(), perftest.ErrDeviceLost) {
			t.Fatalf("the session ended in step %q: %v (%s)", name, s.Err(), rt.joined())
		}
		return r, fmt.Sprintf("the session ended as unreachable in step %q: %v", name, s.Err())
	}
	if rep := rt.joined(); rep != "" {
		t.Errorf("the session reported: %s", rep)
	}
	return r, ""
}

func quirkConfig(t *testing.T, tk ticker) perftest.Config {
	return perftest.Config{Package: pkg, Name: t.Name(), ResultsDir: t.TempDir(), OnTick: tk.onTick}
}

// scrollWith measures one step named "scroll", n ticks long, of a preset
// on a phone with quirks on; cfg, when set, changes the session's Config.
// It returns the step and the phone's truth at the step's edges. None of
// its callers' quirks fails a whole tick: on the bubble's clock (call it
// in a bubble) a gap fails the test.
func scrollWith(t *testing.T, preset string, api int, q simdevice.Quirks, n int, cfg func(*perftest.Config)) (r *result.Result, st *result.Step, before, after simdevice.TruthTotals) {
	t.Helper()
	r, st, before, after = scrollOnce(t, preset, api, q, n, cfg)
	if len(r.Gaps) > 0 {
		t.Fatalf("a tick failed as a whole on the fake clock: gaps %+v", r.Gaps)
	}
	return r, st, before, after
}

// scrollOnce is one measurement of scrollWith.
func scrollOnce(t *testing.T, preset string, api int, q simdevice.Quirks, n int, cfg func(*perftest.Config)) (r *result.Result, st *result.Step, before, after simdevice.TruthTotals) {
	t.Helper()
	dev, d := simQuirks(t, preset, api, q)
	tk := newTicker()
	c := quirkConfig(t, tk)
	if cfg != nil {
		cfg(&c)
	}
	s := perftest.Start(t, d, perftest.WithConfig(c))
	w := dev.World()
	s.Step("scroll", func() {
		before = w.Truth()
		tk.wait(t, n)
		after = w.Truth()
	})
	r = s.Stop()
	return r, r.Step("scroll"), before, after
}

// absent checks that each named metric is missing from the step's
// Metrics and that its reason holds every one of want.
func absent(t *testing.T, st *result.Step, names []metrics.Name, want ...string) {
	t.Helper()
	for _, n := range names {
		if slices.ContainsFunc(st.Metrics(), func(m metrics.Metric) bool { return m.Name == n }) {
			t.Errorf("%s: %s is in Metrics, want it absent", st.Name, n)
		}
		why := st.NotMeasured[n]
		for _, w := range want {
			if !strings.Contains(why, w) {
				t.Errorf("%s: %s not measured because %q; want it to say %q", st.Name, n, why, w)
			}
		}
	}
}

func metric(t *testing.T, st *result.Step, name metrics.Name) float64 {
	t.Helper()
	for _, m := range st.Metrics() {
		if m.Name == name {
			if why := st.NotMeasured[name]; why != "" {
				t.Errorf("%s: %s measured but also not measured (%q)", st.Name, name, why)
			}
			return m.Value
		}
	}
	t.Errorf("%s: %s not measured (%q)", st.Name, name, st.NotMeasured[name])
	return 0
}

func TestTrafficNotMeasuredOnDevice(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		api  int
		q    simdevice.Quirks
	}{
		// API 33 keeps per-UID counters only in dumpsys netstats; API 28
		// in xt_qtaguid and uid_stat as well.
		{"api33", 33, simdevice.Quirks{MissingFiles: []string{"/proc/net", "/proc/*/net"}, DeniedServices: []string{"netstats"}}},
		{"api28", 28, simdevice.Quirks{MissingFiles: []string{"/proc/net", "/proc/*/net", "/proc/uid_stat"}, DeniedServices: []string{"netstats"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			simtest.Bubble(t, func(t *testing.T) {
				r, st, _, _ := scrollWith(t, "chatty-network", tc.api, tc.q, 10, nil)
				if st.TrafficStats != nil {
					t.Errorf("traffic %+v, want none", *st.TrafficStats)
				}
				absent(t, st, []metrics.Name{"rx", "tx"}, "traffic: /proc/<pid>/net/dev unreadable on every read in the step", "net/dev: No such file or directory")
				absent(t, r.Whole, []metrics.Name{"rx", "tx"}, "/proc/<pid>/net/dev unreadable")
				// The other sources are unaffected.
				if metric(t, st, "cpu") <= 0 || metric(t, st, "pss_max") <= 0 || metric(t, st, "frames") <= 0 {
					t.Errorf("cpu, pss or frames lost: %v", st.NotMeasured)
				}
			})
		})
	}

	// With /proc/net present the device-wide counters stand in, with scope
	// "device": every app's bytes, as the phone's interface counted them.
	t.Run("device scope", func(t *testing.T) {
		t.Parallel()
		simtest.Bubble(t, func(t *testing.T) {
			r, st, before, after := scrollWith(t, "chatty-network", 33, simdevice.Quirks{DeniedServices: []string{"netstats"}}, 15, nil)
			tr := st.Traffic()
			if tr.Scope != "device" || tr.Source != "/proc/<pid>/net/dev" || tr.Clock != "/proc/uptime" || st.NotMeasured["rx"] != "" {
				t.Fatalf("traffic %+v not measured %q, want device scope from /proc/<pid>/net/dev on the /proc/uptime clock", tr, st.NotMeasured["rx"])
			}
			sum := func(m map[int]int64) (n int64) {
				for _, v := range m {
					n += v
				}
				return n
			}
			// As TestCPUMemoryTrafficMatchTruth: the step is bracketed by
			// reads up to a tick outside it, each stamped within half a round
			// trip of the device's read.
			secs := (after.Uptime - before.Uptime).Seconds()
			truthRx := float64(sum(after.RxBytes)-sum(before.RxBytes)) / secs
			truthTx := float64(sum(after.TxBytes)-sum(before.TxBytes)) / secs
			rel := trafficTolerance(r, tr)
			if truthRx <= 0 || !within(tr.RxBytesPerS, truthRx, truthRx*rel) || !within(tr.TxBytesPerS, truthTx, truthTx*rel) {
				t.Errorf("device traffic rx %.0f tx %.0f B/s, truth over the step %.0f / %.0f (±%.1f %%)", tr.RxBytesPerS, tr.TxBytesPerS, truthRx, truthTx, rel*100)
			}
		})
	})
}

func TestMemoryNotMeasuredOnDevice(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		_, st, _, after := scrollWith(t, "chatty-network", 33, simdevice.Quirks{DeniedServices: []string{"meminfo"}}, 15, nil)
		absent(t, st, []metrics.Name{"pss_max", "pss_growth"}, "memory: dumpsys meminfo "+pkg+" unreadable on every read in the step",
			"Permission Denial: can't dump meminfo from from pid=")
		// RSS comes from /proc/<pid>/status and matches the phone (no growth in
		// this preset).
		if got := metric(t, st, "rss_max"); got != float64(after.RSSKiB) {
			t.Errorf("rss_max %v KiB, truth %d", got, after.RSSKiB)
		}
	})
}

func TestDeviceCPUNotMeasuredOnDevice(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		r, st, before, after := scrollWith(t, "smooth-scroll", 33, simdevice.Quirks{MissingFiles: []string{"/proc/stat"}}, 15, nil)
		absent(t, st, []metrics.Name{"cpu_device"}, "device CPU needs /proc/stat", "cat: /proc/stat: No such file or directory")
		absent(t, st, []metrics.Name{"cpu_p90"}, "against wall time")
		// App CPU against wall time × cores, as TestProcStatDenied checks it.
		secs := (after.Uptime - before.Uptime).Seconds()
		truth := float64(after.AppTicks-before.AppTicks) / (100 * secs * float64(r.Device.Cores)) * 100
		if got := metric(t, st, "cpu"); !within(got, truth, 0.5) {
			t.Errorf("app cpu %.2f%%, truth over the step %.2f%%", got, truth)
		}
	})
}

func TestFramesNotMeasuredOnDevice(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		_, st, _, _ := scrollWith(t, "smooth-scroll", 33, simdevice.Quirks{DeniedServices: []string{"gfxinfo"}}, 10,
			func(c *perftest.Config) { c.FrameSource = perftest.SourceGfxInfo })
		absent(t, st, []metrics.Name{"frames", "fps", "jank", "jank_deadline_missed", "jank_perfdog", "jank_chromium", "frame_time_p95", "slow_frames"},
			"frames: dumpsys gfxinfo "+pkg+" framestats unreadable on every read in the step", "Permission Denial: can't dump gfxinfo")
		if metric(t, st, "cpu") <= 0 {
			t.Errorf("cpu lost")
		}
	})
}

// A step in which the app does not run has no app CPU, memory or frames;
// the device's CPU and the app's per-UID traffic (a real 0) are measured.
func TestAppNotRunningInStep(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		// API 28 reads per-UID traffic every tick (xt_qtaguid), so the read
		// just before the stopped step is one taken after the force-stop; on
		// API 33 netstats is read every second and the byte count of a step
		// spans up to a second either side of it (see result.TrafficStats.Intervals).
		dev, d := simQuirks(t, "chatty-network", 28, simdevice.Quirks{})
		tk := newTicker()
		s := perftest.Start(t, d, perftest.WithConfig(quirkConfig(t, tk)))
		w := dev.World()
		// 12 ticks: over the 1 s between meminfo reads, which a step of 10
		// ticks spans only when the host adds time to them.
		s.Step("scroll", func() { tk.wait(t, 12) })
		s.Restarting(func() {
			if res, err := d.Shell(t.Context(), "am force-stop "+pkg); err != nil || res.ExitCode != 0 {
				t.Fatalf("force-stop: %v %+v", err, res)
			}
			// The tick in flight may have started before the stop.
			tk.wait(t, 2)
		})
		if p := w.Truth().Pids; len(p) != 0 {
			t.Fatalf("app still running: %v", p)
		}
		var before, after simdevice.TruthTotals
		s.Step("stopped", func() {
			before = w.Truth()
			tk.wait(t, 10)
			after = w.Truth()
		})
		r := s.Stop()
		if len(r.Crashes) != 0 {
			t.Errorf("crashes %+v", r.Crashes)
		}
		scroll, stopped := r.Step("scroll"), r.Step("stopped")
		for _, n := range []metrics.Name{"frames", "cpu", "cpu_device", "pss_max", "rss_max", "rx"} {
			metric(t, scroll, n)
		}
		notRunning := "the app was not running during the step (pidof " + pkg + " found no process)"
		absent(t, stopped, []metrics.Name{"cpu", "cpu_p90", "cpu_max", "cpu_core"}, "cpu: "+notRunning)
		absent(t, stopped, []metrics.Name{"pss_max", "rss_max"}, "memory: "+notRunning)
		absent(t, stopped, []metrics.Name{"frames", "fps", "jank"}, "frames: "+notRunning)
		truthDev := float64(after.DeviceBusy-before.DeviceBusy) / float64(after.DeviceTotal-before.DeviceTotal) * 100
		if got := metric(t, stopped, "cpu_device"); !within(got, truthDev, 1) {
			t.Errorf("device cpu %.2f%%, truth %.2f%%", got, truthDev)
		}
		// The app's uid sent nothing while it was stopped: a measured 0.
		if rx, truth := metric(t, stopped, "rx"), after.RxBytes[simdevice.PresetUID]-before.RxBytes[simdevice.PresetUID]; rx != 0 || truth != 0 {
			t.Errorf("rx %v B, truth %d", rx, truth)
		}
		if metric(t, stopped, "crashes") != 0 {
			t.Errorf("crashes in the stopped step")
		}
	})
}

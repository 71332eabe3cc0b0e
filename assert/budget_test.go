package assert_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/assert"
	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/result"
)

// Every named check, passing just inside its limit and failing just past
// it, with the exact line.
func TestChecks(t *testing.T) {
	st := scrollStep()
	cr := crashStep()
	cases := []struct {
		name       string
		pass, fail func(assert.TestingT) bool
		line       string
	}{
		{"MaxJank", func(t assert.TestingT) bool { return assert.MaxJank(t, st, 5) }, func(t assert.TestingT) bool { return assert.MaxJank(t, st, 3) },
			"perf budget exceeded: scroll: jank 5 > 3 (deadline missed; frames at 1.84s 2.10s 2.31s 3.02s 3.40s)"},
		{"MinFPS", func(t assert.TestingT) bool { return assert.MinFPS(t, st, 57) }, func(t assert.TestingT) bool { return assert.MinFPS(t, st, 60) },
			"perf budget exceeded: scroll: fps 57.46 < 60 ((n−1)/(t[n−1]−t[0]), gfxinfo)"},
		{"MaxFrameTimeP95", func(t assert.TestingT) bool { return assert.MaxFrameTimeP95(t, st, 18240*time.Microsecond) },
			func(t assert.TestingT) bool { return assert.MaxFrameTimeP95(t, st, 16*time.Millisecond) },
			"perf budget exceeded: scroll: frame_time_p95 18.24ms > 16ms (frame duration, nearest rank)"},
		{"MaxBigJank", func(t assert.TestingT) bool { return assert.MaxBigJank(t, st, 2) }, func(t assert.TestingT) bool { return assert.MaxBigJank(t, st, 1) },
			"perf budget exceeded: scroll: big_jank_perfdog 2 > 1 (PerfDog BigJank; frames at 2.10s 3.40s)"},
		{"MaxStutter", func(t assert.TestingT) bool { return assert.MaxStutter(t, st, 4.12) }, func(t assert.TestingT) bool { return assert.MaxStutter(t, st, 4) },
			"perf budget exceeded: scroll: stutter_perfdog 4.12% > 4% (PerfDog stutter)"},
		{"MaxCPU", func(t assert.TestingT) bool { return assert.MaxCPU(t, st, 12.5) }, func(t assert.TestingT) bool { return assert.MaxCPU(t, st, 10) },
			"perf budget exceeded: scroll: cpu 12.5% > 10% (app share of device, /proc/stat)"},
		{"MaxCPUP90", func(t assert.TestingT) bool { return assert.MaxCPUP90(t, st, 21) }, func(t assert.TestingT) bool { return assert.MaxCPUP90(t, st, 20) },
			"perf budget exceeded: scroll: cpu_p90 20.25% > 20% (app share of device, nearest-rank p90 of ticks, /proc/stat)"},
		{"MaxPSS", func(t assert.TestingT) bool { return assert.MaxPSS(t, st, 152_000) }, func(t assert.TestingT) bool { return assert.MaxPSS(t, st, 150_000) },
			"perf budget exceeded: scroll: pss_max 152000KiB > 150000KiB (dumpsys meminfo TOTAL PSS)"},
		{"MaxMemoryGrowth", func(t assert.TestingT) bool { return assert.MaxMemoryGrowth(t, st, 1000) }, func(t assert.TestingT) bool { return assert.MaxMemoryGrowth(t, st, 500) },
			"perf budget exceeded: scroll: pss_growth 900KiB/min > 500KiB/min (least-squares slope of PSS)"},
		{"MaxTraffic", func(t assert.TestingT) bool { return assert.MaxTraffic(t, st, 5000, 800) }, func(t assert.TestingT) bool { return assert.MaxTraffic(t, st, 4096, 1024) },
			"perf budget exceeded: scroll: rx 5000B > 4096B (/proc/net/xt_qtaguid/stats, scope uid)"},
		{"MaxStartup", func(t assert.TestingT) bool { return assert.MaxStartup(t, st, 650*time.Millisecond) },
			func(t assert.TestingT) bool { return assert.MaxStartup(t, st, 500*time.Millisecond) },
			"perf budget exceeded: scroll: startup_initial 650ms > 500ms (time to initial display, cold start, am start -W TotalTime, median of 1)"},
		{"MaxFullDisplay", func(t assert.TestingT) bool { return assert.MaxFullDisplay(t, st, time.Second) },
			func(t assert.TestingT) bool { return assert.MaxFullDisplay(t, st, 800*time.Millisecond) },
			"perf budget exceeded: scroll: startup_full 900ms > 800ms (time to full display (Fully drawn), cold start, am start -W TotalTime, median of 1)"},
		{"NoCrash", func(t assert.TestingT) bool { return assert.NoCrash(t, st) }, func(t assert.TestingT) bool { return assert.NoCrash(t, cr) },
			"perf budget exceeded: tap: crashes 1 > 0 (app process crashed (Java, native or ANR, by its logcat); pids [4242] → [4300] at 400ms)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ok := &fakeT{}
			if !tc.pass(ok) || len(ok.errs) != 0 {
				t.Errorf("within the budget: returned false or reported %q", ok.errs)
			}
			bad := &fakeT{}
			if tc.fail(bad) {
				t.Errorf("past the budget: returned true")
			}
			if len(bad.errs) != 1 || bad.errs[0] != tc.line {
				t.Errorf("past the budget reported\n%q\nwant\n%q", bad.errs, tc.line)
			}
			if bad.failNow {
				t.Errorf("a budget check called FailNow; it must let the test go on")
			}
			if bad.helpers == 0 {
				t.Errorf("Helper was not called")
			}
			// The same under a T with nothing but Errorf and FailNow.
			min := &minimalT{}
			tc.fail(min)
			if len(min.errs) != 1 || min.errs[0] != tc.line {
				t.Errorf("minimal T got %q", min.errs)
			}
		})
	}
}

// A Result is checked step by step; a step the run lacks, and a metric it
// did not measure, fail with what is missing.
func TestCheckResultAndMissing(t *testing.T) {
	idle := &result.Step{Name: "idle", HostEndNs: 1e9}
	r := run("Pixel 7", "14", scrollStep(), idle)
	f := &fakeT{}
	assert.MaxJank(f, r, 3)
	want := []string{
		"perf budget exceeded: scroll: jank 5 > 3 (deadline missed; frames at 1.84s 2.10s 2.31s 3.02s 3.40s)",
		"perf budget not checked: idle: jank not measured (frames: no frame source; budget jank ≤ 3)",
	}
	if f.text() != want[0]+"\n"+want[1] {
		t.Errorf("got\n%s\nwant\n%s\n%s", f.text(), want[0], want[1])
	}
	f = &fakeT{}
	assert.MinFPS(f, r.Step("feed"), 50)
	if want := `perf budget exceeded: feed: step not measured (the run has no step "feed")`; f.text() != want {
		t.Errorf("got %q, want %q", f.text(), want)
	}
	f = &fakeT{}
	assert.MaxJank(f, &result.Result{}, 3)
	if want := "perf budget exceeded: nothing measured (the run has no steps)"; f.text() != want {
		t.Errorf("empty run: got %q", f.text())
	}
}

// Many limits in one call report every broken one and go on.
func TestCheckReportsEveryBrokenBudget(t *testing.T) {
	f := &fakeT{}
	ok := assert.Check(f, scrollStep(),
		budget.Limit{Metric: "jank", Value: 1}, budget.Limit{Metric: "fps", Value: 50, Min: true}, budget.Limit{Metric: "tx", Value: 100})
	if ok || len(f.errs) != 2 {
		t.Fatalf("got %v %q, want 2 lines (jank, tx)", ok, f.errs)
	}
	if f.errs[1] != "perf budget exceeded: scroll: tx 800B > 100B (/proc/net/xt_qtaguid/stats, scope uid)" {
		t.Errorf("tx line %q", f.errs[1])
	}
}

// The evidence list is capped so a line stays a line.
func TestEvidenceCapped(t *testing.T) {
	st := scrollStep()
	st.FrameStats.Jank = 12
	st.JankAtS = []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	f := &fakeT{}
	assert.MaxJank(f, st, 3)
	want := "perf budget exceeded: scroll: jank 12 > 3 (deadline missed; frames at 1.00s 2.00s 3.00s 4.00s 5.00s 6.00s 7.00s 8.00s 9.00s 10.00s …)"
	if f.text() != want {
		t.Errorf("got %q", f.text())
	}
}

// A metric the step could not measure fails its budget as not checked,
// with the step's reason; one it measured as 0 is checked like any value.
func TestBudgetOnUnmeasuredMetric(t *testing.T) {
	why := `traffic: /proc/<pid>/net/dev unreadable on every read in the step (12 failed; last: exit 1: "cat: /proc/4242/net/dev: No such file or directory")`
	st := scrollStep()
	st.TrafficStats = nil
	st.NotMeasured = map[metrics.Name]string{metrics.Rx: why, metrics.Tx: why}
	f := &fakeT{}
	if assert.MaxTraffic(f, st, 4096, 1024) {
		t.Error("a traffic budget on unmeasured traffic passed")
	}
	want := []string{
		"perf budget not checked: scroll: rx not measured (" + why + "; budget rx ≤ 4096B)",
		"perf budget not checked: scroll: tx not measured (" + why + "; budget tx ≤ 1024B)",
	}
	if f.text() != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", f.text(), strings.Join(want, "\n"))
	}
	// The same through a budget file.
	p := filepath.Join(t.TempDir(), "net.budget.json")
	if err := os.WriteFile(p, []byte(`{"schema": "perfgate.budget/v1", "steps": {"scroll": {"rx": {"max": 4096, "unit": "B"}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	f = &fakeT{}
	assert.Budget(f, run("Pixel 7", "14", st), p)
	if len(f.errs) == 0 || f.errs[0] != want[0] {
		t.Errorf("budget file: %q, want first %q", f.errs, want[0])
	}
	// A measured 0 is a value: it meets a budget of 0 bytes.
	zero := scrollStep()
	zero.TrafficStats.RxBytes, zero.TrafficStats.TxBytes = 0, 0
	f = &fakeT{}
	if !assert.MaxTraffic(f, zero, 0, 0) || len(f.errs) != 0 {
		t.Errorf("measured 0 bytes against a 0-byte budget: %q", f.errs)
	}
}

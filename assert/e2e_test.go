package assert_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/assert"
	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
)

// measure runs wl on a simulated phone (served by the pure-Go adb server
// over pipes), launches the app, and measures body as a session; it
// returns the Result and the frames the phone truly rendered, which the
// tests compare with. Call it in a bubble (simtest.Bubble): the steps'
// sleeps are then the bubble's, exact however busy the host.
func measure(t *testing.T, rn session) (*result.Result, []simdevice.TruthFrame) {
	t.Helper()
	wl, body := rn.wl, rn.body
	sim, srv := simtest.ServePipe(t, simdevice.Config{Workload: simtest.QuickStart(wl), RefreshHz: 60, Model: "Pixel 7"})
	dev := srv.Open("")
	simtest.Launch(t, dev, sim)
	time.Sleep(rn.lead)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := perftest.NewSession(ctx, dev, perftest.Config{Package: wl.Package, Name: t.Name(), ResultFile: "-", Settle: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	body(s)
	r := s.Stop()
	if r.Error != "" {
		t.Fatalf("session ended early: %s", r.Error)
	}
	return r, sim.World().TruthFrames()
}

// A session for measureAll is: the workload, the steps, and how long the
// app draws after its launch before the session starts. On the bubble's
// clock two runs that start alike are alike to the frame; a lead of its
// own puts each run's ticks elsewhere among the frames, as the host's
// timing would on the wall clock.
type session struct {
	wl   *simdevice.Workload
	body func(s *perftest.Session)
	lead time.Duration
}

// A measured run: the Result and the frames its phone rendered.
type measured struct {
	r     *result.Result
	truth []simdevice.TruthFrame
}

// measureAll measures each run as measure does, each on a phone of its
// own in a bubble of its own, all at once, and returns them in order. A
// test calls it before it sets any variable: the budget checks that read
// PERFGATE_UPDATE come after, one by one.
func measureAll(t *testing.T, runs ...session) []measured {
	t.Helper()
	out := make([]measured, len(runs))
	t.Run("sessions", func(t *testing.T) {
		for i, rn := range runs {
			t.Run(fmt.Sprint(i+1), func(t *testing.T) {
				t.Parallel()
				simtest.Bubble(t, func(t *testing.T) {
					out[i].r, out[i].truth = measure(t, rn)
				})
			})
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	return out
}

// scrollWorkload janks one frame in every `every` for 3 vsyncs.
func scrollWorkload(t *testing.T, every int) *simdevice.Workload {
	wl, err := simdevice.Preset("smooth-scroll")
	if err != nil {
		t.Fatal(err)
	}
	wl.Phases[0].Janks = []simdevice.Jank{{Every: every, Vsyncs: 3}}
	return wl
}

// truthMissed counts the frames the phone rendered late inside st.
func truthMissed(truth []simdevice.TruthFrame, st *result.Step) int {
	n := 0
	for _, f := range truth {
		if f.Missed && f.IntendedVsync >= st.DeviceStartNs && f.IntendedVsync < st.DeviceEndNs && strings.HasPrefix(st.FrameStats.Window, f.Window) {
			n++
		}
	}
	return n
}

// Record budgets from a run with -update, make the app jank more: the
// budget file fails with the expected line; restore the app: it passes.
func TestBudgetEndToEnd(t *testing.T) {
	p := filepath.Join(t.TempDir(), "testdata", "scroll.budget.json")
	scroll := func(s *perftest.Session) { s.Step("scroll", func() { time.Sleep(1500 * time.Millisecond) }) }

	// The app, the app janking more, the app restored.
	m := measureAll(t, session{scrollWorkload(t, 40), scroll, 0}, session{scrollWorkload(t, 6), scroll, 0}, session{scrollWorkload(t, 40), scroll, 0})

	t.Setenv(budget.EnvUpdate, "1")
	r, truth := m[0].r, m[0].truth
	if got, want := r.Step("scroll").Jank(), truthMissed(truth, r.Step("scroll")); got != want || got == 0 {
		t.Fatalf("recorded run: jank %d, the phone missed %d deadlines", got, want)
	}
	f := &fakeT{}
	if !assert.BudgetWith(f, r, p, budget.Headroom{Count: 2}) {
		t.Fatalf("record: %q", f.errs)
	}
	t.Setenv(budget.EnvUpdate, "")
	file, err := budget.ReadBudgetFile(p)
	if err != nil {
		t.Fatal(err)
	}
	limit := int(*file.Steps["scroll"]["jank"].Max)
	if limit != r.Step("scroll").Jank()+2 {
		t.Fatalf("recorded jank limit %d from a run with %d", limit, r.Step("scroll").Jank())
	}

	r, truth = m[1].r, m[1].truth
	f = &fakeT{}
	if assert.Budget(f, r, p) {
		t.Fatal("a run janking every 6th frame passed")
	}
	n := truthMissed(truth, r.Step("scroll"))
	want := fmt.Sprintf("perf budget exceeded: scroll: jank %d > %d (deadline missed; frames at ", n, limit)
	line := ""
	for _, e := range f.errs {
		if strings.HasPrefix(e, "perf budget exceeded: scroll: jank ") {
			line = e
		}
	}
	if !strings.HasPrefix(line, want) {
		t.Fatalf("got %q\nwant a line starting %q", f.errs, want)
	}
	if items := len(regexp.MustCompile(`\d+\.\d\ds`).FindAllString(line, -1)); items != min(n, 10) {
		t.Errorf("line names %d frames, the phone missed %d: %s", items, n, line)
	}

	r = m[2].r
	f = &fakeT{}
	if !assert.Budget(f, r, p) {
		t.Errorf("the restored app failed: %q", f.errs)
	}
}

// Record a baseline of iterations; a 30 % longer frame time is caught, a
// run of the same app is not.
func TestRegressionEndToEnd(t *testing.T) {
	p := filepath.Join(t.TempDir(), "scroll.budget.json")
	app := func(frameMs float64) *simdevice.Workload {
		wl := scrollWorkload(t, 1000)
		wl.Phases[0].FrameMs = frameMs
		return wl
	}
	iterations := func(s *perftest.Session) {
		s.Repeat("scroll", 6, func(int) { time.Sleep(350 * time.Millisecond) })
	}
	gate := budget.Gate{Metrics: []metrics.Name{"frame_time_p50"}}

	// The baseline, a 30 % slower app, the same app again.
	m := measureAll(t, session{app(6), iterations, 0}, session{app(7.8), iterations, 0}, session{app(6), iterations, 0})

	t.Setenv(budget.EnvUpdate, "1")
	r := m[0].r
	if len(r.Steps) != 6 || r.Steps[5].Name != "scroll#6" {
		t.Fatalf("steps %v", r.Steps)
	}
	if f := (&fakeT{}); !assert.NoRegression(f, r, p, gate) {
		t.Fatalf("record: %q", f.errs)
	}
	t.Setenv(budget.EnvUpdate, "")

	r = m[1].r
	f := &fakeT{}
	if assert.NoRegression(f, r, p, gate) {
		t.Fatal("a 30 % frame-time regression passed")
	}
	if !strings.HasPrefix(f.text(), "perf regression: scroll: frame_time_p50 6ms → 7.8ms (+30.0%, p=0.002, n=6+6)") {
		t.Errorf("got %q", f.text())
	}

	r = m[2].r
	f = &fakeT{}
	if !assert.NoRegression(f, r, p, gate) {
		t.Errorf("the same app failed the gate: %q", f.errs)
	}
}

// Recording budgets again and again on a fresh checkout: runs of the same
// app on the simulated phone differ a little (where the ticks fall, which
// frames a poll sees: each run starts its session a different while after
// the launch), and no rewrite after the first fails "not loosened"
// for that; the file changes only where a budget tightened past its noise,
// never by a value rewritten for nothing.
func TestUpdateRepeatedOnSimulatedPhone(t *testing.T) {
	p := filepath.Join(t.TempDir(), "testdata", "scroll.budget.json")
	scroll := func(s *perftest.Session) { s.Step("scroll", func() { time.Sleep(1500 * time.Millisecond) }) }
	runs := make([]session, 4)
	for i := range runs {
		runs[i] = session{scrollWorkload(t, 40), scroll, time.Duration(i) * 37 * time.Millisecond}
	}
	m := measureAll(t, runs...)
	t.Setenv(budget.EnvUpdate, "1")
	var prev []byte
	unchanged := 0
	for i := range 4 {
		r := m[i].r
		f := &fakeT{}
		if !assert.Budget(f, r, p) {
			t.Fatalf("update %d failed: %q", i+1, f.errs)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			tightened := 0
			for _, l := range f.logs {
				switch {
				case strings.HasPrefix(l, "perf budget tightened: "):
					tightened++
				case !strings.HasPrefix(l, "perf budgets unchanged: "):
					t.Errorf("update %d: %s", i+1, l)
				}
			}
			if bytes.Equal(b, prev) {
				unchanged++
			} else if tightened == 0 {
				t.Errorf("update %d rewrote the file without changing a budget:\n%s\nwas\n%s", i+1, b, prev)
			}
		}
		prev = b
	}
	t.Logf("%d of 3 updates after the first left the file as it was", unchanged)
}

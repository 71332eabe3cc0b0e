package perftest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
)

// onDisk reads the one Result in dir; the test fails unless there is
// exactly one file there (besides hidden ones: the folder's lock, a write's
// temporary file), a Result.
func onDisk(t *testing.T, dir string) *result.Result {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), ".") { // a write's temporary file, the folder's lock
			names = append(names, e.Name())
		}
	}
	if len(names) != 1 || !strings.HasSuffix(names[0], ".json") {
		t.Fatalf("the results folder holds %q, want one Result", names)
	}
	r, err := result.ReadResult(filepath.Join(dir, names[0]))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The Result is on disk as each step ends, before the next one: a session
// killed later keeps it. Written at the step's end, the step's frames are
// not measured yet (frames it drew after the last poll are unknown); once
// a poll after its end came back, the lane writes it again, with the
// step's frames, which are the phone's true ones. Each write says the
// session has not reached Stop, which fails the Result; Stop's write
// replaces it, under the same name.
func TestResultWrittenAsStepsEnd(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		dev, d := simQuirks(t, "smooth-scroll", 33, simdevice.Quirks{})
		tk := newTicker()
		cfg := quirkConfig(t, tk)
		cfg.Causes.Off = true
		s := perftest.Start(t, d, perftest.WithConfig(cfg))
		s.Begin("first")
		tk.wait(t, 5)
		time.Sleep(roundTrip) // the step ends a moment after the tick, as on a phone
		s.End()

		r := onDisk(t, cfg.ResultsDir)
		u := r.Unfinished
		if u == nil || u.After != "first" || u.InStep != "" || len(r.Steps) != 1 || r.Steps[0].Name != "first" {
			t.Fatalf("at the step's end: unfinished %+v, steps %d", u, len(r.Steps))
		}
		if !strings.HasPrefix(r.Error, `unfinished: the session had not reached Stop when this Result was written, after step "first" ended`) || len(r.Failed()) == 0 {
			t.Errorf("error %q, failed %q: want the Result unfinished and failed", r.Error, r.Failed())
		}
		absent(t, r.Step("first"), []metrics.Name{metrics.Frames, metrics.FPS}, "no frame poll succeeded after the step ended")
		if m := r.Step("first").Measurements(); len(m) != 1 || m[0].Incomplete == "" {
			t.Errorf("measurements %+v: want the step incomplete (never recorded)", m)
		}
		if len(r.Samples) == 0 || r.Samples[0].DeviceNs == 0 {
			t.Errorf("samples %d, not on the device clock", len(r.Samples))
		}

		s.Begin("second")
		// The tick after the step's end polls frames, and the lane writes the
		// Result again before the next tick.
		var first *result.Step
		for range 100 {
			tk.wait(t, 1)
			r = onDisk(t, cfg.ResultsDir)
			if first = r.Step("first"); first.NotMeasured[metrics.Frames] == "" {
				break
			}
		}
		// The poll may have come before the second step began, or after.
		if u := r.Unfinished; u == nil || u.After != "first" || u.InStep != "" && u.InStep != "second" || len(r.Steps) != 1 {
			t.Fatalf("after a poll: unfinished %+v, steps %d", u, len(r.Steps))
		}
		truth, _, late := truthInStep(r, first, dev.World().TruthFrames(), false)
		if got := metric(t, first, metrics.Frames); got != float64(len(truth)) || late > 0 || len(truth) < 10 {
			t.Errorf("first, as written after a poll: %v frames; the phone drew %d in it (%d after the last poll)", got, len(truth), late)
		}
		tk.wait(t, 2)
		s.End()
		final := s.Stop()
		back := onDisk(t, cfg.ResultsDir)
		if back.Unfinished != nil || back.Error != "" || final.Path != back.Path || len(back.Steps) != 2 {
			t.Errorf("after Stop: %s unfinished %+v, error %q, %d steps; Stop wrote %s", back.Path, back.Unfinished, back.Error, len(back.Steps), final.Path)
		}
		// Stop places the step on the phone's clock with more round trips
		// than the write did: a frame at its edge may change sides.
		truth, _, late = truthInStep(back, back.Step("first"), dev.World().TruthFrames(), false)
		if got := metric(t, back.Step("first"), metrics.Frames); got != float64(len(truth)) || late > 0 {
			t.Errorf("first, at Stop: %v frames; the phone drew %d in it (%d after the last poll)", got, len(truth), late)
		}
	})
}

// A Result that did not reach Stop fails, and its steps are not recorded
// as budgets, whatever they measured.
func TestUnfinishedResultIsNoPass(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		_, d := simQuirks(t, "smooth-scroll", 33, simdevice.Quirks{})
		tk := newTicker()
		cfg := quirkConfig(t, tk)
		cfg.Causes.Off = true
		s := perftest.Start(t, d, perftest.WithConfig(cfg))
		s.Begin("scroll")
		tk.wait(t, 5)
		s.End()
		s.Begin("more")
		tk.wait(t, 3) // the step's frames came in: the second write is done
		r := onDisk(t, cfg.ResultsDir)
		s.End()
		s.Stop()
		if r.Unfinished == nil {
			t.Fatal("the Result written after the step is not marked unfinished")
		}
		path := filepath.Join(t.TempDir(), "scroll.budget.json")
		u, err := budget.RecordBudgets(r, path, budget.Headroom{}, budget.Policy{})
		if err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), "scroll") {
			t.Errorf("budgets recorded from an unfinished Result: %s", b)
		}
		if len(u.Notes) == 0 || !strings.Contains(strings.Join(u.Notes, "\n"), "perf budget not recorded: scroll: the session did not reach Stop") {
			t.Errorf("notes %q", u.Notes)
		}
	})
}

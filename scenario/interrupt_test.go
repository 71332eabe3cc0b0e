package scenario_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/scenario"
)

// A sleep longer than MaxSleep, or negative, fails at once quoting it.
func TestSleepBounded(t *testing.T) {
	t.Parallel()
	for _, d := range []time.Duration{scenario.MaxSleep + time.Millisecond, 3 * time.Hour, -time.Second} {
		err := scenario.Sleep(d).Do(context.Background(), nil)
		if err == nil || !strings.Contains(err.Error(), "scenario sleep "+d.String()+": want a duration from 0 to 10m0s") {
			t.Errorf("Sleep(%v): %v", d, err)
		}
	}
	if err := scenario.Sleep(0).Do(context.Background(), nil); err != nil {
		t.Errorf("Sleep(0): %v", err)
	}
}

// A step's context ends the action in progress (a Sleep of the longest
// kind here) and skips the rest; the step is unfinished and reported as
// interrupted, without a screenshot. Sleeps longer than ActionTimeout are
// not cut short by it.
func TestStepContextInterrupted(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		p := newPhone(t, server, "smooth-scroll", nil)
		results := t.TempDir()
		ft := &fakeT{}
		sc := scenario.Start(ft, p.dev, p.pkg, perftest.WithResultsDir(results))
		if sc == nil {
			t.Fatalf("start: %q", ft.errs)
		}
		// The sleep outlasts ActionTimeout, and its deadline is ActionTimeout
		// past its end.
		sc.ActionTimeout = 500 * time.Millisecond
		if !sc.Step("nap", scenario.Sleep(600*time.Millisecond)) {
			t.Fatalf("a sleep past ActionTimeout failed: %q", ft.errs)
		}
		ctx, cancel := context.WithCancelCause(context.Background())
		began := make(chan struct{})
		go func() {
			<-began
			cancel(errors.New("stop requested"))
		}()
		tapped := false
		ok := sc.StepContext(ctx, "idle",
			scenario.Func("mark", func(context.Context, *scenario.Driver) error { close(began); return nil }),
			scenario.Sleep(scenario.MaxSleep),
			scenario.Func("tap", func(context.Context, *scenario.Driver) error { tapped = true; return nil }))
		if ok || tapped {
			t.Fatalf("interrupted step: ok %v, the action after it ran %v", ok, tapped)
		}
		want := `scenario step "idle": sleep 10m0s: interrupted: stop requested; the step is marked unfinished`
		if len(ft.errs) != 1 || ft.errs[0] != want {
			t.Errorf("got %q\nwant %q", ft.errs, want)
		}
		if sc.StepContext(ctx, "later", scenario.Sleep(0)) || len(ft.errs) != 2 || ft.errs[1] != `scenario step "later": not run: stop requested` {
			t.Errorf("a step after the interrupt: %q", ft.errs)
		}
		r := sc.Stop()
		if st := r.Step("idle"); !st.Unfinished || st.Missing {
			t.Errorf("step idle: unfinished %v missing %v", st.Unfinished, st.Missing)
		}
		if r.Step("nap").Unfinished || !r.Step("later").Missing {
			t.Errorf("nap unfinished %v, later recorded %v", r.Step("nap").Unfinished, !r.Step("later").Missing)
		}
		if ents, _ := os.ReadDir(results); len(ents) != 1 {
			t.Errorf("results folder holds %d files, want only the Result (no screenshot)", len(ents))
		}
	})
}

package perftest

import (
	"fmt"
	"sync"
	"time"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/internal/callsite"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/result"
)

// sessions maps each test given to Start to its session, for the checks
// bound to a test (MaxJank(t, 3)).
var sessions sync.Map // TestingT → *Session

func register(t TestingT, s *Session) {
	defer func() { recover() }() // a TestingT that is not comparable gets no bound checks
	sessions.Store(t, s)
}

func unregister(t TestingT, s *Session) {
	defer func() { recover() }()
	sessions.CompareAndDelete(t, s)
}

func sessionOf(t TestingT) *Session {
	defer func() { recover() }()
	if v, ok := sessions.Load(t); ok {
		return v.(*Session)
	}
	return nil
}

// BoundCheck is the verdict of a check bound to a test's session
// (MaxJank(t, 3), …). A session measures its last frames only when it
// stops, so a check called while it runs has no verdict until then: it
// reports through the test at Stop, and Passed tells the outcome from then
// on. A check called after Stop is checked at once. Either way its
// verdicts go into the session's Result.
type BoundCheck struct {
	mu       sync.Mutex
	checked  bool
	verdicts []budget.Verdict
}

// Passed reports whether the check passed and whether it was checked at
// all: (false, false) while the session it is bound to still runs.
func (c *BoundCheck) Passed() (passed, checked bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.checked && budget.Failed(c.verdicts) == 0, c.checked
}

// Verdicts are the check's verdicts, nil until it was checked.
func (c *BoundCheck) Verdicts() []budget.Verdict {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]budget.Verdict(nil), c.verdicts...)
}

func (c *BoundCheck) set(vs []budget.Verdict) {
	c.mu.Lock()
	c.verdicts, c.checked = vs, true
	c.mu.Unlock()
}

// Check judges limits on the session of t (see Start): its most recent
// step, or the whole session when it had no named steps. A session still
// running measures its last frames only when it stops, so there the check
// waits until Stop (or the test's cleanup) and reports then, on the step
// that was the most recent when Check was called. Every verdict goes into
// the session's Result; each failing one reports its line through t, and
// the test goes on. The named checks (MaxJank, MinFPS, …) are Check with
// one limit.
func Check(t TestingT, limits ...budget.Limit) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return bound(t, "Check", limits)
}

// bound runs limits on the session of t; name is the check's, for the
// message of a test without a session.
func bound(t TestingT, name string, limits []budget.Limit) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	c := &BoundCheck{}
	from := callSite()
	s := sessionOf(t)
	if s == nil {
		t.Errorf("perftest.%s: this test has no session: call perftest.Start(t, …) first", name)
		c.set([]budget.Verdict{{Kind: budget.KindBudget, Status: budget.NotChecked, From: from, Reason: "no session",
			Line: fmt.Sprintf("perftest.%s: this test has no session", name)}})
		return c
	}
	// check judges and records at once, and returns how to report.
	check := func(r *result.Result, step string) func() {
		subject := result.SubjectOf(r, step)
		vs := budget.Record(subject, budget.Check(subject, from, limits...))
		c.set(vs)
		return func() {
			if h, ok := t.(helperT); ok {
				h.Helper()
			}
			for _, v := range vs {
				if v.Fails() {
					t.Errorf("%s", v.Line)
				}
			}
		}
	}
	s.mu.Lock()
	step := ""
	if n := len(s.res.Steps); n > 0 {
		step = s.res.Steps[n-1].Name
	}
	if !s.stopped || s.final == nil {
		s.pending = append(s.pending, func(r *result.Result) func() { return check(r, step) })
		s.mu.Unlock()
		return c
	}
	r := s.final
	s.mu.Unlock()
	check(r, step)()
	return c
}

// callSite names the test's line that called a check (callsite.Outside).
func callSite() string { return callsite.Outside(1) }

// MaxJank is assert.MaxJank on the test's session (see Check): its most
// recent step, or the whole session when it had no named steps. Like every
// session-bound check it reports when the session stops if it is still
// running, and has no verdict until then (see BoundCheck).
func MaxJank(t TestingT, max int) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return bound(t, "MaxJank", []budget.Limit{{Metric: metrics.Jank, Value: float64(max)}})
}

// MinFPS is assert.MinFPS on the test's session; see MaxJank.
func MinFPS(t TestingT, min float64) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return bound(t, "MinFPS", []budget.Limit{{Metric: metrics.FPS, Value: min, Min: true}})
}

// MaxFrameTimeP95 is assert.MaxFrameTimeP95 on the test's session; see
// MaxJank.
func MaxFrameTimeP95(t TestingT, max time.Duration) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return bound(t, "MaxFrameTimeP95", []budget.Limit{{Metric: metrics.FrameTimeP95, Value: ms(max)}})
}

// MaxBigJank is assert.MaxBigJank on the test's session; see MaxJank.
func MaxBigJank(t TestingT, max int) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return bound(t, "MaxBigJank", []budget.Limit{{Metric: metrics.BigJankPerfDog, Value: float64(max)}})
}

// MaxStutter is assert.MaxStutter on the test's session; see MaxJank.
func MaxStutter(t TestingT, maxPct float64) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return bound(t, "MaxStutter", []budget.Limit{{Metric: metrics.StutterPerfDog, Value: maxPct}})
}

// MaxCPU is assert.MaxCPU on the test's session; see MaxJank.
func MaxCPU(t TestingT, maxPct float64) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return bound(t, "MaxCPU", []budget.Limit{{Metric: metrics.CPU, Value: maxPct}})
}

// MaxCPUP90 is assert.MaxCPUP90 on the test's session; see MaxJank.
func MaxCPUP90(t TestingT, maxPct float64) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return bound(t, "MaxCPUP90", []budget.Limit{{Metric: metrics.CPUP90, Value: maxPct}})
}

// MaxPSS is assert.MaxPSS on the test's session; see MaxJank.
func MaxPSS(t TestingT, maxKiB int64) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return bound(t, "MaxPSS", []budget.Limit{{Metric: metrics.PSSMax, Value: float64(maxKiB)}})
}

// MaxMemoryGrowth is assert.MaxMemoryGrowth on the test's session; see
// MaxJank.
func MaxMemoryGrowth(t TestingT, kibPerMin float64) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return bound(t, "MaxMemoryGrowth", []budget.Limit{{Metric: metrics.PSSGrowth, Value: kibPerMin}})
}

// MaxTraffic is assert.MaxTraffic on the test's session; see MaxJank.
func MaxTraffic(t TestingT, rxBytes, txBytes uint64) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return bound(t, "MaxTraffic", []budget.Limit{{Metric: metrics.Rx, Value: float64(rxBytes)}, {Metric: metrics.Tx, Value: float64(txBytes)}})
}

// MaxStartup is assert.MaxStartup on the test's session; see MaxJank.
func MaxStartup(t TestingT, max time.Duration) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return bound(t, "MaxStartup", []budget.Limit{{Metric: metrics.StartupInitial, Value: ms(max)}})
}

// NoCrash is assert.NoCrash on the test's session; see MaxJank.
func NoCrash(t TestingT) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return bound(t, "NoCrash", []budget.Limit{{Metric: metrics.Crashes, Value: 0}})
}

// MaxBlock is assert.MaxBlock on the test's session; see MaxJank.
func MaxBlock(t TestingT, max time.Duration) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return bound(t, "MaxBlock", []budget.Limit{{Metric: metrics.MaxBlock, Value: ms(max)}})
}

// NoANR is assert.NoANR on the test's session; see MaxJank.
func NoANR(t TestingT) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return bound(t, "NoANR", []budget.Limit{{Metric: metrics.ANRs, Value: 0}})
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

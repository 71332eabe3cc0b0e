package perftest

import (
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/perfgate/perfgate/assert"
	"github.com/perfgate/perfgate/metrics"
)

// Measurements returns the step as package assert's checks read it: its
// metric catalogue and the evidence a failure quotes (the times of janky
// frames since the step began, the crashes).
func (s *Step) Measurements() []metrics.Measurement {
	if s == nil {
		return []metrics.Measurement{{Step: "", Missing: true}}
	}
	m := metrics.Measurement{Step: s.Name, Missing: s.Missing}
	if s.Missing {
		return []metrics.Measurement{m}
	}
	m.Metrics = s.Metrics()
	for _, a := range s.Absent() {
		if m.NotMeasured == nil {
			m.NotMeasured = map[metrics.Name]string{}
		}
		m.NotMeasured[a.Name] = a.Reason
	}
	m.Evidence = map[metrics.Name][]string{}
	secs := func(v []float64) []string {
		out := make([]string, len(v))
		for i, x := range v {
			out[i] = strconv.FormatFloat(x, 'f', 2, 64) + "s"
		}
		return out
	}
	if len(s.JankAtS) > 0 {
		m.Evidence[metrics.Jank] = secs(s.JankAtS)
		if s.FrameStats.JankDefinition == metrics.JankDefinitionDeadlineMissed {
			m.Evidence[metrics.JankDeadlineMissed] = m.Evidence[metrics.Jank]
		} else {
			m.Evidence[metrics.JankPerfDog] = m.Evidence[metrics.Jank]
		}
	}
	if len(s.BigJankAtS) > 0 {
		m.Evidence[metrics.BigJankPerfDog] = secs(s.BigJankAtS)
	}
	if why := s.Causes.Line(); why != "" && len(s.JankAtS) > 0 {
		m.Causes = map[metrics.Name]string{metrics.Jank: why}
		if s.FrameStats.JankDefinition == metrics.JankDefinitionDeadlineMissed {
			m.Causes[metrics.JankDeadlineMissed] = why
		} else {
			m.Causes[metrics.JankPerfDog] = why
		}
	}
	if c := s.Causes; c != nil {
		if b, ok := c.MaxBlock(); ok {
			m.Evidence[metrics.MaxBlock] = []string{fmt.Sprintf("at %.2fs in %s", b.AtS, b.Where())}
		}
	}
	for _, a := range s.ANRs() {
		m.Evidence[metrics.ANRs] = append(m.Evidence[metrics.ANRs], fmt.Sprintf("pid %d at %.2fs: %s", a.PID, a.AtS, a.Reason))
	}
	for _, c := range s.Crashes {
		at := time.Duration(c.HostNs - s.HostStartNs).Round(10 * time.Millisecond)
		e := fmt.Sprintf("pids %v → %v at %v", c.OldPIDs, c.NewPIDs, at)
		if c.Cause != "" {
			e += " (" + c.Cause + ")"
		}
		m.Evidence[metrics.Crashes] = append(m.Evidence[metrics.Crashes], e)
	}
	return []metrics.Measurement{m}
}

// Measurements returns every step of the run in order, or the whole
// session (Result.Whole, named "session") when it had no named steps.
func (r *Result) Measurements() []metrics.Measurement {
	var out []metrics.Measurement
	for _, st := range r.Steps {
		out = append(out, st.Measurements()...)
	}
	if len(out) == 0 && r.Whole != nil {
		out = r.Whole.Measurements()
	}
	return out
}

// RunDevice is the device the run was measured on, for baselines.
func (r *Result) RunDevice() metrics.DeviceFacts { return r.Device }

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
// on. A check called after Stop is checked at once.
type BoundCheck struct {
	mu      sync.Mutex
	checked bool
	passed  bool
}

// Passed reports whether the check passed and whether it was checked at
// all: (false, false) while the session it is bound to still runs.
func (c *BoundCheck) Passed() (passed, checked bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.passed, c.checked
}

func (c *BoundCheck) set(passed bool) {
	c.mu.Lock()
	c.passed, c.checked = passed, true
	c.mu.Unlock()
}

// bound runs check on the session of t: on its most recent step, or the
// whole session when it had no named steps. A session still running
// measures its last frames only when it stops, so there the check waits
// until Stop (or the test's cleanup) and reports then, on the step that was
// the most recent when the check was called.
func bound(t TestingT, name string, check func(assert.TestingT, assert.Subject) bool) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	c := &BoundCheck{}
	s := sessionOf(t)
	if s == nil {
		t.Errorf("perftest.%s: this test has no session: call perftest.Start(t, …) first", name)
		c.set(false)
		return c
	}
	s.mu.Lock()
	step := ""
	if n := len(s.res.Steps); n > 0 {
		step = s.res.Steps[n-1].Name
	}
	if !s.stopped || s.final == nil {
		s.pending = append(s.pending, func(r *Result) { c.set(check(t, subjectOf(r, step))) })
		s.mu.Unlock()
		return c
	}
	r := s.final
	s.mu.Unlock()
	c.set(check(t, subjectOf(r, step)))
	return c
}

// subjectOf is the named step of r, or its whole session for "".
func subjectOf(r *Result, step string) assert.Subject {
	if step != "" {
		return r.Step(step)
	}
	if r.Whole != nil {
		return r.Whole
	}
	return &Step{Name: "session", Missing: true}
}

// MaxJank is assert.MaxJank on the test's session (see Start): its most
// recent step, or the whole session when it had no named steps. Like every
// session-bound check it reports when the session stops if it is still
// running, and has no verdict until then (see BoundCheck).
func MaxJank(t TestingT, max int) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return bound(t, "MaxJank", func(t assert.TestingT, s assert.Subject) bool { return assert.MaxJank(t, s, max) })
}

// MinFPS is assert.MinFPS on the test's session; see MaxJank.
func MinFPS(t TestingT, min float64) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return bound(t, "MinFPS", func(t assert.TestingT, s assert.Subject) bool { return assert.MinFPS(t, s, min) })
}

// MaxFrameTimeP95 is assert.MaxFrameTimeP95 on the test's session; see
// MaxJank.
func MaxFrameTimeP95(t TestingT, max time.Duration) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return bound(t, "MaxFrameTimeP95", func(t assert.TestingT, s assert.Subject) bool { return assert.MaxFrameTimeP95(t, s, max) })
}

// MaxBigJank is assert.MaxBigJank on the test's session; see MaxJank.
func MaxBigJank(t TestingT, max int) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return bound(t, "MaxBigJank", func(t assert.TestingT, s assert.Subject) bool { return assert.MaxBigJank(t, s, max) })
}

// MaxStutter is assert.MaxStutter on the test's session; see MaxJank.
func MaxStutter(t TestingT, maxPct float64) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return bound(t, "MaxStutter", func(t assert.TestingT, s assert.Subject) bool { return assert.MaxStutter(t, s, maxPct) })
}

// MaxCPU is assert.MaxCPU on the test's session; see MaxJank.
func MaxCPU(t TestingT, maxPct float64) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return bound(t, "MaxCPU", func(t assert.TestingT, s assert.Subject) bool { return assert.MaxCPU(t, s, maxPct) })
}

// MaxCPUP90 is assert.MaxCPUP90 on the test's session; see MaxJank.
func MaxCPUP90(t TestingT, maxPct float64) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return bound(t, "MaxCPUP90", func(t assert.TestingT, s assert.Subject) bool { return assert.MaxCPUP90(t, s, maxPct) })
}

// MaxPSS is assert.MaxPSS on the test's session; see MaxJank.
func MaxPSS(t TestingT, maxKiB int64) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return bound(t, "MaxPSS", func(t assert.TestingT, s assert.Subject) bool { return assert.MaxPSS(t, s, maxKiB) })
}

// MaxMemoryGrowth is assert.MaxMemoryGrowth on the test's session; see
// MaxJank.
func MaxMemoryGrowth(t TestingT, kibPerMin float64) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return bound(t, "MaxMemoryGrowth", func(t assert.TestingT, s assert.Subject) bool { return assert.MaxMemoryGrowth(t, s, kibPerMin) })
}

// MaxTraffic is assert.MaxTraffic on the test's session; see MaxJank.
func MaxTraffic(t TestingT, rxBytes, txBytes uint64) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return bound(t, "MaxTraffic", func(t assert.TestingT, s assert.Subject) bool { return assert.MaxTraffic(t, s, rxBytes, txBytes) })
}

// MaxStartup is assert.MaxStartup on the test's session; see MaxJank.
func MaxStartup(t TestingT, max time.Duration) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return bound(t, "MaxStartup", func(t assert.TestingT, s assert.Subject) bool { return assert.MaxStartup(t, s, max) })
}

// NoCrash is assert.NoCrash on the test's session; see MaxJank.
func NoCrash(t TestingT) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return bound(t, "NoCrash", func(t assert.TestingT, s assert.Subject) bool { return assert.NoCrash(t, s) })
}

// MaxBlock is assert.MaxBlock on the test's session; see MaxJank.
func MaxBlock(t TestingT, max time.Duration) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return bound(t, "MaxBlock", func(t assert.TestingT, s assert.Subject) bool { return assert.MaxBlock(t, s, max) })
}

// NoANR is assert.NoANR on the test's session; see MaxJank.
func NoANR(t TestingT) *BoundCheck {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return bound(t, "NoANR", func(t assert.TestingT, s assert.Subject) bool { return assert.NoANR(t, s) })
}

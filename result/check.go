package result

import (
	"fmt"
	"strconv"
	"time"

	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/metrics"
)

// Measurements returns the step as package budget's checks read it: its
// metric catalogue and the evidence a failure quotes (the times of janky
// frames since the step began, the crashes).
func (s *Step) Measurements() []budget.Measurement {
	if s == nil {
		return []budget.Measurement{{Step: "", Missing: true}}
	}
	m := budget.Measurement{Step: s.Name, Missing: s.Missing}
	if s.Missing {
		return []budget.Measurement{m}
	}
	switch {
	case s.res != nil && s.res.Unfinished != nil:
		m.Incomplete = "the session did not reach Stop: its Result was written as its steps ended"
	case s.Unfinished:
		m.Incomplete = "unfinished: the session stopped inside it"
	case s.ActionFailed != "":
		m.Incomplete = "an action failed: " + s.ActionFailed
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
		if s.FrameStats.JankDefinition == frames.JankDefinitionDeadlineMissed {
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
		if s.FrameStats.JankDefinition == frames.JankDefinitionDeadlineMissed {
			m.Causes[metrics.JankDeadlineMissed] = why
		} else {
			m.Causes[metrics.JankPerfDog] = why
		}
	}
	m.Causes = memoryCause(m.Causes, s.res)
	if c := s.Causes; c != nil {
		if b, ok := c.MaxBlock(); ok {
			m.Evidence[metrics.MaxBlock] = []string{fmt.Sprintf("at %.2fs in %s", b.AtS, b.Where())}
		}
	}
	for _, a := range s.ANRs() {
		m.Evidence[metrics.ANRs] = append(m.Evidence[metrics.ANRs], fmt.Sprintf("pid %d at %.2fs: %s", a.PID, a.AtS, a.Reason))
	}
	s.Startup.causes(&m)
	for _, c := range s.Crashes {
		at := time.Duration(c.HostNs - s.HostStartNs).Round(10 * time.Millisecond)
		e := fmt.Sprintf("pids %v → %v at %v", c.OldPIDs, c.NewPIDs, at)
		if c.Cause != "" {
			e += " (" + c.Cause + ")"
		}
		m.Evidence[metrics.Crashes] = append(m.Evidence[metrics.Crashes], e)
	}
	return []budget.Measurement{m}
}

// RecordVerdicts stores verdicts of a check of the step in the Result it
// belongs to (see Result.RecordVerdicts); a step of no Result keeps
// nothing.
func (s *Step) RecordVerdicts(vs ...budget.Verdict) {
	if s != nil && s.res != nil {
		s.res.RecordVerdicts(vs...)
	}
}

// Measurements returns every step of the run in order, or the whole
// session (Result.Whole, named "session") when it had no named steps.
func (r *Result) Measurements() []budget.Measurement {
	var out []budget.Measurement
	for _, st := range r.Steps {
		out = append(out, st.Measurements()...)
	}
	if len(out) == 0 && r.Whole != nil {
		out = r.Whole.Measurements()
	}
	return out
}

// RunDevice is the device the run was measured on, for baselines.
func (r *Result) RunDevice() procfs.DeviceFacts { return r.Device }

// subjectOf is the named step of r, or its whole session for "".
func SubjectOf(r *Result, step string) budget.Subject {
	if step != "" {
		return r.Step(step)
	}
	if r.Whole != nil {
		return r.Whole
	}
	return &Step{Name: "session", Missing: true, res: r}
}

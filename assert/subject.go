package assert

import "github.com/perfgate/perfgate/metrics"

// Measurement is one step as the checks read it.
type Measurement struct {
	// Step is the step's name as recorded: "scroll", "scroll#2" for a
	// repeat, "session" for a whole session without named steps.
	Step string
	// Missing is set when the run had no such step.
	Missing bool
	// Metrics is the step's catalogue (see (*perftest.Step).Metrics).
	Metrics []metrics.Metric
	// Evidence holds, per metric name, short items a failure quotes: the
	// times of janky frames ("1.84s"), crash descriptions.
	Evidence map[string][]string
	// NotMeasured holds, per metric of the catalogue the step has no value
	// for, why: "traffic: /proc/<pid>/net/dev unreadable on every read in
	// the step (…)". A budget on such a metric fails as not checked, with
	// the reason; a regression gate skips it with the reason.
	NotMeasured map[string]string
}

// Metric returns the named metric of the step.
func (m Measurement) Metric(name string) (metrics.Metric, bool) {
	for _, x := range m.Metrics {
		if x.Name == name {
			return x, true
		}
	}
	return metrics.Metric{}, false
}

// Subject is what checks read: a step (one Measurement) or a whole run
// (every step, in order). *perftest.Step and *perftest.Result are Subjects.
type Subject interface {
	Measurements() []Measurement
}

// Run is a whole run: its steps and the device it ran on. *perftest.Result
// is a Run.
type Run interface {
	Subject
	// RunDevice is the device the run was measured on; baselines are
	// recorded under its Name and Release.
	RunDevice() metrics.DeviceFacts
}

// TestingT is the part of *testing.T the checks need; *testing.T,
// *testing.B and testify's mocks satisfy it. Helper and Logf are used when
// the value has them.
type TestingT interface {
	Errorf(format string, args ...any)
	FailNow()
}

type helperT interface{ Helper() }
type logT interface {
	Logf(format string, args ...any)
}

func logf(t TestingT, format string, args ...any) {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	if l, ok := t.(logT); ok {
		l.Logf(format, args...)
	}
}

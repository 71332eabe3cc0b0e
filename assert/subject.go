package assert

import "github.com/perfgate/perfgate/metrics"

// Measurement is one step as the checks read it: its measured metrics,
// the reasons for those it lacks, and the evidence a failure quotes.
type Measurement = metrics.Measurement

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

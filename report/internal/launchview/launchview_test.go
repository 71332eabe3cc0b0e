package launchview

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/trace"
)

// A launch's table has a row a phase with its own figures; a phase
// without slices or scheduler events says so, never 0.
func TestPhasesTable(t *testing.T) {
	states := &trace.States{}
	states.Add(trace.StateRunning, 480e6)
	states.Add(trace.StateUninterruptible, 40e6)
	st := &result.Step{Startup: &result.StartupStats{Kind: "cold", Iterations: []result.StartupSample{{TotalTimeMs: 1200, Phases: []result.StartupPhase{
		{Name: "process start", DeviceStartNs: 5e9, DeviceEndNs: 5.06e9, DurMs: 60},
		{Name: "bindApplication", DeviceStartNs: 5.06e9, DeviceEndNs: 5.58e9, DurMs: 520, MainThread: states,
			Slices: []result.PhaseSlice{{Name: "com.example.App.onCreate", DurMs: 380}, {Name: "com.example.Db.open", DurMs: 60}}},
	}}}}}
	got := string(HTML(&result.Result{Trace: &result.TraceInfo{File: "t.perfetto-trace"}}, st))
	for _, want := range []string{
		`<tr><td>process start</td><td class="num">&#43;0.0 ms</td><td class="num">60.0 ms</td><td>no slice within the phase</td><td>no scheduler events</td></tr>`,
		`<tr><td>bindApplication</td><td class="num">&#43;60.0 ms</td><td class="num">520.0 ms</td><td>380.0 ms com.example.App.onCreate</td><td>running 480.0, uninterruptible 40.0</td></tr>`,
		`<caption>Launch 1 of 1: 1200 ms to initial display (am start -W TotalTime)</caption>`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "not measured") {
		t.Errorf("a measured step says not measured:\n%s", got)
	}
}

// Launches without phases show why, and no table: the step's reason, or
// the session's lack of a trace.
func TestPhasesAbsent(t *testing.T) {
	launch := []result.StartupSample{{TotalTimeMs: 900}, {TotalTimeMs: 950}}
	for _, tc := range []struct {
		r    *result.Result
		why  string
		want string
	}{
		{&result.Result{Trace: &result.TraceInfo{File: "t"}}, "startup phases: only cold starts are found in the trace (a warm start's preparation launches the app too)", "not measured: only cold starts are found in the trace"},
		{&result.Result{}, "", "not measured: the session recorded no Perfetto trace"},
		{&result.Result{Trace: &result.TraceInfo{NotRecorded: "perfetto needs Android 10"}}, "", "not measured: no Perfetto trace: perfetto needs Android 10"},
	} {
		got := string(HTML(tc.r, &result.Step{Startup: &result.StartupStats{Kind: "warm", Iterations: launch, PhasesNotMeasured: tc.why}}))
		if !strings.Contains(got, tc.want) || strings.Contains(got, "<table") {
			t.Errorf("%q: got\n%s", tc.want, got)
		}
	}
	if got := HTML(&result.Result{}, &result.Step{}); got != "" {
		t.Errorf("a step without launches: %s", got)
	}
}

package budget

import (
	"testing"

	. "github.com/perfgate/perfgate/metrics"
)

// One step as a session measures it: jank 5 with the times of its janky
// frames, fps 48.21, a crash, and no traffic.
func judgeStep() Measurement {
	return Measurement{
		Step: "scroll",
		Metrics: []Metric{
			Jank.Def().Measure(5, "deadline missed"),
			FPS.Def().Measure(48.213, "(n−1)/(t[n−1]−t[0]), gfxinfo"),
			FrameTimeP95.Def().Measure(18.245, "frame duration, nearest rank"),
			Crashes.Def().Measure(1, "app process crashed"),
		},
		Evidence: map[Name][]string{
			Jank:    {"1.84s", "2.10s", "2.31s", "3.02s", "3.40s"},
			Crashes: {"pids [4242] → [4300] at 400ms"},
		},
		NotMeasured: map[Name]string{Rx: "traffic: /proc/<pid>/net/dev unreadable"},
	}
}

func TestJudge(t *testing.T) {
	m := judgeStep()
	for _, tc := range []struct {
		l        Limit
		status   Status
		measured bool
		line     string
	}{
		{Limit{Metric: Jank, Value: 5}, Pass, true, ""}, // a value on the limit meets it
		{Limit{Metric: Jank, Value: 3}, Fail, true, "perf budget exceeded: scroll: jank 5 > 3 (deadline missed; frames at 1.84s 2.10s 2.31s 3.02s 3.40s)"},
		{Limit{Metric: FPS, Value: 48.213, Min: true}, Pass, true, ""},
		{Limit{Metric: FPS, Value: 50, Min: true}, Fail, true, "perf budget exceeded: scroll: fps 48.21 < 50 ((n−1)/(t[n−1]−t[0]), gfxinfo)"},
		{Limit{Metric: FrameTimeP95, Value: 16}, Fail, true, "perf budget exceeded: scroll: frame_time_p95 18.25ms > 16ms (frame duration, nearest rank)"},
		{Limit{Metric: Crashes, Value: 0}, Fail, true, "perf budget exceeded: scroll: crashes 1 > 0 (app process crashed; pids [4242] → [4300] at 400ms)"},
		{Limit{Metric: Rx, Value: 100}, NotChecked, false, "perf budget not checked: scroll: rx not measured (traffic: /proc/<pid>/net/dev unreadable; budget rx ≤ 100B)"},
		{Limit{Metric: "startup", Value: 1}, NotChecked, false, "perf budget not checked: scroll: startup not measured (budget startup ≤ 1)"},
	} {
		v := Judge(m, tc.l, "x_test.go:1")
		if v.Status != tc.status || v.Measured() != tc.measured || v.Line != tc.line || v.Step != "scroll" || *v.Limit != tc.l || v.From != "x_test.go:1" || v.Kind != KindBudget {
			t.Errorf("%s: status %v measured %v line %q; want %v %v %q", tc.l, v.Status, v.Measured(), v.Line, tc.status, tc.measured, tc.line)
		}
		if v.Fails() != (tc.status != Pass) {
			t.Errorf("%s: Fails() = %v for %v", tc.l, v.Fails(), v.Status)
		}
	}
	missing := Judge(Measurement{Step: "scrol", Missing: true}, Limit{Metric: Jank, Value: 3}, "")
	if !missing.Fails() || !missing.Missing || missing.Line != `perf budget exceeded: scrol: step not measured (the run has no step "scrol")` {
		t.Errorf("missing step: %+v %q", missing, missing.Line)
	}
}

// A failure quotes at most ten items of evidence.
func TestJudgeEvidenceBounded(t *testing.T) {
	m := judgeStep()
	m.Evidence[Jank] = []string{"1s", "2s", "3s", "4s", "5s", "6s", "7s", "8s", "9s", "10s", "11s", "12s"}
	want := "perf budget exceeded: scroll: jank 5 > 3 (deadline missed; frames at 1s 2s 3s 4s 5s 6s 7s 8s 9s 10s …)"
	if got := Judge(m, Limit{Metric: Jank, Value: 3}, "").Line; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if len(m.Evidence[Jank]) != 12 {
		t.Error("the line cut the step's evidence")
	}
}

func TestLimitAppliesTo(t *testing.T) {
	for _, tc := range []struct {
		step, to string
		want     bool
	}{{"", "scroll", true}, {"scroll", "scroll", true}, {"scroll", "scroll#3", true}, {"scroll", "tap", false}, {"scroll#2", "scroll", false}} {
		if got := (Limit{Step: tc.step, Metric: Jank}).AppliesTo(tc.to); got != tc.want {
			t.Errorf("limit of %q applies to %q: %v, want %v", tc.step, tc.to, got, tc.want)
		}
	}
	if s := (Limit{Metric: FrameTimeP95, Value: 20.5}).String(); s != "frame_time_p95 ≤ 20.5ms" {
		t.Errorf("String() = %q", s)
	}
}

// A failure says why after its evidence, when the step knows.
func TestJudgeCause(t *testing.T) {
	m := judgeStep()
	m.Causes = map[Name]string{Jank: "4 late in layout; top block 180 ms in com.example.FeedAdapter.onBindViewHolder"}
	want := "perf budget exceeded: scroll: jank 5 > 3 (deadline missed; frames at 1.84s 2.10s 2.31s 3.02s 3.40s; 4 late in layout; top block 180 ms in com.example.FeedAdapter.onBindViewHolder)"
	v := Judge(m, Limit{Metric: Jank, Value: 3}, "")
	if v.Line != want || v.Cause != m.Causes[Jank] {
		t.Errorf("got %q, want %q", v.Line, want)
	}
	if v := Judge(m, Limit{Metric: Jank, Value: 5}, ""); v.Line != "" {
		t.Errorf("a pass printed %q", v.Line)
	}
	if got := Judge(m, Limit{Metric: FPS, Value: 50, Min: true}, "").Line; got != "perf budget exceeded: scroll: fps 48.21 < 50 ((n−1)/(t[n−1]−t[0]), gfxinfo)" {
		t.Errorf("another metric took the cause: %q", got)
	}
}

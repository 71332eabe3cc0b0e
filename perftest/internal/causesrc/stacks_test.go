package causesrc

import (
	"testing"

	"github.com/perfgate/perfgate/causes"
	"github.com/perfgate/perfgate/result"
)

// Samples fold per step and stack, sorted, those outside every step under
// "(between steps)", and a step name's ";" cannot split the line.
func TestFoldedStacks(t *testing.T) {
	s := New(Config{On: true})
	if got := s.FoldedStacks(nil); got != nil {
		t.Errorf("no samples: %q, want nil", got)
	}
	s.log.samples = []causes.Sample{
		{TimeNs: 5, Stack: "main;a"},
		{TimeNs: 10, Stack: "main;a;b"},
		{TimeNs: 12, Stack: "main;a;b"},
		{TimeNs: 20, Stack: "main;c"},
		{TimeNs: 30, Stack: "main;a"},
	}
	steps := []*result.Step{
		{Name: "scroll;fast", DeviceStartNs: 10, DeviceEndNs: 20},
		{Name: "tap", DeviceStartNs: 20, DeviceEndNs: 30},
	}
	const want = "(between steps);main;a 2\n" +
		"scroll:fast;main;a;b 2\n" +
		"tap;main;c 1\n"
	if got := string(s.FoldedStacks(steps)); got != want {
		t.Errorf("folded:\n%s\nwant:\n%s", got, want)
	}
}

// A source that looks for no causes sets, reads and summarises nothing.
func TestSourceOff(t *testing.T) {
	s := New(Config{Batch: nil})
	if run := s.Setup(t.Context(), Facts{API: 34}, nil); run != nil {
		t.Errorf("Setup: %+v", run)
	}
	if _, _, ok := s.Read(t.Context(), nil); ok {
		t.Error("Read read")
	}
	if st := s.Summarise(&result.Step{}, nil, nil, ""); st != nil {
		t.Errorf("Summarise: %+v", st)
	}
	if add := func(string) int { t.Fatal("a renewal planned"); return 0 }; s.PlanLease(add) != -1 {
		t.Error("PlanLease: want -1")
	}
	if notes := s.Restore(); notes != nil {
		t.Errorf("Restore: %q", notes)
	}
}

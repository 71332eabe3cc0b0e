package sessview

import (
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/result"
)

// Runs of one test on one phone are numbered in start order whatever
// order they come in; a test run once, or on another phone, is not.
func TestLabels(t *testing.T) {
	at := func(s int) time.Time { return time.Date(2026, 1, 2, 3, 4, s, 0, time.UTC) }
	dev := procfs.DeviceFacts{Model: "Pixel 6", Serial: "A1"}
	rs := []*result.Result{
		{Name: "TestScroll", Device: dev, Start: at(9)},
		{Name: "TestScroll", Device: dev, Start: at(1)},
		{Name: "TestScroll", Device: procfs.DeviceFacts{Model: "Pixel 6", Serial: "B2"}, Start: at(5)},
		{Name: "TestLaunch", Device: dev, Start: at(3)},
	}
	want := []string{
		"TestScroll · Pixel 6 A1 · run 2 of 2, 2026-01-02 03:04:09",
		"TestScroll · Pixel 6 A1 · run 1 of 2, 2026-01-02 03:04:01",
		"TestScroll · Pixel 6 B2",
		"TestLaunch · Pixel 6 A1",
	}
	for i, got := range Labels(rs) {
		if got != want[i] {
			t.Errorf("label %d = %q, want %q", i, got, want[i])
		}
	}
	if got := Labels(rs[:1]); got[0] != "TestScroll" {
		t.Errorf("one Result: %q", got)
	}
}

// The median of three runs is the middle one's value, the range their
// lowest and highest; a run that did not measure the metric adds nothing
// (never a 0) and the row says so.
func TestAggregate(t *testing.T) {
	v := func(step string, m metrics.Name, x float64) Value {
		return Value{Test: "T", Device: "Pixel 6", Step: step, Metric: m, V: x}
	}
	runs := []Run{
		{Label: "T · run 1 of 3", Href: "#r1", Values: []Value{v("scroll", metrics.FPS, 58), v("scroll", metrics.Jank, 4)}},
		{Label: "T · run 2 of 3", Href: "#r2", Values: []Value{v("scroll", metrics.FPS, 40)}},
		{Label: "T · run 3 of 3", Href: "#r3", Values: []Value{v("scroll", metrics.FPS, 60), v("scroll", metrics.Jank, 1)}},
		{Label: "U", Href: "#r4", Values: []Value{{Test: "U", Device: "Pixel 6", Step: "scroll", Metric: metrics.FPS, V: 1}}},
	}
	gs := Aggregate(runs)
	if len(gs) != 1 || gs[0].Test != "T" || gs[0].Runs != 3 || len(gs[0].Steps) != 1 {
		t.Fatalf("groups %+v", gs)
	}
	rows := gs[0].Steps[0].Rows
	if r := rows[0]; r.MedianV != 58 || r.MinV != 40 || r.MaxV != 60 || r.Measured != 3 || len(r.Each) != 3 {
		t.Errorf("fps row %+v", r)
	}
	if r := rows[1]; r.MedianV != 1 || r.MinV != 1 || r.MaxV != 4 || r.Measured != 2 {
		t.Errorf("jank row %+v", r)
	}
	if page := string(HTML(gs)); !strings.Contains(page, "measured in 2 of 3 runs") || !strings.Contains(page, `<a href="#r2">run 2 of 3</a>`) {
		t.Errorf("page:\n%s", page)
	}
}

// Bytes are drawn in the unit that keeps the axis above 1.
func TestByteUnit(t *testing.T) {
	for _, tc := range []struct {
		b    float64
		unit string
	}{{0, "B"}, {3, "B"}, {1023, "B"}, {1024, "KiB"}, {1 << 20, "MiB"}} {
		if u, _ := ByteUnit(tc.b); u != tc.unit {
			t.Errorf("ByteUnit(%v) = %s, want %s", tc.b, u, tc.unit)
		}
	}
}

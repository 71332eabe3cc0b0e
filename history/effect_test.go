package history

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/causes"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/metrics"
	resultpkg "github.com/perfgate/perfgate/result"
)

// seriesOf is a series of metric on a Pixel 7, one run an hour from t0,
// each with the value level(i) times noise, commit commitOf(i).
func seriesOf(metric metrics.Name, n int, seed uint64, noise float64, level func(i int) float64) Series {
	def := metric.Def()
	s := Series{Key: Key{Test: "TestFeed", Step: "scroll", Metric: string(metric), Device: "Pixel 7"}, Unit: def.Unit, Definition: def.Doc, Better: def.Better}
	rng := rand.New(rand.NewPCG(seed, seed+1))
	for i := range n {
		v := level(i) * (1 + noise*rng.NormFloat64())
		s.Points = append(s.Points, Point{RunID: commitOf(i), Commit: commitOf(i), Time: t0.Add(time.Duration(i) * time.Hour), Value: v, Iterations: 1})
	}
	return s
}

// A significant change below the minimum effect (frame_time_p95 up 0.1 %
// on a series whose noise is 0.01 %) is no change point: no "for the
// worse" in the trend, nothing for digest -check; one of 5 % is still
// found, at its run.
func TestMinimumEffect(t *testing.T) {
	tiny := Analyze(seriesOf(metrics.FrameTimeP95, 40, 3, 0.0001, func(i int) float64 {
		if i >= 25 {
			return 18 * 1.001
		}
		return 18
	}), TrendOptions{})
	var b bytes.Buffer
	tiny.WriteText(&b, false)
	if len(tiny.Changes) != 0 || strings.Contains(b.String(), "for the worse") {
		t.Errorf("a 0.1%% rise is a change:\n%s", b.String())
	}
	if e, ok := FirstRegression([]Trend{tiny}, DigestOptions{}); ok {
		t.Errorf("digest -check fails on %s", e.Change.Sentence(e.Key))
	}
	real := Analyze(seriesOf(metrics.FrameTimeP95, 40, 3, 0.01, func(i int) float64 {
		if i >= 25 {
			return 18 * 1.05
		}
		return 18
	}), TrendOptions{})
	if len(real.Changes) != 1 || real.Changes[0].Index != 25 || !real.Changes[0].Regression {
		t.Errorf("a 5%% rise: changes %+v", real.Changes)
	}
	// Counts: a median that moves by less than one event is no change.
	half := Analyze(seriesOf(metrics.Jank, 40, 5, 0, func(i int) float64 {
		if i >= 20 && i%2 == 0 {
			return 1
		}
		return 0
	}), TrendOptions{})
	for _, c := range half.Changes {
		t.Errorf("jank: a change of %v frames: %s", c.Diff, c.Sentence(half.Key))
	}
}

// A change from a level of zero (jank 0 → 5) is said in frames, never as
// an infinite percentage, in the trend, the digest, the JSON and the page.
func TestChangeFromZeroIsAbsolute(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	tr := Analyze(seriesOf(metrics.Jank, 30, 9, 0, func(i int) float64 {
		if i >= 20 {
			return float64(4 + rng.IntN(3)) // 4, 5 or 6
		}
		return 0
	}), TrendOptions{})
	if len(tr.Changes) != 1 {
		t.Fatalf("changes %+v", tr.Changes)
	}
	c := tr.Changes[0]
	var text, digest bytes.Buffer
	tr.WriteText(&text, false)
	if err := WriteDigest(&digest, []Trend{tr}, DigestOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"trend": text.String(), "digest": digest.String()} {
		if strings.Contains(out, "∞") || !strings.Contains(out, "rose by 5 frames at c00020") || !strings.Contains(out, "+5 frames, 95% CI +") {
			t.Errorf("%s:\n%s", name, out)
		}
	}
	if c.DiffLow > c.Diff || c.DiffHigh < c.Diff || c.DiffLow < 4 || c.DiffHigh > 6 {
		t.Errorf("change %v frames, 95%% CI %v … %v: want it within the truth's 4 … 6", c.Diff, c.DiffLow, c.DiffHigh)
	}
	js := tr.JSON().Changes[0]
	if js.ChangePct != nil || js.Change != 5 {
		t.Errorf("JSON change %v, change_pct %v", js.Change, js.ChangePct)
	}
	dir := t.TempDir()
	if err := WritePages(dir, []Trend{tr}, PageOptions{}); err != nil {
		t.Fatal(err)
	}
	page := readFile(t, filepath.Join(dir, PageName("jank")+".html"))
	if strings.Contains(page, "∞") || !strings.Contains(page, "+5 frames") {
		t.Errorf("the trend page shows the change as %q", excerptAround(page, "CI"))
	}
}

// excerptAround is up to 200 bytes of s around the first sub.
func excerptAround(s, sub string) string {
	i := max(0, strings.Index(s, sub)-100)
	return s[i:min(len(s), i+200)]
}

// Events that should never happen get budgets of 0 whatever the runs saw,
// as crashes do; counts of other things get their headroom.
func TestSuggestNeverEvents(t *testing.T) {
	s := storeKind{dsn: func(t *testing.T, _ string) string { return filepath.Join(t.TempDir(), "h.db") }}.open(t, "h")
	for i := range 20 {
		st := scrollStep("scroll", 18, 7)
		st.FrameStats.Vitals = &frames.Vitals{Slow: 3}
		st.Causes = &causes.Step{}
		if i%10 == 3 { // two runs of twenty saw one of each
			st.FrameStats.Vitals.Frozen = 1
			st.Crashes = []resultpkg.Crash{{Step: "scroll"}}
			st.Causes.ANRs = []causes.ANR{{PID: 42, Reason: "Input dispatching timed out"}}
		}
		if _, err := s.Add(context.Background(), RunOf(result("TestFeed", "Pixel 7", t0.Add(time.Duration(i)*time.Hour), st), Meta{Commit: commitOf(i)})); err != nil {
			t.Fatal(err)
		}
	}
	var trends []Trend
	for _, tr := range trendsOf(t, s, Filter{Test: "TestFeed"}) {
		trends = append(trends, tr)
	}
	sugs, skipped := Suggest(trends, SuggestOptions{})
	got := map[string]Suggestion{}
	for _, sg := range sugs {
		got[sg.Metric] = sg
	}
	for _, m := range []string{"crashes", "anrs", "frozen_frames"} {
		if sg, ok := got[m]; !ok || sg.Limit != 0 || sg.Level != 1 || !sg.Never {
			t.Errorf("%s: %+v (skipped %q)", m, sg, skipped)
		}
	}
	if sg := got["slow_frames"]; sg.Limit != 4 || sg.Never {
		t.Errorf("slow_frames, a count of 3 each run: %+v, want ≤ 4", sg)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

package history

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/budget"
	resultpkg "github.com/perfgate/perfgate/result"
)

// stepAt is the run at which the generated history's frame time rises.
const stepAt = 25

// fillHistory adds 40 runs of TestFeed on a Pixel 7, one commit each: the
// scroll step repeated 3 times, frame_time_p95 near 18 ms with 5 % noise
// per iteration and 20 % higher from run stepAt on, CPU flat; run 10
// measured no frames (a gap, not a zero).
func fillHistory(t *testing.T, s *Store) { t.Helper(); fillHistoryBy(t, s, 1.2) }

// fillHistoryBy is fillHistory with the frame time times factor from run
// stepAt on.
func fillHistoryBy(t *testing.T, s *Store, factor float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 12))
	for i := range 40 {
		level := 18.0
		if i >= stepAt {
			level *= factor
		}
		var steps []*resultpkg.Step
		for it := range 3 {
			name := "scroll"
			if it > 0 {
				name += "#" + string(rune('1'+it))
			}
			st := scrollStep(name, level*(1+0.05*rng.NormFloat64()), 7*(1+0.05*rng.NormFloat64()))
			if i == 10 {
				st.FrameStats.Frames = 0
			}
			steps = append(steps, st)
		}
		r := result("TestFeed", "Pixel 7", t0.Add(time.Duration(i)*time.Hour), steps...)
		if _, err := s.Add(context.Background(), RunOf(r, Meta{Commit: commitOf(i), Branch: "main", ReportURL: "https://ci.example/" + commitOf(i) + "/TestFeed.html"})); err != nil {
			t.Fatal(err)
		}
	}
}

func trendsOf(t *testing.T, s *Store, f Filter) map[string]Trend {
	t.Helper()
	series, err := s.Series(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Trend{}
	for _, sr := range series {
		out[sr.Metric] = Analyze(sr, TrendOptions{})
	}
	return out
}

// The trend of a stored history names the commit where the frame time
// rose, its size with an interval that holds the truth, and p; the flat
// CPU series has no change point; both stores give the same answer.
func TestTrendFindsTheCommit(t *testing.T) {
	forEachStore(t, func(t *testing.T, k storeKind) {
		s := k.open(t, "h")
		fillHistory(t, s)
		trends := trendsOf(t, s, Filter{Test: "TestFeed", Step: "scroll"})
		ft := trends["frame_time_p95"]
		if len(ft.Points) != 39 {
			t.Fatalf("frame_time_p95: %d points, want 39 (run 10 measured no frames)", len(ft.Points))
		}
		if len(ft.Changes) != 1 {
			t.Fatalf("frame_time_p95: %d change points, want 1: %+v", len(ft.Changes), ft.Changes)
		}
		c := ft.Changes[0]
		if c.First.Commit != commitOf(stepAt) || c.Last.Commit != commitOf(stepAt-1) {
			t.Errorf("change at %s (after %s), want %s", c.First.Commit, c.Last.Commit, commitOf(stepAt))
		}
		if !c.Regression || c.Improvement || c.Low > 20 || c.High < 20 || c.P > 0.002 {
			t.Errorf("change %+.1f%% [%+.1f, %+.1f], p %v, regression %v", c.ChangePct, c.Low, c.High, c.P, c.Regression)
		}
		if cpu := trends["cpu"]; len(cpu.Points) != 40 || len(cpu.Changes) != 0 {
			t.Errorf("cpu: %d points, changes %+v; want 40 and none", len(cpu.Points), cpu.Changes)
		}
		want := "frame_time_p95 of scroll rose "
		if got := c.Sentence(ft.Key); !strings.HasPrefix(got, want) || !regexp.MustCompile(` at c00025, p = [1-9]e-(0[4-9]|1\d)$`).MatchString(got) {
			t.Errorf("sentence %q", got)
		}
	})
}

// The digest lists the regression with its sentence, levels and link, and
// nothing once -since is past it.
func TestDigest(t *testing.T) {
	s := storeKind{dsn: func(t *testing.T, _ string) string { return filepath.Join(t.TempDir(), "h.db") }}.open(t, "h")
	fillHistory(t, s)
	var trends []Trend
	for _, tr := range trendsOf(t, s, Filter{}) {
		trends = append(trends, tr)
	}
	var b strings.Builder
	if err := WriteDigest(&b, trends, DigestOptions{TrendLink: "https://ci.example/trends/"}); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{"## perfgate history", "1 change points in", "1 of them for the worse",
		`- ❌ **frame\_time\_p95 of scroll rose `, ` at c00025, p = `, `** (TestFeed, Pixel 7): `, "ms → ", "95% CI ",
		"[trend](https://ci.example/trends/trend-frame_time_p95.html)"} {
		if !strings.Contains(md, want) {
			t.Errorf("digest lacks %q:\n%s", want, md)
		}
	}
	b.Reset()
	WriteDigest(&b, trends, DigestOptions{Since: t0.Add(30 * time.Hour)})
	if !strings.Contains(b.String(), "No change points since 2026-11-02T15:00:00Z") {
		t.Errorf("digest since after the change:\n%s", b.String())
	}
}

// The trend page of a metric: script-free SVG, every run a link to its
// report, the change point marked and labelled, the budget drawn.
func TestPages(t *testing.T) {
	s := storeKind{dsn: func(t *testing.T, _ string) string { return filepath.Join(t.TempDir(), "h.db") }}.open(t, "h")
	fillHistory(t, s)
	var trends []Trend
	for _, tr := range trendsOf(t, s, Filter{}) {
		trends = append(trends, tr)
	}
	dir := t.TempDir()
	lim, _ := budget.ParseLimit("scroll:frame_time_p95<=25")
	if err := WritePages(dir, trends, PageOptions{Budgets: []budget.Limit{lim}}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "trend-frame_time_p95.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	if strings.Contains(strings.ToLower(page), "<script") {
		t.Error("the page has a script")
	}
	for _, want := range []string{`<svg`, `class="change"`, ` at c00025, p = `, `<a href="https://ci.example/c00024/TestFeed.html"><circle class="run"`,
		`class="budget"`, `budget frame_time_p95 ≤ 25`, `class="level"`, "TestFeed · scroll · Pixel 7"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if n := strings.Count(page, `<circle class="run"`); n != 39 {
		t.Errorf("%d run points, want 39", n)
	}
	idx, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil || !strings.Contains(string(idx), `<a href="trend-frame_time_p95.html">frame_time_p95</a>`) {
		t.Errorf("index: %v\n%s", err, idx)
	}
}

// Budgets suggested from history rest on the runs since the latest change
// point (here the frame time fell 20 %), hold every one of them, and come
// with the usual headroom.
func TestSuggest(t *testing.T) {
	s := storeKind{dsn: func(t *testing.T, _ string) string { return filepath.Join(t.TempDir(), "h.db") }}.open(t, "h")
	fillHistoryBy(t, s, 1/1.2)
	got := suggestionsOf(t, s)
	ft, ok := got["frame_time_p95"]
	if !ok {
		t.Fatalf("no frame_time_p95 budget: %+v", got)
	}
	if !ft.AfterChange || ft.Regression != nil || ft.Runs != 40-stepAt || ft.From.Commit != commitOf(stepAt) {
		t.Errorf("frame_time_p95 rests on %d runs from %s (after change %v), want %d from %s", ft.Runs, ft.From.Commit, ft.AfterChange, 40-stepAt, commitOf(stepAt))
	}
	tr := trendsOf(t, s, Filter{Test: "TestFeed", Step: "scroll", Metric: "frame_time_p95"})["frame_time_p95"]
	for _, p := range tr.Points[len(tr.Points)-ft.Runs:] {
		if p.Value > ft.Limit {
			t.Errorf("run %s at %v breaks the suggested budget %v", p.Commit, p.Value, ft.Limit)
		}
	}
	if ft.Min || math.Abs(ft.Limit/ft.Level-1.1) > 0.01 {
		t.Errorf("limit %v over level %v, want +10 %%", ft.Limit, ft.Level)
	}
	if fps, ok := got["fps"]; !ok || !fps.Min {
		t.Errorf("fps budget is not a floor: %+v", fps)
	}
	if _, ok := got["frames"]; ok {
		t.Error("a budget on frames, a context metric")
	}
	var sugs []Suggestion
	for _, sg := range got {
		sugs = append(sugs, sg)
	}
	f, err := BudgetFile(sugs)
	if err != nil {
		t.Fatal(err)
	}
	if e := f.Steps["scroll"]["frame_time_p95"]; e == nil || e.Max == nil || *e.Max != ft.Limit || e.Unit != "ms" {
		t.Errorf("budget file entry: %+v", e)
	}
}

// suggestionsOf suggests budgets for TestFeed's scroll step, by metric.
func suggestionsOf(t *testing.T, s *Store) map[string]Suggestion {
	t.Helper()
	var trends []Trend
	for _, tr := range trendsOf(t, s, Filter{Test: "TestFeed", Step: "scroll"}) {
		trends = append(trends, tr)
	}
	sugs, _ := Suggest(trends, SuggestOptions{})
	got := map[string]Suggestion{}
	for _, sg := range sugs {
		got[sg.Metric] = sg
	}
	return got
}

// After a change for the worse (frame time up 20 % at stepAt) the budget
// is not taken from the new level, which would bless it: it rests on the
// runs before the change, which it holds, the level since breaks it, and its
// line names the change and says how to accept it instead.
func TestSuggestAfterRegression(t *testing.T) {
	s := storeKind{dsn: func(t *testing.T, _ string) string { return filepath.Join(t.TempDir(), "h.db") }}.open(t, "h")
	fillHistory(t, s)
	ft := suggestionsOf(t, s)["frame_time_p95"]
	tr := trendsOf(t, s, Filter{Test: "TestFeed", Step: "scroll", Metric: "frame_time_p95"})["frame_time_p95"]
	if ft.Regression == nil || ft.Regression.First.Commit != commitOf(stepAt) || ft.AfterChange {
		t.Fatalf("frame_time_p95 after its rise: %+v", ft)
	}
	at := ft.Regression.Index
	if ft.Runs != 20 || tr.Points[at-ft.Runs].Commit != ft.From.Commit {
		t.Errorf("rests on %d runs from %s, want the 20 before index %d", ft.Runs, ft.From.Commit, at)
	}
	for _, p := range tr.Points[at-ft.Runs : at] {
		if p.Value > ft.Limit {
			t.Errorf("run %s at %v, before the change, breaks the budget %v", p.Commit, p.Value, ft.Limit)
		}
	}
	if after := ft.Regression.After.Center; after <= ft.Limit {
		t.Errorf("the level since the change, %v, holds the budget %v", after, ft.Limit)
	}
	line := ft.Line()
	if !contains(line, "BEFORE ITS CHANGE FOR THE WORSE", "frame_time_p95 of scroll rose", "at "+commitOf(stepAt), "-from "+tr.Points[at].Time.UTC().Format(time.RFC3339)) {
		t.Errorf("line: %s", line)
	}
}

// AddFromEnv adds a Result to $PERFGATE_HISTORY,
// with the commit and branch from the environment and a link to its
// report.
func TestAddFromEnv(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.db")
	t.Setenv(resultpkg.EnvHistory, path)
	t.Setenv(EnvCommit, "0123456789abcdef0123456789abcdef01234567")
	t.Setenv(EnvBranch, "main")
	t.Setenv(EnvAppVersion, "2.0.1")
	t.Setenv(resultpkg.EnvReport, "/tmp/reports")
	t.Setenv(EnvReportURL, "https://ci.example/run/7/")
	r := result("TestFeed/fast", "Pixel 7", t0, scrollStep("scroll", 18, 5))
	if err := AddFromEnv(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	s := storeKind{dsn: func(*testing.T, string) string { return path }}.open(t, "h")
	sr, err := s.Series(context.Background(), Filter{Metric: "frame_time_p95"})
	if err != nil || len(sr) != 1 || len(sr[0].Points) != 1 {
		t.Fatalf("series %+v, %v", sr, err)
	}
	p := sr[0].Points[0]
	if p.Commit != "0123456789abcdef0123456789abcdef01234567" || p.Branch != "main" || p.AppVersion != "2.0.1" || p.ReportURL != "https://ci.example/run/7/TestFeed_fast.html" {
		t.Errorf("point %+v", p)
	}
	t.Setenv(resultpkg.EnvHistory, "")
	if err := AddFromEnv(context.Background(), result("TestOther", "Pixel 7", t0)); err != nil {
		t.Errorf("unset: %v", err)
	}
}

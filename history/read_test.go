package history

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/metrics"
)

// Store.Trends reads a long history in bounded memory: every run's value
// goes into change point detection, but only each series' newest runs, and
// the runs on either side of its change points, are read in full. Its
// trends are those of reading every run in full (Series, then Analyze):
// the same values, the same change points at the same runs and commits.
// The runs are added out of order, so the values come back in the order
// of the table, not of time; and the values are read in two parts at once.
func TestTrendsBounded(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const n = 5200 // 10,600 values: read in two parts
	rng := rand.New(rand.NewPCG(5, 6))
	runs := make([]Run, n)
	for i := range runs {
		p95 := 18.0
		switch {
		case i >= 2200:
			p95 = 18 * 1.2 * 0.85
		case i >= 700:
			p95 = 18 * 1.2
		}
		runs[i] = Run{ID: fmt.Sprintf("r%04d", i), Test: "TestFeed@feed", Commit: commitOf(i), Branch: "main", Time: t0.Add(time.Duration(i) * time.Minute),
			Device: "Pixel 7", ReportURL: fmt.Sprintf("https://ci.example/%d.html", i), AppVersion: "1.0",
			Values: []Value{
				{Step: "scroll", Metric: "frame_time_p95", Value: p95 * (1 + 0.03*rng.NormFloat64()), Iterations: 1 + i%5, Unit: "ms", Definition: "frame duration", Better: metrics.Lower},
				{Step: "scroll", Metric: "cpu", Value: 30 * (1 + 0.03*rng.NormFloat64()), Iterations: 3, Unit: "%", Definition: "app cpu", Better: metrics.Lower},
			}}
	}
	// Another test's runs, with steps named as nobody would, and the runs
	// of this one in a shuffled order.
	odd := []string{"launch", "a:b", "1:xy", "ünï:", "x\xffy"}
	for i := range 200 {
		runs = append(runs, Run{ID: fmt.Sprintf("o%04d", i), Test: "TestOther@feed", Time: t0.Add(time.Duration(i) * time.Minute), Device: "Pixel 7",
			Values: []Value{{Step: odd[i%len(odd)], Metric: "cpu", Value: 10, Iterations: 1}, {Step: odd[i%len(odd)], Metric: ":", Value: 1, Iterations: 1}}})
	}
	rng.Shuffle(len(runs), func(i, j int) { runs[i], runs[j] = runs[j], runs[i] })
	for from := 0; from < len(runs); from += 1000 {
		if _, err := s.AddRuns(ctx, runs[from:min(from+1000, len(runs))]); err != nil {
			t.Fatal(err)
		}
	}
	f := Filter{Test: "TestFeed"}
	full, err := s.Series(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Trends(ctx, f, TrendOptions{Last: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(full) != 2 || len(got) != 2 {
		t.Fatalf("%d series read in full, %d trends; want 2", len(full), len(got))
	}
	for i, tr := range got {
		want := Analyze(full[i], TrendOptions{})
		if tr.Key != want.Key || tr.Unit != want.Unit || tr.Definition != want.Definition || tr.Better != want.Better {
			t.Errorf("%v: %s %s %v, want %v %s %s %v", tr.Key, tr.Unit, tr.Definition, tr.Better, want.Key, want.Unit, want.Definition, want.Better)
		}
		if tr.Len() != n || tr.Older != n-100 || !reflect.DeepEqual(tr.Points, want.Points[n-100:]) {
			t.Fatalf("%v: %d runs, %d older, %d points; want %d, %d and the newest 100 in full", tr.Key, tr.Len(), tr.Older, len(tr.Points), n, n-100)
		}
		for k := range n {
			if tr.Value(k) != want.Points[k].Value || !tr.Time(k).Equal(want.Points[k].Time) {
				t.Fatalf("%v: run %d: %v at %v, want %v at %v", tr.Key, k, tr.Value(k), tr.Time(k), want.Points[k].Value, want.Points[k].Time)
			}
		}
		if !reflect.DeepEqual(tr.Changes, want.Changes) {
			t.Errorf("%v: changes\n%+v\nwant\n%+v", tr.Key, tr.Changes, want.Changes)
		}
	}
	// The truth: frame_time_p95 changed at runs 700 and 2200, which are
	// older than the 100 read in full; cpu never changed.
	var at []int
	for _, c := range got[1].Changes {
		at = append(at, c.Index)
		if c.First.Commit != commitOf(c.Index) || c.Last.Commit != commitOf(c.Index-1) || c.First.ReportURL == "" || c.First.Iterations != 1+c.Index%5 {
			t.Errorf("change at %d: first run %+v, last %+v", c.Index, c.First, c.Last)
		}
	}
	if got[1].Metric != "frame_time_p95" || fmt.Sprint(at) != "[700 2200]" || len(got[0].Changes) != 0 {
		t.Errorf("%s changes at %v, %s at %d changes; want [700 2200] and none", got[1].Metric, at, got[0].Metric, len(got[0].Changes))
	}
	other, err := s.Trends(ctx, Filter{Test: "TestOther"}, TrendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, tr := range other {
		keys = append(keys, fmt.Sprintf("%q/%q:%d", tr.Step, tr.Metric, tr.Len()))
	}
	want := []string{`"1:xy"/":":40`, `"1:xy"/"cpu":40`, `"a:b"/":":40`, `"a:b"/"cpu":40`, `"launch"/":":40`, `"launch"/"cpu":40`,
		`"x\xffy"/":":40`, `"x\xffy"/"cpu":40`, `"ünï:"/":":40`, `"ünï:"/"cpu":40`}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("series\n%s\nwant\n%s", keys, want)
	}
	// A commit's first run, found by its prefix, however old.
	if first, ok, err := s.FirstRun(ctx, f, commitOf(5)); err != nil || !ok || !first.Equal(t0.Add(5*time.Minute)) {
		t.Errorf("FirstRun(%s) = %v, %v, %v", commitOf(5), first, ok, err)
	}
	if _, ok, err := s.FirstRun(ctx, Filter{Test: "TestOther"}, commitOf(5)); err != nil || ok {
		t.Errorf("FirstRun of a commit another test ran: %v, %v", ok, err)
	}
}

// A trend page stays small however long the history: a series' newest
// runs are points, the older ones at most maxSpans bars, and the table
// lists the newest maxListed change points. The page says so.
func TestTrendPageBounded(t *testing.T) {
	const n, last = 20_000, 500
	rng := rand.New(rand.NewPCG(7, 8))
	s := Series{Key: Key{Test: "TestFeed@feed", Step: "scroll", Metric: "frame_time_p95", Device: "Pixel 7"}, Unit: "ms", Definition: "frame duration", Better: metrics.Lower,
		Older: n - last, values: make([]float64, n), times: make([]int64, n)}
	for i := range n {
		level := 18.0
		if (i/300)%2 == 1 {
			level = 22 // a change every 300 runs
		}
		s.values[i] = level * (1 + 0.02*rng.NormFloat64())
		s.times[i] = t0.Add(time.Duration(i) * time.Minute).UnixNano()
		if i >= n-last {
			s.Points = append(s.Points, Point{RunID: fmt.Sprint(i), Commit: commitOf(i), Time: time.Unix(0, s.times[i]).UTC(), Value: s.values[i], Iterations: 5,
				ReportURL: fmt.Sprintf("https://ci.example/runs/%d/TestFeed@feed.html", i)})
		}
	}
	s.values = s.values[:n]
	tr := Analyze(s, TrendOptions{})
	if len(tr.Changes) < 60 {
		t.Fatalf("%d change points, want one every 300 runs", len(tr.Changes))
	}
	var b bytes.Buffer
	if err := WritePage(&b, "frame_time_p95", []Trend{tr}, PageOptions{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	t.Logf("%d runs, %d change points: a page of %d KB", n, len(tr.Changes), b.Len()>>10)
	if b.Len() > 300<<10 {
		t.Errorf("the page is %d KB", b.Len()>>10)
	}
	if c := strings.Count(page, `<circle class="run"`); c != last {
		t.Errorf("%d runs drawn as points, want the newest %d", c, last)
	}
	if g := strings.Count(page, `<g class="older">`); g != maxSpans {
		t.Errorf("%d bars for the older runs, want %d", g, maxSpans)
	}
	if r := strings.Count(page, "<tr><td>"); r != maxListed {
		t.Errorf("%d change points listed, want the newest %d", r, maxListed)
	}
	for _, want := range []string{"20000 runs, 2026-11-01 … 2026-11-15: the newest 500 are points, the 19500 before them are summarised in stretches of about 195.",
		fmt.Sprintf("%d earlier change points are not listed", len(tr.Changes)-maxListed), "history html -last N", "19500 older runs"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

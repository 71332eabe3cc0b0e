package history

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// textTrends are the trends of fillHistory and one more run of no commit
// of frame_time_p95 (which changed), fps and frames (which the run of no
// commit has), the newest last runs of each read in full (-1: all).
func textTrends(t *testing.T, last int) []Trend {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	fillHistory(t, s)
	r := result("TestFeed", "Pixel 7", t0.Add(40*time.Hour), scrollStep("scroll", 21.5, 7))
	if _, err := s.Add(context.Background(), RunOf(r, Meta{Branch: "main"})); err != nil {
		t.Fatal(err)
	}
	trends, err := s.Trends(context.Background(), Filter{Test: "TestFeed"}, TrendOptions{Last: last})
	if err != nil {
		t.Fatal(err)
	}
	var out []Trend
	for _, tr := range trends {
		if tr.Metric == "frame_time_p95" || tr.Metric == "fps" || tr.Metric == "frames" {
			out = append(out, tr)
		}
	}
	return out
}

// addedFiles are what AddFiles says of files: added, with notes; there
// already, of no commit; skipped.
var addedFiles = []AddedFile{
	{Path: "out/feed.json", New: true, Run: &Run{ID: "r1", Commit: "abc1234", Values: make([]Value, 12), Notes: []string{"step scroll#2: kept as scroll", "trace: not kept"}}},
	{Path: "out/feed.2.json", Run: &Run{ID: "r2", Values: make([]Value, 3)}},
	{Path: "out/notes.json", Skipped: "not a perfgate Result (no schema)"},
}

// The text of trends, suggestions and added files, line by line, as
// perfgate history trend, budget and add print them: the series alone,
// and with the newest runs (the older summarised); a suggestion after a
// change at a commit and at a run of no commit.
func TestText(t *testing.T) {
	var b strings.Builder
	for _, c := range []struct {
		last   int
		series bool
	}{{-1, false}, {5, false}, {5, true}} {
		trends := textTrends(t, c.last)
		fmt.Fprintf(&b, "== last %d, series %v\n", c.last, c.series)
		for _, tr := range trends {
			if err := tr.WriteText(&b, c.series); err != nil {
				t.Fatal(err)
			}
		}
		if !c.series {
			continue
		}
		fmt.Fprintf(&b, "== suggestions\n")
		sugs, skipped := Suggest(trends, SuggestOptions{Last: 20, MinRuns: 5, Pct: 10})
		for _, sk := range skipped {
			fmt.Fprintf(&b, "no budget: %s\n", sk)
		}
		for _, sg := range sugs {
			fmt.Fprintln(&b, sg.Line())
		}
		for i, sg := range sugs {
			sg.AfterChange = true
			if i == 0 {
				sg.From.Commit = ""
			}
			fmt.Fprintln(&b, sg.Line())
		}
	}
	fmt.Fprintf(&b, "== added\n")
	for _, a := range addedFiles {
		if err := a.WriteText(&b); err != nil {
			t.Fatal(err)
		}
	}
	got, want := strings.Split(b.String(), "\n"), strings.Split(wantText, "\n")
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("line %d:\ngot  %q\nwant %q", i+1, g, w)
		}
	}
}

// wantText is what perfgate history printed for textTrends, their
// suggestions and addedFiles before the text moved into this package.
const wantText = `== last -1, series false
TestFeed scroll fps on Pixel 7 (fps, (n−1)/(t[n−1]−t[0]), gfxinfo): 40 runs, 2026-11-01 … 2026-11-03
TestFeed scroll frame_time_p95 on Pixel 7 (ms, frame duration, nearest rank): 40 runs, 2026-11-01 … 2026-11-03
  change: frame_time_p95 of scroll rose 21% at c00025, p = 2e-07: 17.9ms → 21.59ms (+20.6%, 95% CI +17.7% … +22.9%; 24 runs before, 16 after) — for the worse
TestFeed scroll frames on Pixel 7 (frames, gfxinfo): 41 runs, 2026-11-01 … 2026-11-03
== last 5, series false
TestFeed scroll fps on Pixel 7 (fps, (n−1)/(t[n−1]−t[0]), gfxinfo): 40 runs, 2026-11-01 … 2026-11-03
TestFeed scroll frame_time_p95 on Pixel 7 (ms, frame duration, nearest rank): 40 runs, 2026-11-01 … 2026-11-03
  change: frame_time_p95 of scroll rose 21% at c00025, p = 2e-07: 17.9ms → 21.59ms (+20.6%, 95% CI +17.7% … +22.9%; 24 runs before, 16 after) — for the worse
TestFeed scroll frames on Pixel 7 (frames, gfxinfo): 41 runs, 2026-11-01 … 2026-11-03
== last 5, series true
TestFeed scroll fps on Pixel 7 (fps, (n−1)/(t[n−1]−t[0]), gfxinfo): 40 runs, 2026-11-01 … 2026-11-03
  2026-11-01 09:00 … 2026-11-02 20:00  35 older runs: median 60, 60 … 60 (-last 40 prints them)
  2026-11-02 21:00  c00036       60 (median of 3)
  2026-11-02 22:00  c00037       60 (median of 3)
  2026-11-02 23:00  c00038       60 (median of 3)
  2026-11-03 00:00  c00039       60 (median of 3)
  2026-11-03 01:00  (none)       60 (median of 1)
TestFeed scroll frame_time_p95 on Pixel 7 (ms, frame duration, nearest rank): 40 runs, 2026-11-01 … 2026-11-03
  2026-11-01 09:00 … 2026-11-02 20:00  35 older runs: median 18.34, 16.87 … 22.73 (-last 40 prints them)
  2026-11-02 21:00  c00036       19.76 (median of 3)
  2026-11-02 22:00  c00037       21.2 (median of 3)
  2026-11-02 23:00  c00038       22.85 (median of 3)
  2026-11-03 00:00  c00039       21.76 (median of 3)
  2026-11-03 01:00  (none)       21.5 (median of 1)
  change: frame_time_p95 of scroll rose 21% at c00025, p = 2e-07: 17.9ms → 21.59ms (+20.6%, 95% CI +17.7% … +22.9%; 24 runs before, 16 after) — for the worse
TestFeed scroll frames on Pixel 7 (frames, gfxinfo): 41 runs, 2026-11-01 … 2026-11-03
  2026-11-01 09:00 … 2026-11-02 20:00  36 older runs: median 120, 0 … 120 (-last 41 prints them)
  2026-11-02 21:00  c00036       120 (median of 3)
  2026-11-02 22:00  c00037       120 (median of 3)
  2026-11-02 23:00  c00038       120 (median of 3)
  2026-11-03 00:00  c00039       120 (median of 3)
  2026-11-03 01:00  (none)       120 (median of 1)
== suggestions
scroll fps ≥ 54: level 60 over 20 runs
scroll frame_time_p95 ≤ 20.9: level 18.98 over 20 runs, the runs BEFORE ITS CHANGE FOR THE WORSE: frame_time_p95 of scroll rose 21% at c00025, p = 2e-07: 17.9ms → 21.59ms (+20.6%, 95% CI +17.7% … +22.9%; 24 runs before, 16 after); the app is over this budget until that is fixed (to accept the new level instead, -from 2026-11-02T10:00:00Z reads the runs since)
scroll fps ≥ 54: level 60 over 20 runs, since its change at (none)
scroll frame_time_p95 ≤ 20.9: level 18.98 over 20 runs, the runs BEFORE ITS CHANGE FOR THE WORSE: frame_time_p95 of scroll rose 21% at c00025, p = 2e-07: 17.9ms → 21.59ms (+20.6%, 95% CI +17.7% … +22.9%; 24 runs before, 16 after); the app is over this budget until that is fixed (to accept the new level instead, -from 2026-11-02T10:00:00Z reads the runs since)
== added
added out/feed.json: run r1, commit abc1234, 12 values
  note: step scroll#2: kept as scroll
  note: trace: not kept
already there out/feed.2.json: run r2, commit (none), 3 values
skipped out/notes.json: not a perfgate Result (no schema)
`

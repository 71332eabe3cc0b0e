package history

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/perfgate/perfgate/metrics"
)

// WriteText writes the trend as lines of plain text: the series, its unit,
// definition, runs and dates; with runs set, its Older runs summarised on
// a line and each run read in full on one of its own; then each change
// point as a sentence with its detail, said to be for the worse or the
// better where the metric has a direction.
func (t Trend) WriteText(w io.Writer, runs bool) error {
	var b strings.Builder
	n := t.Len()
	fmt.Fprintf(&b, "%s (%s, %s): %d runs, %s … %s\n", t.Key, t.Unit, t.Definition, n, t.Time(0).UTC().Format("2006-01-02"), t.Time(n-1).UTC().Format("2006-01-02"))
	if runs {
		if t.Older > 0 {
			sp := t.Span(0, t.Older)
			fmt.Fprintf(&b, "  %s … %s  %d older runs: median %s, %s … %s (-last %d prints them)\n", sp.First.UTC().Format("2006-01-02 15:04"), sp.Last.UTC().Format("2006-01-02 15:04"),
				sp.Runs, metrics.FormatValue(sp.Median, ""), metrics.FormatValue(sp.Min, ""), metrics.FormatValue(sp.Max, ""), n)
		}
		for _, p := range t.Points {
			fmt.Fprintf(&b, "  %s  %-12s %s (median of %d)\n", p.Time.UTC().Format("2006-01-02 15:04"), orNone(p.Commit), metrics.FormatValue(p.Value, ""), p.Iterations)
		}
	}
	for _, c := range t.Changes {
		kind := ""
		switch {
		case c.Regression:
			kind = " — for the worse"
		case c.Improvement:
			kind = " — for the better"
		}
		fmt.Fprintf(&b, "  change: %s: %s%s\n", c.Sentence(t.Key), c.Detail(t.Unit), kind)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Line says the suggestion in a line: "scroll frame_time_p95 ≤ 25.2: level
// 22.8 over 16 runs, since its change at c00025"; a suggestion from before
// a change for the worse says so and how to accept the change instead.
func (s Suggestion) Line() string {
	op := "≤"
	if s.Min {
		op = "≥"
	}
	from := ""
	switch {
	case s.Regression != nil:
		c := s.Regression
		from = fmt.Sprintf(", the runs BEFORE ITS CHANGE FOR THE WORSE: %s: %s; the app is over this budget until that is fixed (to accept the new level instead, -from %s reads the runs since)",
			c.Sentence(s.Key), c.Detail(s.Unit), c.First.Time.UTC().Format(time.RFC3339))
	case s.AfterChange:
		from = ", since its change at " + orNone(s.From.Commit)
	}
	if s.Never {
		from += "; 0 as for every event that should never happen"
	}
	return fmt.Sprintf("%s %s %s %s: level %s over %d runs%s", s.Step, s.Metric, op, metrics.FormatValue(s.Limit, ""), metrics.FormatValue(s.Level, ""), s.Runs, from)
}

// WriteText writes what AddFiles did with the file as lines of text:
// "added path: run id, commit c, n values" ("already there" for a run the
// history had) and the run's notes, or "skipped path: why".
func (a AddedFile) WriteText(w io.Writer) error {
	var b strings.Builder
	if a.Run == nil {
		fmt.Fprintf(&b, "skipped %s: %s\n", a.Path, a.Skipped)
	} else {
		state := "already there"
		if a.New {
			state = "added"
		}
		fmt.Fprintf(&b, "%s %s: run %s, commit %s, %d values\n", state, a.Path, a.Run.ID, orNone(a.Run.Commit), len(a.Run.Values))
		for _, n := range a.Run.Notes {
			fmt.Fprintf(&b, "  note: %s\n", n)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// orNone is s, or "(none)" for an empty commit.
func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

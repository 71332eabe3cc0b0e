package history

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/perfgate/perfgate/frames"
)

// Span summarises consecutive runs of a series, runs [From, To) oldest
// first: when they started and their lowest, median (nearest rank, as
// everywhere in perfgate) and highest value.
type Span struct {
	From, To     int
	First, Last  time.Time
	Min, Max     float64
	Median       float64
	Runs         int
	ChangePoints int // change points among them (set by Trend.Spans)
}

// Span summarises runs [from, to) of s; from < to.
func (s *Series) Span(from, to int) Span {
	vs := make([]float64, 0, to-from)
	sp := Span{From: from, To: to, First: s.Time(from), Last: s.Time(to - 1), Runs: to - from}
	for i := from; i < to; i++ {
		v := s.Value(i)
		if i == from || v < sp.Min {
			sp.Min = v
		}
		if i == from || v > sp.Max {
			sp.Max = v
		}
		vs = append(vs, v)
	}
	sp.Median = frames.NearestRank(vs, 50)
	return sp
}

// OlderSpans cuts the runs before Points into at most n spans of about
// the same number of runs; none when Points hold every run.
func (s *Series) OlderSpans(n int) []Span {
	if s.Older == 0 || n <= 0 {
		return nil
	}
	n = min(n, s.Older)
	out := make([]Span, 0, n)
	for k := range n {
		out = append(out, s.Span(k*s.Older/n, (k+1)*s.Older/n))
	}
	return out
}

// Spans is OlderSpans counting the change points in each span.
func (t *Trend) Spans(n int) []Span {
	sp := t.OlderSpans(n)
	k := 0
	for i := range sp {
		for k < len(t.Changes) && t.Changes[k].Index < sp[i].To {
			if t.Changes[k].Index >= sp[i].From {
				sp[i].ChangePoints++
			}
			k++
		}
	}
	return sp
}

// FirstRun returns when the first run of a commit started among the runs
// f matches (and that measured f's step and metric, when it names them):
// commit is the full hash or a prefix of it. ok is false when there is
// none.
func (s *Store) FirstRun(ctx context.Context, f Filter, commit string) (first time.Time, ok bool, err error) {
	conds, args := f.runConds()
	conds = append(conds, "(r.commit_sha = ? OR r.commit_sha LIKE ? ESCAPE '\\')")
	args = append(args, commit, likeEscape(commit)+"%")
	if vc, va := f.valueConds(); len(vc) > 0 {
		conds = append(conds, "r.id IN (SELECT v.run_id FROM run_values v"+whereOf(vc)+")")
		args = append(args, va...)
	}
	var started sql.NullString
	if err := s.db.QueryRowContext(ctx, s.bind(`SELECT MIN(r.started) FROM runs r`+whereOf(conds)), args...).Scan(&started); err != nil {
		return first, false, fmt.Errorf("history %s: first run of %s: %w", s.name, commit, err)
	}
	if !started.Valid {
		return first, false, nil
	}
	first, err = parseTime(started.String)
	if err != nil {
		return first, false, fmt.Errorf("history %s: first run of %s: start time %q: %w", s.name, commit, started.String, err)
	}
	return first, true, nil
}

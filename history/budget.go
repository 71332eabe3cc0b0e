package history

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/metrics"
)

// SuggestOptions shape budget suggestions. The zero value uses the last 20
// runs, at least 5 of them, and the headroom of recorded budgets: +10 %,
// +1 for counts; a negative Pct or Count means none.
type SuggestOptions struct {
	// Last is how many of the newest runs a budget is taken from.
	Last int
	// MinRuns is the fewest runs a budget may rest on.
	MinRuns int
	// Pct and Count are the headroom over the level, as in
	// budget.Headroom.
	Pct   float64
	Count int
}

func (o SuggestOptions) withDefaults() SuggestOptions {
	if o.Last <= 0 {
		o.Last = 20
	}
	if o.MinRuns <= 0 {
		o.MinRuns = 5
	}
	if o.Pct == 0 {
		o.Pct = 10
	}
	if o.Count == 0 {
		o.Count = 1
	}
	o.Pct, o.Count = max(o.Pct, 0), max(o.Count, 0)
	return o
}

// Suggestion is a budget suggested for one series.
type Suggestion struct {
	Key
	Unit, Definition string
	// Limit is a ceiling, or a floor when Min is set (higher is better).
	Limit float64
	Min   bool
	// Level is what the limit adds headroom to: the nearest-rank 95th
	// percentile of the runs (5th for floors).
	Level float64
	// Runs is how many runs it rests on, From the first of them;
	// AfterChange says older runs were left out because the metric changed
	// level at From.
	Runs        int
	From        Point
	AfterChange bool
}

// Suggest suggests a budget for every series of trends that has a
// direction (metrics that are only context get none), from its last
// o.Last runs but none before its latest change point: a budget should
// hold the level the app is at now. The level is the nearest-rank 95th
// percentile of those runs (the 5th where higher is better), so one run in
// twenty may touch it, and the headroom comes on top. Series with fewer
// than o.MinRuns such runs get none; skipped names them.
func Suggest(trends []Trend, o SuggestOptions) (out []Suggestion, skipped []string) {
	o = o.withDefaults()
	for _, t := range trends {
		if t.Better == metrics.Neither {
			continue
		}
		// Indexes over all the series' runs; a budget rests on runs read
		// in full (Points), which a bounded read keeps the newest of.
		from := max(t.Older, t.Len()-o.Last)
		after := false
		if k := len(t.Changes); k > 0 && t.Changes[k-1].Index > from {
			from, after = t.Changes[k-1].Index, true
		}
		pts := t.Points[from-t.Older:]
		if len(pts) < o.MinRuns {
			skipped = append(skipped, fmt.Sprintf("%s: %d runs at the current level, want %d", t.Key, len(pts), o.MinRuns))
			continue
		}
		vs := make([]float64, len(pts))
		for i, p := range pts {
			vs[i] = p.Value
		}
		s := Suggestion{Key: t.Key, Unit: t.Unit, Definition: t.Definition, Min: t.Better == metrics.Higher, Runs: len(pts), From: pts[0], AfterChange: after}
		def := metrics.Name(t.Metric).Def()
		count := def.Count
		switch {
		case s.Min:
			s.Level = frames.NearestRank(vs, 5)
			if count {
				s.Limit = math.Floor(s.Level) - float64(o.Count)
			} else {
				s.Limit = roundTo3(s.Level*(1-o.Pct/100), math.Floor)
			}
		default:
			s.Level = frames.NearestRank(vs, 95)
			switch {
			case def.Family == metrics.FamilyCrashes:
				// A crash that happened is no licence for more.
				s.Limit = s.Level
			case count:
				s.Limit = math.Ceil(s.Level) + float64(o.Count)
			default:
				s.Limit = roundTo3(s.Level*(1+o.Pct/100), math.Ceil)
			}
		}
		s.Limit = math.Max(0, s.Limit)
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Suggestion) int {
		return cmp.Or(cmp.Compare(a.Test, b.Test), cmp.Compare(a.Step, b.Step), cmp.Compare(a.Metric, b.Metric))
	})
	return out, skipped
}

// roundTo3 rounds v outwards (round is math.Ceil or math.Floor) to three
// significant digits.
func roundTo3(v float64, round func(float64) float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	scale := math.Pow(10, 2-math.Floor(math.Log10(math.Abs(v))))
	r, _ := strconv.ParseFloat(strconv.FormatFloat(round(math.Round(v*scale*1e6)/1e6)/scale, 'g', 3, 64), 64)
	return r
}

// BudgetFile turns suggestions for one test into a golden budget file
// (see package budget) holding the metrics a budget file can name. Steps
// of other tests are an error: one budget file serves one test or group.
func BudgetFile(sugs []Suggestion) (*budget.File, error) {
	f := &budget.File{Schema: budget.BudgetSchema, Steps: map[string]map[string]*budget.Entry{}}
	test := ""
	for _, s := range sugs {
		if test != "" && s.Test != test {
			return nil, fmt.Errorf("history budget: suggestions for tests %q and %q: pick one test", test, s.Test)
		}
		test = s.Test
		if !metrics.Name(s.Metric).Known() {
			continue
		}
		e := &budget.Entry{Unit: s.Unit, Definition: s.Definition}
		l := s.Limit
		if s.Min {
			e.Min = &l
		} else {
			e.Max = &l
		}
		if f.Steps[s.Step] == nil {
			f.Steps[s.Step] = map[string]*budget.Entry{}
		}
		f.Steps[s.Step][s.Metric] = e
	}
	return f, nil
}

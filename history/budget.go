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
	// Regression is the change for the worse the series' latest change
	// point is, when it is one: the budget then rests on the runs before
	// it, so that it fails the app until the change is fixed or accepted
	// (by reading the history from the change on), rather than bless it.
	Regression *Change
	// Never says the metric counts events that should never happen
	// (metrics.Def.Never): the limit is 0 whatever the runs saw.
	Never bool
}

// Suggest suggests a budget for every series of trends that has a
// direction (metrics that are only context get none), from its last
// o.Last runs but none before its latest change point: a budget should
// hold the level the app is at now. Where that change point is a change
// for the worse, the budget comes from the runs before it instead (at
// most o.Last, none before the change point before), and the suggestion
// names it. The level is the nearest-rank 95th percentile of those runs
// (the 5th where higher is better), so one run in twenty may touch it,
// and the headroom comes on top; a metric of events that should never
// happen gets 0. Series with fewer than o.MinRuns such runs get none;
// skipped names them.
func Suggest(trends []Trend, o SuggestOptions) (out []Suggestion, skipped []Skip) {
	o = o.withDefaults()
	for _, t := range trends {
		if t.Better == metrics.Neither {
			continue
		}
		s, from, to := suggestRuns(t, o.Last)
		if to-from < o.MinRuns {
			skipped = append(skipped, Skip{Key: t.Key, Runs: to - from, Want: o.MinRuns, Regression: s.Regression})
			continue
		}
		vs := make([]float64, 0, to-from)
		for i := from; i < to; i++ {
			vs = append(vs, t.Value(i))
		}
		s.Runs, s.From = len(vs), t.point(from)
		s.level(vs, o)
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Suggestion) int {
		return cmp.Or(cmp.Compare(a.Test, b.Test), cmp.Compare(a.Step, b.Step), cmp.Compare(a.Metric, b.Metric))
	})
	return out, skipped
}

// Skip is a series Suggest gives no budget: it has Runs runs at its
// current level (before its change for the worse, Regression, when its
// latest change point is one), fewer than the Want a budget rests on.
type Skip struct {
	Key
	Runs, Want int
	Regression *Change
}

func (k Skip) String() string {
	at := "at the current level"
	if c := k.Regression; c != nil {
		at = "before its change for the worse at " + shortCommit(c.First.Commit, c.First.RunID)
	}
	return fmt.Sprintf("%s: %d runs %s, want %d", k.Key, k.Runs, at, k.Want)
}

// suggestRuns is the suggestion for t without its level, and the runs
// [from, to) it rests on: the newest last runs since the latest change
// point, or those before it when it is a change for the worse.
func suggestRuns(t Trend, last int) (s Suggestion, from, to int) {
	s = Suggestion{Key: t.Key, Unit: t.Unit, Definition: t.Definition, Min: t.Better == metrics.Higher}
	from, to = max(0, t.Len()-last), t.Len()
	k := len(t.Changes)
	if k == 0 {
		return s, from, to
	}
	c := t.Changes[k-1]
	if c.Regression {
		s.Regression = &c
		lo := 0
		if k > 1 {
			lo = t.Changes[k-2].Index
		}
		return s, max(lo, c.Index-last), c.Index
	}
	if c.Index > from {
		from, s.AfterChange = c.Index, true
	}
	return s, from, to
}

// level sets the suggestion's level and limit from the values of its runs.
func (s *Suggestion) level(vs []float64, o SuggestOptions) {
	def := metrics.Name(s.Metric).Def()
	switch {
	case s.Min:
		s.Level = frames.NearestRank(vs, 5)
		if def.Count {
			s.Limit = math.Floor(s.Level) - float64(o.Count)
		} else {
			s.Limit = roundTo3(s.Level*(1-o.Pct/100), math.Floor)
		}
	default:
		s.Level = frames.NearestRank(vs, 95)
		switch {
		case def.Never():
			// A crash that happened is no licence for more.
			s.Limit, s.Never = 0, true
		case def.Count:
			s.Limit = math.Ceil(s.Level) + float64(o.Count)
		default:
			s.Limit = roundTo3(s.Level*(1+o.Pct/100), math.Ceil)
		}
	}
	s.Limit = math.Max(0, s.Limit)
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

package budget

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/metrics"
)

// Headroom is how much room a recorded budget leaves above (or, for
// floors such as FPS, below) the value measured: Pct percent for
// measurements, Count for counts (jank, crashes). The zero value means the
// default, +10 % and +1. CPU and traffic budgets of a step whose figures
// span n read intervals get at least 200/n percent (two intervals' worth,
// the sway of a step's edges); figures spanning under 10 intervals, and
// steps under 10 frames, get no such budgets at all.
type Headroom struct {
	Pct   float64
	Count int
}

func (h Headroom) withDefaults() Headroom {
	if h.Pct == 0 {
		h.Pct = 10
	}
	if h.Count == 0 {
		h.Count = 1
	}
	return h
}

// minBudgetFrames is how many frames a step needs before recording gives
// it frame budgets.
const minBudgetFrames = 10

// minBudgetSpan is how many read intervals a figure taken between reads
// (Def.Span: CPU shares, byte counts) needs before recording gives it a
// budget.
const minBudgetSpan = 10

// defaults are the catalogue's metrics that pick marks: those a step new to
// a budget file gets budgets for (metrics.Def.Budget), or those a gate
// records baselines of (metrics.Def.Gate), when measured.
func defaults(pick func(metrics.Def) bool) []metrics.Name {
	var out []metrics.Name
	for _, d := range metrics.Catalogue() {
		if pick(d) {
			out = append(out, d.Name)
		}
	}
	return out
}

// sectionDefaults are the section metrics among a step's measured names
// that pick marks: named by the session, they are in no catalogue, so
// the defaults take them from what the step measured.
func sectionDefaults[V any](measured map[metrics.Name]V, pick func(metrics.Def) bool) []metrics.Name {
	var out []metrics.Name
	for _, n := range slices.Sorted(maps.Keys(measured)) {
		if d := n.Def(); d.Family == metrics.FamilySections && pick(d) {
			out = append(out, n)
		}
	}
	return out
}

// Update is what a rewrite of a budget file from a run did.
type Update struct {
	// Path is the file rewritten (with the model, for a file with budgets
	// per model).
	Path string
	// Notes say each budget or baseline recorded, tightened, loosened or
	// kept, one line each: "perf budget tightened: scroll: jank 5 → 4
	// (measured 3)"; a budget rewrite that changed nothing says that in
	// one line ("perf budgets unchanged: the run kept all 12 in …").
	Notes []string
	// Refused are the changes the policy did not allow, each a failing
	// verdict (KindUpdate): a budget the run would loosen, nothing to
	// record.
	Refused []Verdict
}

// Policy says what a rewrite may do.
type Policy struct {
	// Loosen lets a rewrite loosen a budget; without it such a change is
	// refused, naming the old and the new value (PERFGATE_UPDATE=loosen).
	Loosen bool
}

// PolicyFromEnv is the policy PERFGATE_UPDATE asks for.
func PolicyFromEnv() Policy { return Policy{Loosen: Loosening()} }

// RecordBudgets rewrites the budgets of the budget file at path (a bare
// name is under testdata/, a {model} placeholder is the run's device
// model) from the run, with headroom h: it keeps the steps and metrics
// the file already has (a step new to the file gets the catalogue's usual
// budgets: jank, fps, frame_time_p95, …), keeps a budget the run meets
// within twice the headroom, tightens freely, and loosens only under
// p.Loosen. Steps the run did not finish, or whose actions failed, are
// not recorded: their figures are not the step's. The file is rewritten
// under its lock and only where a value changed.
func RecordBudgets(r Run, path string, h Headroom, p Policy) (Update, error) {
	path, err := ModelPath(path, r.RunDevice())
	if err != nil {
		return Update{}, err
	}
	rec := &recorder{path: Path(path), h: h.withDefaults(), p: p, byStep: map[string]map[metrics.Name]*worst{}}
	skipped := rec.collect(r.Measurements())
	where := rec.path
	err = UpdateBudgetFile(rec.path, func(f *File) error {
		steps, shared, w, err := rec.stepsOf(f, r.RunDevice().Name())
		if err != nil {
			return err
		}
		where = w
		for _, step := range rec.order {
			rec.recordStep(step, steps, shared)
		}
		return nil
	})
	if err != nil {
		return Update{Path: where}, err
	}
	u := Update{Path: where, Notes: skipped}
	for _, n := range rec.notes {
		u.Notes = append(u.Notes, fmt.Sprintf("%s (%s)", n, where))
	}
	if len(rec.notes)+len(rec.refused) == 0 {
		// A rewrite that changed nothing says so, rather than nothing.
		u.Notes = append(u.Notes, fmt.Sprintf("perf budgets unchanged: the run kept all %d in %s", rec.kept, where))
	}
	for _, c := range rec.refused {
		line := fmt.Sprintf("perf budget not loosened: %s; set %s=loosen to loosen it in %s", c, EnvUpdate, where)
		u.Refused = append(u.Refused, Verdict{Kind: KindUpdate, Status: Fail, From: where, Line: line})
	}
	return u, nil
}

// recorder rewrites the budgets of one budget file from a run: the worst
// value of each step's metrics over its repeats, then per budget a kept,
// tightened, loosened or refused limit.
type recorder struct {
	path   string
	h      Headroom
	p      Policy
	byStep map[string]map[metrics.Name]*worst
	order  []string // the steps, in the order the run measured them

	refused, notes []string
	kept           int // budgets the run left as they were
}

// worst is a metric's worst value over a step's repeats.
type worst struct {
	m     metrics.Metric
	value float64
	ticks float64 // fewest read intervals (Def.Span) of the repeats it was taken from
}

// collect takes the worst values of the run's complete measurements and
// says which steps it does not record.
func (rec *recorder) collect(ms []Measurement) (skipped []string) {
	for _, m := range ms {
		if m.Missing {
			continue
		}
		if m.Incomplete != "" {
			skipped = append(skipped, fmt.Sprintf("perf budget not recorded: %s: %s", m.Step, m.Incomplete))
			continue
		}
		rec.add(m)
	}
	return skipped
}

// add takes one measurement's figures into its step's worst values.
func (rec *recorder) add(m Measurement) {
	// A step that rendered a handful of frames (a tap, a key) gives
	// frame figures that come and go with timing: no frame budgets
	// are recorded for it.
	fewFrames := true
	if f, ok := m.Metric(metrics.Frames); ok && f.Value >= minBudgetFrames {
		fewFrames = false
	}
	// Likewise a figure taken between the reads around the step (a
	// CPU share, a byte count) over fewer than ten read intervals (a
	// second of CPU ticks at the default 100 ms; the tail of a
	// session, a key press, a fling) gets no budget: it hangs on where
	// the reads fall, 0 % in one run and 1.3 % in the next.
	span := func(d metrics.Def) float64 {
		n, _ := m.Metric(d.Span)
		return n.Value
	}
	step := metrics.BaseStep(m.Step)
	if rec.byStep[step] == nil {
		rec.byStep[step] = map[metrics.Name]*worst{}
		rec.order = append(rec.order, step)
	}
	for _, x := range m.Metrics {
		if !x.Name.Known() || fewFrames && x.FromFrames() || x.Span != "" && span(x.Def) < minBudgetSpan {
			continue
		}
		w := rec.byStep[step][x.Name]
		switch {
		case w == nil:
			rec.byStep[step][x.Name] = &worst{x, x.Value, span(x.Def)}
			continue
		case x.Floor():
			w.value = math.Min(w.value, x.Value)
		default:
			w.value = math.Max(w.value, x.Value)
		}
		w.ticks = math.Min(w.ticks, span(x.Def))
	}
}

// stepsOf are the budgets of f the run records, those it shares with
// other models, and where they are, for the run's device model.
func (rec *recorder) stepsOf(f *File, model string) (steps, shared map[string]map[string]*Entry, where string, err error) {
	if f.Models == nil {
		return f.Steps, nil, rec.path, nil
	}
	// A file with budgets per model records the model it ran on.
	if model == "" {
		return nil, nil, rec.path, fmt.Errorf("perf budget file %s holds budgets per model, and the run's device has no model name to record them under", rec.path)
	}
	mb := f.Models[model]
	if mb == nil {
		mb = &ModelBudgets{Steps: map[string]map[string]*Entry{}}
		f.Models[model] = mb
	}
	return mb.Steps, f.Steps, fmt.Sprintf("%s, model %q", rec.path, model), nil
}

// wanted lists the metrics of entries that have a limit.
func wanted(entries map[string]*Entry) []metrics.Name {
	var want []metrics.Name
	for _, n := range slices.Sorted(maps.Keys(entries)) {
		if _, has := entries[n].Limit(n); has {
			want = append(want, metrics.Name(n))
		}
	}
	return want
}

// recordStep records the budgets of one step: the metrics it has limits
// for, else those of the shared budgets of the step (a model new to the
// file), else the catalogue's usual ones.
func (rec *recorder) recordStep(step string, steps, shared map[string]map[string]*Entry) {
	entries := steps[step]
	want := wanted(entries)
	if len(want) == 0 {
		want = wanted(shared[step])
	}
	if len(want) == 0 {
		pick := func(d metrics.Def) bool { return d.Budget }
		want = append(defaults(pick), sectionDefaults(rec.byStep[step], pick)...)
	}
	if entries == nil {
		entries = map[string]*Entry{}
		steps[step] = entries
	}
	for _, n := range want {
		w := rec.byStep[step][n]
		if w == nil {
			continue
		}
		e := entries[string(n)]
		if e == nil {
			e = &Entry{}
			entries[string(n)] = e
		}
		rec.record(step, n, w, e)
	}
}

// record sets one budget from the worst value measured, or keeps it.
func (rec *recorder) record(step string, n metrics.Name, w *worst, e *Entry) {
	hn := rec.h
	if w.m.Span != "" {
		// A CPU share or byte count is taken between whole
		// reads: the reads at the step's two edges hold time
		// outside it, so the figure can move by two intervals'
		// worth, 2/n of itself, between runs that did the same
		// work.
		hn.Pct = math.Max(rec.h.Pct, 200/w.ticks)
	}
	old, had := e.Limit(string(n))
	var oldp *Limit
	if had {
		oldp = &old
	}
	nl := newLimit(w.m.Def, w.value, hn, floor(w.m.Def, oldp))
	if had && keepLimit(w.m.Def, old, w.value, hn) {
		rec.kept++
		return
	}
	e.Unit, e.Definition = w.m.Unit, w.m.Definition
	looser := had && (nl.Min && nl.Value < old.Value || !nl.Min && nl.Value > old.Value)
	change := fmt.Sprintf("%s: %s %s → %s (measured %s)", step, n, metrics.FormatValue(old.Value, e.Unit), metrics.FormatValue(nl.Value, e.Unit), metrics.FormatValue(w.value, e.Unit))
	switch {
	case looser && !rec.p.Loosen:
		rec.refused = append(rec.refused, change)
		return
	case looser:
		rec.notes = append(rec.notes, "perf budget loosened: "+change)
	case had && old.Value != nl.Value:
		rec.notes = append(rec.notes, "perf budget tightened: "+change)
	case !had:
		rec.notes = append(rec.notes, fmt.Sprintf("perf budget recorded: %s: %s", step, nl))
	}
	v := nl.Value
	e.Max, e.Min = nil, nil
	if nl.Min {
		e.Min = &v
	} else {
		e.Max = &v
	}
}

// ModelPlaceholder in a budget file's path stands for the run's device
// model, so each model has a file of its own: "feed.{model}.budget.json"
// is testdata/feed.Google_Pixel_7.budget.json on a Pixel 7.
const ModelPlaceholder = "{model}"

// ModelPath puts the device's model into a path holding ModelPlaceholder:
// its full name with every byte but letters, digits, '.', '-' and '_'
// turned to '_'.
func ModelPath(path string, d procfs.DeviceFacts) (string, error) {
	if !strings.Contains(path, ModelPlaceholder) {
		return path, nil
	}
	name := d.Name()
	if name == "" {
		return "", fmt.Errorf("perf budget file %s: the run's device (%s) has no model name to put in the path", path, deviceName(d))
	}
	safe := []byte(name)
	for i, c := range safe {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_') {
			safe[i] = '_'
		}
	}
	return strings.ReplaceAll(path, ModelPlaceholder, string(safe)), nil
}

// keepLimit reports whether a rewrite keeps the budget old for a measured
// value v: when v meets it and it leaves no more than twice the headroom
// (the noise a budget is recorded to absorb). A run that moved within its
// noise then changes nothing, neither loosening the budget (refused) nor
// tightening it (a diff of a file for no change), and a second update
// never undoes a first; only a clear improvement tightens it.
func keepLimit(d metrics.Def, old Limit, v float64, h Headroom) bool {
	if old.Min != floor(d, &old) {
		return false
	}
	if old.Min && v < old.Value || !old.Min && v > old.Value {
		return false
	}
	wide := newLimit(d, v, Headroom{Pct: 2 * h.Pct, Count: 2 * h.Count}, old.Min)
	if old.Min {
		return old.Value >= wide.Value
	}
	return old.Value <= wide.Value
}

// floor reports whether a recorded budget of d is a floor: for a metric
// that improves one way, the way it gets worse (fps ≥, jank ≤); for context
// (frames counted, tick intervals), which a team may bound either way, the
// way the file's entry old already bounds it, else a floor.
func floor(d metrics.Def, old *Limit) bool {
	if d.Better == metrics.Neither && old != nil {
		return old.Min
	}
	return d.Floor()
}

// newLimit is the budget recorded for a measured value, a floor when min:
// headroom added to ceilings and taken from floors, rounded outwards to
// three significant digits, never negative but for a Signed metric.
func newLimit(d metrics.Def, v float64, h Headroom, min bool) Limit {
	l := Limit{Metric: d.Name, Min: min}
	switch {
	case d.Family == metrics.FamilyCrashes:
		// A crash budget has no headroom: a run that crashed once is not
		// a licence to crash twice.
		l.Value = v
	case d.Count && l.Min:
		l.Value = math.Max(0, math.Floor(v)-float64(h.Count))
	case d.Count:
		l.Value = math.Ceil(v) + float64(h.Count)
	case l.Min:
		l.Value = roundSig(v-math.Abs(v)*h.Pct/100, math.Floor)
	default:
		l.Value = roundSig(v+math.Abs(v)*h.Pct/100, math.Ceil)
	}
	if !d.Signed {
		l.Value = math.Max(0, l.Value)
	}
	return l
}

// roundSig rounds v to three significant digits with round (Ceil or
// Floor).
func roundSig(v float64, round func(float64) float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	e := math.Pow(10, math.Floor(math.Log10(math.Abs(v)))-2)
	// Float noise first: 650 × 1.1 is 715.0000000000001, and its ceiling
	// must be 715.
	r := round(math.Round(v/e*1e6)/1e6) * e
	// Strip the float noise of the multiplication: 20.5 not 20.500000000000004.
	out, _ := strconv.ParseFloat(strconv.FormatFloat(r, 'g', 3, 64), 64)
	return out
}

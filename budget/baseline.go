package budget

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/metrics"
)

// gateDefaults are the metrics recorded as baselines when Gate.Metrics is
// empty (metrics.Def.Gate).
func gateDefaults() []metrics.Name { return defaults(func(d metrics.Def) bool { return d.Gate }) }

// Regressions compares the run with the baselines of a budget file: for
// every step and metric with a baseline, the run's iterations of that step
// ("scroll", "scroll#2", …) against the recorded ones, with the
// Mann-Whitney U test (CompareValues). A regression is a failing verdict;
// too few iterations to tell, a baseline recorded on another device model
// or Android version, or a metric the run did not measure is a warning (a
// failure with Gate.Strict), never a silent pass. A file with no baseline
// the run measured is a failing verdict: a gate that compared nothing is
// not a gate kept.
func Regressions(r Run, f *File, g Gate) []Verdict {
	g = g.WithDefaults()
	runs := iterations(r.Measurements())
	dev := r.RunDevice()
	var out []Verdict
	warn := func(step string, metric metrics.Name, from, line, reason string) {
		v := Verdict{Kind: KindRegression, Step: step, Metric: metric, Status: Warn, From: from, Reason: reason, Line: line}
		if g.Strict {
			v.Status = Fail
		}
		out = append(out, v)
	}
	compared, skipped := 0, 0
	for _, step := range slices.Sorted(maps.Keys(f.Steps)) {
		if len(g.Steps) > 0 && !slices.Contains(g.Steps, step) {
			continue
		}
		entries := f.Steps[step]
		for _, name := range slices.Sorted(maps.Keys(entries)) {
			b := entries[name].Baseline
			if b == nil {
				continue
			}
			metric := metrics.Name(name)
			from := f.Where(entries[name])
			got := runs.values(step, metric)
			missed, why := runs.notMeasured(step, metric)
			if len(got) == 0 && why != "" {
				// Unmeasured is never zero, and nothing to compare: skipped,
				// with the reason, as too few iterations are.
				warn(step, metric, from, fmt.Sprintf("perf regression gate: not checked: %s: %s not measured (%s; baseline at %s)", step, name, why, from), why)
				skipped++
				continue
			}
			if len(got) == 0 {
				out = append(out, Verdict{Kind: KindRegression, Step: step, Metric: metric, Status: NotChecked, From: from,
					Missing: true, Reason: "the run has no step " + step,
					Line: fmt.Sprintf("perf regression: %s: %s not measured (baseline at %s)", step, name, from)})
				continue
			}
			if missed > 0 {
				warn(step, metric, from, fmt.Sprintf("perf regression gate: warning: %s: %s not measured in %d of %d iterations (%s); compared the other %d", step, name, missed, missed+len(got), why, len(got)), why)
			}
			m := runs.metric(step, metric)
			c := compareValues(b.Values, got, m.Def, g)
			compared++
			other := b.Device != dev.Name() || b.Android != dev.Release
			v := Verdict{Kind: KindRegression, Step: step, Metric: metric, Unit: m.Unit, Definition: m.Definition, From: from, Gate: c.Result(), Status: Pass}
			val := c.New.Center
			v.Value = &val
			for _, w := range c.Warnings {
				warn(step, metric, from, fmt.Sprintf("perf regression gate: warning: %s: %s: %s (n=%d+%d); run more iterations", step, name, w, c.N1, c.N2), w)
			}
			if c.Regression {
				line := RegressionLine(step, metric, m.Unit, c)
				if other && !g.AcrossDevices {
					warn(step, metric, from, fmt.Sprintf("%s — not failed: the baseline was recorded on %s, Android %s, this run is on %s (set Gate.AcrossDevices to compare)", line, b.Device, b.Android, dev), "baseline from another device")
					continue
				}
				v.Status, v.Line = Fail, line
			}
			out = append(out, v)
		}
	}
	if compared == 0 && skipped == 0 && !slices.ContainsFunc(out, Verdict.Fails) {
		out = append(out, Verdict{Kind: KindRegression, Status: NotChecked, From: f.Path, Reason: "no baseline this run measured",
			Line: fmt.Sprintf("perf regression gate: %s has no baseline this run measured (run 'go test . -update' to record one)", f.Path)})
	}
	return out
}

// runValues groups a run's iterations by step (base name) and metric.
type runValues struct {
	order []string
	vals  map[string]map[metrics.Name][]float64
	m     map[string]map[metrics.Name]metrics.Metric
	// absent counts, per step and metric, the iterations that did not
	// measure it, and why holds the last reason.
	absent map[string]map[metrics.Name]int
	why    map[string]map[metrics.Name]string
}

func iterations(ms []Measurement) runValues {
	rv := runValues{vals: map[string]map[metrics.Name][]float64{}, m: map[string]map[metrics.Name]metrics.Metric{},
		absent: map[string]map[metrics.Name]int{}, why: map[string]map[metrics.Name]string{}}
	for _, m := range ms {
		if m.Missing {
			continue
		}
		step := metrics.BaseStep(m.Step)
		if rv.vals[step] == nil {
			rv.vals[step] = map[metrics.Name][]float64{}
			rv.m[step] = map[metrics.Name]metrics.Metric{}
			rv.order = append(rv.order, step)
		}
		for _, x := range m.Metrics {
			rv.vals[step][x.Name] = append(rv.vals[step][x.Name], x.Value)
			rv.m[step][x.Name] = x
		}
		for name, why := range m.NotMeasured {
			if rv.absent[step] == nil {
				rv.absent[step], rv.why[step] = map[metrics.Name]int{}, map[metrics.Name]string{}
			}
			rv.absent[step][name]++
			rv.why[step][name] = why
		}
	}
	return rv
}

// notMeasured is how many iterations of step did not measure metric, and
// the last reason.
func (rv runValues) notMeasured(step string, metric metrics.Name) (int, string) {
	return rv.absent[step][metric], rv.why[step][metric]
}

func (rv runValues) values(step string, metric metrics.Name) []float64 {
	return rv.vals[step][metric]
}

func (rv runValues) metric(step string, metric metrics.Name) metrics.Metric {
	return rv.m[step][metric]
}

// RecordBaselines writes the run's iterations as the baselines of the
// budget file at path (a bare name is under testdata/), keeping every
// budget limit of the file, and a baseline the run matches within noise
// (its values and date stay). Steps the run did not finish, or whose
// actions failed, are not recorded. Nothing to record is a refused
// update.
func RecordBaselines(r Run, path string, g Gate) (Update, error) {
	g = g.WithDefaults()
	path = Path(path)
	dev := r.RunDevice()
	var ms []Measurement
	u := Update{Path: path}
	for _, m := range r.Measurements() {
		if m.Incomplete != "" && !m.Missing {
			u.Notes = append(u.Notes, fmt.Sprintf("perf baseline not recorded: %s: %s", m.Step, m.Incomplete))
			continue
		}
		ms = append(ms, m)
	}
	runs := iterations(ms)
	var notes []string
	err := UpdateBudgetFile(path, func(f *File) error {
		for _, step := range runs.order {
			if len(g.Steps) > 0 && !slices.Contains(g.Steps, step) {
				continue
			}
			entries := f.Steps[step]
			if entries == nil {
				entries = map[string]*Entry{}
				f.Steps[step] = entries
			}
			want := g.Metrics
			if len(want) == 0 {
				for _, n := range slices.Sorted(maps.Keys(entries)) {
					if entries[n].Baseline != nil {
						want = append(want, metrics.Name(n))
					}
				}
			}
			if len(want) == 0 {
				want = append(gateDefaults(), sectionDefaults(runs.vals[step], func(d metrics.Def) bool { return d.Gate })...)
			}
			for _, n := range want {
				vals := runs.values(step, n)
				if len(vals) == 0 || !n.Known() {
					continue
				}
				m := runs.metric(step, n)
				e := entries[string(n)]
				if e == nil {
					e = &Entry{}
					entries[string(n)] = e
				}
				if old := e.Baseline; sameBaseline(old, vals, dev, m.Def, g) {
					// The run measured what the baseline holds, within
					// noise: its values and date stay, so the file
					// changes only where a value changed.
					notes = append(notes, fmt.Sprintf("perf baseline kept: %s: %s, no significant change from the %d iterations of %s", step, n, len(old.Values), old.Recorded.Format(time.RFC3339)))
					continue
				}
				e.Unit, e.Definition = m.Unit, m.Definition
				e.Baseline = &Baseline{Values: slices.Clone(vals), Device: dev.Name(), Android: dev.Release, API: dev.API, Recorded: time.Now().UTC().Truncate(time.Second)}
				notes = append(notes, fmt.Sprintf("perf baseline recorded: %s: %s, %d iterations on %s", step, n, len(vals), dev))
			}
		}
		return nil
	})
	if err != nil {
		return u, err
	}
	for _, n := range notes {
		u.Notes = append(u.Notes, fmt.Sprintf("%s (%s)", n, path))
	}
	if len(notes) == 0 {
		u.Refused = append(u.Refused, Verdict{Kind: KindUpdate, Status: Fail, From: path, Reason: "nothing to record",
			Line: fmt.Sprintf("perf regression gate: nothing to record in %s: the run measured none of %s", path, joinNames(gateDefaults()))})
	}
	return u, nil
}

// sameBaseline reports whether vals, measured on dev, are what the
// baseline old already says: the same device model and Android version,
// and no change the gate would call significant nor one past its
// threshold (so too few iterations to tell keep the old baseline only
// while the medians stay close). A run of more iterations than the
// baseline holds replaces it: it knows more.
func sameBaseline(old *Baseline, vals []float64, dev procfs.DeviceFacts, def metrics.Def, g Gate) bool {
	if old == nil || len(old.Values) == 0 || len(vals) > len(old.Values) || old.Device != dev.Name() || old.Android != dev.Release || old.API != dev.API {
		return false
	}
	c := compareValues(old.Values, vals, def, g)
	return !c.Significant && math.Abs(c.DeltaPct) <= g.ThresholdPct
}

func joinNames(ns []metrics.Name) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = string(n)
	}
	return strings.Join(s, ", ")
}

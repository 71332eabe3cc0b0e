package assert

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/perfgate/perfgate/metrics"
)

// gateDefaults are the metrics recorded as baselines when Gate.Metrics is
// empty (metrics.Def.Gate).
func gateDefaults() []metrics.Name { return defaults(func(d metrics.Def) bool { return d.Gate }) }

// RegressionLine is the gate's one-line report of a regression:
// "perf regression: scroll: frame_time_p95 18.2ms → 24.9ms (+36.8%, p=0.002, n=10+10)".
func RegressionLine(step string, metric metrics.Name, unit string, c Change) string {
	return fmt.Sprintf("perf regression: %s: %s %s → %s (%s, p=%.3f, n=%d+%d)", step, metric,
		metrics.FormatValue(c.Old.Center, unit), metrics.FormatValue(c.New.Center, unit), FormatDelta(c.DeltaPct), c.P, c.N1, c.N2)
}

// NoRegression compares the run with the baselines of a golden budget file
// (a bare name is under testdata/): for every step and metric with a
// baseline, the run's iterations of that step ("scroll", "scroll#2", …;
// see perftest's Session.Repeat) against the recorded ones, with
// CompareValues. It fails, one line per metric, only when a change is both
// significant (p < Gate.Alpha) and for the worse by more than
// Gate.ThresholdPct. Too few iterations to tell, or a baseline recorded on
// another device model or Android version, is a warning (a failure with
// Gate.Strict), never a silent pass.
//
// With -update or PERFGATE_UPDATE=1 it records this run's iterations as the
// baselines instead, keeping every budget limit of the file.
func NoRegression(t TestingT, r Run, path string, g Gate) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	path = budgetPath(path)
	g = g.WithDefaults()
	runs := iterations(r.Measurements())
	dev := r.RunDevice()
	if Updating() {
		return recordBaselines(t, runs, dev, path, g)
	}
	f, err := ReadBudgetFile(path)
	if err != nil {
		t.Errorf("%v", err)
		return false
	}
	warn := func(format string, args ...any) {
		if g.Strict {
			t.Errorf(format, args...)
		} else {
			logf(t, format, args...)
		}
	}
	ok := true
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
			got := runs.values(step, metrics.Name(name))
			missed, why := runs.notMeasured(step, metrics.Name(name))
			if len(got) == 0 && why != "" {
				// Unmeasured is never zero, and nothing to compare: skipped,
				// with the reason, as too few iterations are.
				warn("perf regression gate: not checked: %s: %s not measured (%s; baseline at %s:%d)", step, name, why, path, entries[name].Line)
				ok = ok && !g.Strict
				skipped++
				continue
			}
			if len(got) == 0 {
				t.Errorf("perf regression: %s: %s not measured (baseline at %s:%d)", step, name, path, entries[name].Line)
				ok = false
				continue
			}
			if missed > 0 {
				warn("perf regression gate: warning: %s: %s not measured in %d of %d iterations (%s); compared the other %d", step, name, missed, missed+len(got), why, len(got))
				ok = ok && !g.Strict
			}
			m := runs.metric(step, metrics.Name(name))
			c := CompareValues(b.Values, got, m.Better, g)
			compared++
			other := b.Device != dev.Name() || b.Android != dev.Release
			for _, w := range c.Warnings {
				warn("perf regression gate: warning: %s: %s: %s (n=%d+%d); run more iterations", step, name, w, c.N1, c.N2)
				ok = ok && !g.Strict
			}
			if !c.Regression {
				continue
			}
			line := RegressionLine(step, metrics.Name(name), m.Unit, c)
			if other && !g.AcrossDevices {
				warn("%s — not failed: the baseline was recorded on %s, Android %s, this run is on %s (set Gate.AcrossDevices to compare)", line, b.Device, b.Android, dev)
				ok = ok && !g.Strict
				continue
			}
			t.Errorf("%s", line)
			ok = false
		}
	}
	if compared == 0 && skipped == 0 && ok {
		t.Errorf("perf regression gate: %s has no baseline this run measured (run 'go test . -update' to record one)", path)
		return false
	}
	if !ok {
		t.Errorf("run 'go test . -update' to record a new baseline in %s if the change is intended", path)
	}
	return ok
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

// recordBaselines writes the run's iterations as baselines.
func recordBaselines(t TestingT, runs runValues, dev metrics.DeviceFacts, path string, g Gate) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
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
				want = gateDefaults()
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
				if old := e.Baseline; sameBaseline(old, vals, dev, m.Better, g) {
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
		t.Errorf("%v", err)
		return false
	}
	for _, n := range notes {
		logf(t, "%s (%s)", n, path)
	}
	if len(notes) == 0 {
		t.Errorf("perf regression gate: nothing to record in %s: the run measured none of %s", path, joinNames(gateDefaults()))
		return false
	}
	return true
}

// sameBaseline reports whether vals, measured on dev, are what the
// baseline old already says: the same device model and Android version,
// and no change the gate would call significant nor one past its
// threshold (so too few iterations to tell keep the old baseline only
// while the medians stay close). A run of more iterations than the
// baseline holds replaces it: it knows more.
func sameBaseline(old *Baseline, vals []float64, dev metrics.DeviceFacts, better metrics.Better, g Gate) bool {
	if old == nil || len(old.Values) == 0 || len(vals) > len(old.Values) || old.Device != dev.Name() || old.Android != dev.Release || old.API != dev.API {
		return false
	}
	c := CompareValues(old.Values, vals, better, g)
	return !c.Significant && math.Abs(c.DeltaPct) <= g.ThresholdPct
}

func joinNames(ns []metrics.Name) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = string(n)
	}
	return strings.Join(s, ", ")
}

package history

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/metrics"
	resultpkg "github.com/perfgate/perfgate/result"
)

// Run is one session as the history keeps it: where and when it ran, and
// one value per step and metric.
type Run struct {
	// ID names the run; adding a run whose ID is stored already does
	// nothing. RunOf derives it from the Result unless Meta gives one.
	ID string
	// Test is what the Result is a run of (result.Result.Key): the Go
	// test and its package ("TestFeed@feed"), or the scenario.
	Test string
	// Commit and Branch are what was built and measured.
	Commit, Branch string
	// Time is when the session started.
	Time time.Time
	// Device is the device model ("Pixel 7"); trends and budgets are kept
	// per model. Manufacturer and Serial say more about it.
	Device, Manufacturer, Serial string
	// Android is the release ("14"), API its level.
	Android string
	API     int
	// Package is the app measured, AppVersion its version as the build
	// names it.
	Package, AppVersion string
	// ReportURL is where the run's report is, for the trend page's links.
	ReportURL string
	// Values are the run's measurements, one per step and metric.
	Values []Value
	// Notes say what the run had that the history does not keep, and why.
	Notes []string
}

// Value is one metric of one step in one run. A step repeated in the
// session ("scroll", "scroll#2", …) is one step whose value is the median
// of its iterations.
type Value struct {
	Step, Metric string
	Value        float64
	// Iterations is how many values the median was taken from.
	Iterations int
	// Unit, Definition and Better are the metric's, as
	// (*result.Step).Metrics gives them.
	Unit, Definition string
	Better           metrics.Better
}

// Meta is what a Result does not say about its run: the build it measured
// and where its report is. Empty fields stay empty; ID, when empty, is
// derived from the Result.
type Meta struct {
	ID, Commit, Branch, AppVersion, ReportURL string
}

// RunID is the ID a Result gets when none is given: a hash of its test
// name, start time, device serial and package, so adding the same Result
// file twice stores it once.
func RunID(r *resultpkg.Result) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s", r.Name, r.Start.UTC().Format(time.RFC3339Nano), r.Device.Serial, r.App.Package)
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// RunOf turns a Result into a Run. Each step's value of a metric is the
// median (nearest rank, as everywhere in perfgate) of its iterations;
// a session without named steps contributes its whole-session summary as
// step "session". Steps the session stopped inside, and values that
// cannot be real (NaN, ±Inf), are left out with a note: a partial window
// is not a measurement of the step. Metrics nobody measured are absent,
// never zero.
func RunOf(r *resultpkg.Result, m Meta) Run {
	run := Run{
		ID: m.ID, Test: r.Key(), Commit: m.Commit, Branch: m.Branch, Time: r.Start.UTC(),
		Device: r.Device.Model, Manufacturer: r.Device.Manufacturer, Serial: r.Device.Serial,
		Android: r.Device.Release, API: r.Device.API, Package: r.App.Package, AppVersion: m.AppVersion, ReportURL: m.ReportURL,
	}
	if run.ID == "" {
		run.ID = RunID(r)
	}
	steps := r.Steps
	if len(steps) == 0 && r.Whole != nil {
		steps = []*resultpkg.Step{r.Whole}
	}
	type key struct{ step, metric string }
	vals := map[key][]float64{}
	first := map[key]metrics.Metric{}
	var order []key
	for _, st := range steps {
		if st.Missing {
			continue
		}
		if st.Unfinished {
			run.Notes = append(run.Notes, fmt.Sprintf("step %q left out: the session stopped inside it", st.Name))
			continue
		}
		base := metrics.BaseStep(st.Name)
		for _, mt := range st.Metrics() {
			if math.IsNaN(mt.Value) || math.IsInf(mt.Value, 0) {
				run.Notes = append(run.Notes, fmt.Sprintf("step %q: %s = %v left out: not a measurement", st.Name, mt.Name, mt.Value))
				continue
			}
			k := key{base, string(mt.Name)}
			if _, ok := first[k]; !ok {
				first[k] = mt
				order = append(order, k)
			}
			vals[k] = append(vals[k], mt.Value)
		}
	}
	for _, k := range order {
		mt := first[k]
		run.Values = append(run.Values, Value{Step: k.step, Metric: k.metric, Value: frames.NearestRank(vals[k], 50),
			Iterations: len(vals[k]), Unit: mt.Unit, Definition: mt.Definition, Better: mt.Better})
	}
	return run
}

// Check refuses a run the store cannot keep honestly: one without an id,
// a test name or a start time, or with a value that is not a measurement
// or is given twice. Add and AddRuns check every run before they write.
func (r *Run) Check() error {
	switch {
	case r.ID == "":
		return fmt.Errorf("run has no id")
	case r.Test == "":
		return fmt.Errorf("run %s has no test name", r.ID)
	case r.Time.IsZero():
		return fmt.Errorf("run %s (%s) has no start time", r.ID, r.Test)
	}
	seen := map[[2]string]bool{}
	for _, v := range r.Values {
		if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) {
			return fmt.Errorf("run %s: %s %s = %v is not a measurement", r.ID, v.Step, v.Metric, v.Value)
		}
		if strings.TrimSpace(v.Step) == "" || strings.TrimSpace(v.Metric) == "" {
			return fmt.Errorf("run %s: a value without a step or metric name (%q %q)", r.ID, v.Step, v.Metric)
		}
		k := [2]string{v.Step, v.Metric}
		if seen[k] {
			return fmt.Errorf("run %s: %s %s given twice", r.ID, v.Step, v.Metric)
		}
		seen[k] = true
	}
	return nil
}

package perftest_test

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
	"github.com/perfgate/perfgate/trace/sections"
)

// sectionSpecs are what the sections test measures: an exact name on any
// thread (main and worker both write it), a pattern on the main thread
// only, a nested child, a pattern that matches only a worker's, and a
// name the app never writes.
var sectionSpecs = []sections.Spec{
	{Name: "feed:bind"},
	{Name: "feed:%", MainThread: true},
	{Name: "feed:image"},
	{Name: "%:prefetch"},
	{Name: "feed:never"},
}

// sectionTruth is what the phone wrote of spec in [start, end) (device
// monotonic ns): the sections that began then, in the order they began.
func sectionTruth(dev *simdevice.Device, spec sections.Spec, start, end int64) (durs []int64) {
	var all []simdevice.TruthSection
	for _, f := range traceTruth(dev) {
		all = append(all, f.Sections...)
	}
	first := int64(-1)
	for _, s := range all {
		if s.StartNs < start || s.StartNs >= end || spec.MainThread && !s.Main || !spec.Match(s.Name) {
			continue
		}
		durs = append(durs, s.EndNs-s.StartNs)
		if first < 0 || s.StartNs < first {
			first = s.StartNs
			durs[0], durs[len(durs)-1] = durs[len(durs)-1], durs[0]
		}
	}
	return durs
}

// The done-when test of trace sections: on the simulated phone, every
// step's first, min, max, sum and count of each section the session names
// (exact or pattern, main thread or any) equal what the app wrote, and
// the catalogue holds them under their names; a section that never began
// counts 0 with its durations absent, with the reason.
func TestTraceSectionsMatchTruth(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		dev, r := sectionSession(t, sectionWorkload(t), 33)
		for _, st := range r.Steps {
			checkSections(t, dev, st)
		}
		checkSectionBudgets(t, r)
	})
}

// checkSectionBudgets judges budgets on section metrics: a broken one
// says the section, its value and its definition; one on durations no
// section gave is not checked, with the reason.
func checkSectionBudgets(t *testing.T, r *result.Result) {
	t.Helper()
	var limits []budget.Limit
	for _, spec := range []string{"scroll:section_sum:feed:bind<=1", "open:section_count:feed:%>=1000", "section_max:feed:never<=1"} {
		l, err := budget.ParseLimit(spec)
		if err != nil {
			t.Fatal(err)
		}
		limits = append(limits, l)
	}
	sum := r.Step("scroll").Sections[0].SumMs
	var lines []string
	for _, v := range budget.Check(r, "sections_sim_test.go", limits...) {
		lines = append(lines, string(v.Status)+" "+v.Line)
	}
	want := []string{
		"fail perf budget exceeded: open: section_count:feed:% " + metrics.FormatValue(float64(r.Step("open").Sections[1].Count), "sections") + " < 1000",
		"not_checked perf budget not checked: open: section_max:feed:never not measured (sections: no section feed:never on any thread of the app began in the step; budget section_max:feed:never ≤ 1ms)",
		"fail perf budget exceeded: scroll: section_sum:feed:bind " + metrics.FormatValue(sum, "ms") + " > 1ms (trace sections feed:bind on any thread of the app",
		"not_checked perf budget not checked: scroll: section_max:feed:never not measured (sections: no section feed:never on any thread of the app began in the step; budget section_max:feed:never ≤ 1ms)",
	}
	if len(lines) != len(want) {
		t.Fatalf("verdicts:\n%s", strings.Join(lines, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(lines[i], want[i]) {
			t.Errorf("verdict %q, want %q…", lines[i], want[i])
		}
	}
}

// sectionWorkload is the smooth scroll with janks whose app writes
// sections: on the main thread with a child, on a worker, both under one
// name, every few frames each.
func sectionWorkload(t *testing.T) *simdevice.Workload {
	wl, err := simdevice.Preset("smooth-scroll")
	if err != nil {
		t.Fatal(err)
	}
	wl.Phases[0].Janks = traceJanks()
	wl.Phases[0].Sections = []simdevice.Section{
		{Name: "feed:bind", Every: 3, Child: "feed:image"},
		{Name: "feed:bind", Thread: simdevice.SectionWorker, Every: 2},
		{Name: "feed:prefetch", Thread: simdevice.SectionWorker, Every: 5},
		{Name: "list:prefetch", Every: 7},
	}
	return wl
}

// sectionSession measures two steps of wl, "open" and "scroll", 15 ticks
// each, with a trace naming sectionSpecs, on the bubble's clock.
func sectionSession(t *testing.T, wl *simdevice.Workload, api int) (*simdevice.Device, *result.Result) {
	t.Helper()
	dev, d := simWorkload(t, wl, api, simdevice.Quirks{})
	tk := newTicker()
	cfg := quirkConfig(t, tk)
	cfg.Trace = &perftest.TraceConfig{Sections: sectionSpecs}
	rt := &recT{}
	s := perftest.Start(rt, d, perftest.WithConfig(cfg))
	if s == nil {
		t.Fatalf("start failed: %s", rt.joined())
	}
	for _, name := range []string{"open", "scroll"} {
		s.Begin(name)
		tk.wait(t, 15)
		s.End()
	}
	r := s.Stop()
	if rep := rt.joined(); rep != "" {
		t.Fatalf("the session reported: %s", rep)
	}
	return dev, r
}

// Without a trace to read (Android 9 has no perfetto a shell may start),
// every figure of every section is absent with the reason, the count
// too: unmeasured is never zero.
func TestTraceSectionsWithoutTrace(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		_, r := sectionSession(t, sectionWorkload(t), 28)
		for _, st := range r.Steps {
			for _, s := range st.Sections {
				if s.NotMeasured == "" || s.Count != 0 {
					t.Errorf("%s: %+v", st.Name, s)
				}
				for _, stat := range metrics.SectionStats {
					n := metrics.SectionName(stat, s.Name)
					if _, ok := stepMetric(st, n); ok || st.NotMeasured[n] != s.NotMeasured {
						t.Errorf("%s: %s measured, or its reason %q is not %q", st.Name, n, st.NotMeasured[n], s.NotMeasured)
					}
				}
			}
			if len(st.Sections) != len(sectionSpecs) {
				t.Errorf("%s: sections %+v", st.Name, st.Sections)
			}
		}
	})
}

// checkSections compares one step's sections with the phone's truth.
func checkSections(t *testing.T, dev *simdevice.Device, st *result.Step) {
	t.Helper()
	if len(st.Sections) != len(sectionSpecs) {
		t.Fatalf("%s: sections %+v", st.Name, st.Sections)
	}
	for i, spec := range sectionSpecs {
		got, want := st.Sections[i], sectionWant(dev, spec, st)
		if got != want {
			t.Errorf("%s: %s: perfgate %+v, truth %+v", st.Name, spec.Name, got, want)
		}
		if spec.Name != "feed:never" && got.Count < 3 || spec.Name == "feed:never" && got.Count != 0 {
			t.Errorf("%s: %s: %d sections", st.Name, spec.Name, got.Count)
		}
		// The catalogue: the count is measured, 0 or more; the durations
		// are absent, with the reason, where none began.
		count, ok := stepMetric(st, metrics.SectionName(metrics.SectionCount, spec.Name))
		sum, okSum := stepMetric(st, metrics.SectionName(metrics.SectionSum, spec.Name))
		if !ok || count.Value != float64(got.Count) || okSum != (got.Count > 0) || okSum && sum.Value != got.SumMs {
			t.Errorf("%s: %s: catalogue count %+v %v, sum %+v %v", st.Name, spec.Name, count, ok, sum, okSum)
		}
		if got.Count == 0 && st.NotMeasured[metrics.SectionName(metrics.SectionMax, spec.Name)] == "" {
			t.Errorf("%s: %s: no reason for the absent durations: %v", st.Name, spec.Name, st.NotMeasured)
		}
	}
}

// sectionWant is what the phone's truth says of spec in step st.
func sectionWant(dev *simdevice.Device, spec sections.Spec, st *result.Step) result.SectionStats {
	durs := sectionTruth(dev, spec, st.DeviceStartNs, st.DeviceEndNs)
	want := result.SectionStats{Name: spec.Name, MainThread: spec.MainThread, Count: len(durs)}
	if len(durs) > 0 {
		want.FirstMs, want.MinMs, want.MaxMs = float64(durs[0])/1e6, float64(durs[0])/1e6, float64(durs[0])/1e6
		var sum int64
		for _, d := range durs {
			sum += d
			want.MinMs, want.MaxMs = min(want.MinMs, float64(d)/1e6), max(want.MaxMs, float64(d)/1e6)
		}
		want.SumMs = float64(sum) / 1e6
	}
	return want
}

// stepMetric is the step's metric named n, if measured.
func stepMetric(st *result.Step, n metrics.Name) (metrics.Metric, bool) {
	for _, m := range st.Metrics() {
		if m.Name == n {
			return m, true
		}
	}
	return metrics.Metric{}, false
}

package report

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/result"
)

// chartOf returns the step's chart with the given id.
func chartOf(t *testing.T, r *result.Result, st *result.Step, budgets []budget.Limit, id string) *chart {
	t.Helper()
	for _, c := range stepCharts(r, st, budgets) {
		if c.id == id {
			return c
		}
	}
	t.Fatalf("step %s has no %s chart", st.Name, id)
	return nil
}

// A budget line is labelled in the chart's unit and its own: a PSS budget
// in KiB on the MiB memory chart says both.
func TestBudgetLineUnits(t *testing.T) {
	st := &result.Step{Name: "scroll", HostEndNs: 2e9}
	r := &result.Result{Steps: []*result.Step{st}}
	mem := chartOf(t, r, st, []budget.Limit{{Metric: metrics.PSSMax, Value: 168000}}, "memory")
	if len(mem.hlines) != 1 || mem.hlines[0].label != "budget pss_max ≤ 164.06 MiB (168000KiB)" || math.Abs(mem.hlines[0].y-164.0625) > 1e-9 {
		t.Errorf("PSS budget line %+v", mem.hlines)
	}
	fps := chartOf(t, r, st, []budget.Limit{{Metric: metrics.FPS, Value: 50, Min: true}}, "fps")
	if len(fps.hlines) != 1 || fps.hlines[0].label != "budget fps ≥ 50 fps" {
		t.Errorf("FPS budget line %+v", fps.hlines)
	}
}

// One frame is no frame rate: a launch step that drew a single frame has
// no FPS line (the chart says no data), not one from 0 to 1 fps.
func TestFPSNeedsTwoFrames(t *testing.T) {
	if pts := fpsSeries([]float64{0.4}, 3); pts != nil {
		t.Errorf("one frame drew %v", pts)
	}
	if pts := fpsSeries([]float64{0.4, 0.5}, 1); len(pts) != 1 || pts[0].y != 2 {
		t.Errorf("two frames in a second drew %v", pts)
	}
}

// A 0.7 s step between two traffic reads 1 s apart counts the bytes of the
// read after it (its table says 620 B): the chart draws that read too.
func TestTrafficOfShortStep(t *testing.T) {
	st := &result.Step{Name: "tap", HostStartNs: 1.2e9, HostEndNs: 1.9e9}
	r := &result.Result{Traffic: []result.TrafficSample{
		{HostNs: 1e9, RxBytes: 1000, TxBytes: 100}, {HostNs: 2e9, RxBytes: 1620, TxBytes: 100}, {HostNs: 3e9, RxBytes: 9000, TxBytes: 900}}}
	rx, tx := trafficOf(r, st)
	if len(rx) != 1 || rx[0].y != 620 || len(tx) != 1 || tx[0].y != 0 {
		t.Errorf("rx %v tx %v, want one read of 620 B and 0 B", rx, tx)
	}
}

// The recorded janky-scroll session: the CPU chart names its threads with
// their tids; every PerfDog mark sits on a point of the frame-time line
// (the spike of the slow frame), and says the gap it judged; each point of
// a short line has a hover title with its unit.
func TestChartsOfRecordedSession(t *testing.T) {
	r, err := result.ReadResult("testdata/janky-scroll.json")
	assert.NilError(t, err)
	st := r.Step("scroll")
	cpu := chartOf(t, r, st, nil, "cpu")
	threads := 0
	for _, l := range cpu.lines {
		if strings.HasPrefix(l.name, "thread ") {
			threads++
			if !strings.Contains(l.name, " (tid ") {
				t.Errorf("thread line %q has no tid", l.name)
			}
		}
	}
	assert.Assert(t, threads > 0, "no thread lines")

	ft := chartOf(t, r, st, nil, "frametime")
	onLine := map[pt]bool{}
	for _, p := range ft.lines[0].pts {
		onLine[p] = true
	}
	perfDog := 0
	for _, m := range ft.marks {
		for i, p := range m.pts {
			if !onLine[p] {
				t.Errorf("%s mark at %v is off the line", m.name, p)
			}
			if strings.HasPrefix(m.name, "PerfDog") {
				perfDog++
				if i >= len(m.notes) || !strings.HasPrefix(m.notes[i], "a gap of ") {
					t.Errorf("%s mark at %v says %q", m.name, p, m.notes)
				}
				if p.y < 2*1000/24.0 {
					t.Errorf("%s mark at %v is not on a spike", m.name, p)
				}
			}
		}
	}
	assert.Assert(t, perfDog > 0, "no PerfDog marks")

	svg := chartOf(t, r, st, nil, "memory").svg()
	assert.Assert(t, strings.Contains(svg, `<circle class="point" data-series="PSS"`), "no PSS points")
	assert.Assert(t, strings.Contains(svg, " MiB</title></circle>"), "no hover title with the unit:\n%s", svg)
}

// A step that launched the app has a startup chart: each launch's time
// to initial and full display, the median and the budget.
func TestStartupChart(t *testing.T) {
	st := &result.Step{Name: "launch", HostEndNs: 3e9, Startup: &result.StartupStats{Kind: "cold", InitialDisplayMs: 650,
		Iterations: []result.StartupSample{{TotalTimeMs: 700, FullyDrawnMs: 950}, {TotalTimeMs: 640, FullyDrawnMs: 900}, {TotalTimeMs: 650}}}}
	r := &result.Result{Steps: []*result.Step{st}}
	c := chartOf(t, r, st, []budget.Limit{{Metric: metrics.StartupInitial, Value: 800}}, "startup")
	if len(c.lines) != 2 || len(c.lines[0].pts) != 3 || len(c.lines[1].pts) != 2 || c.xUnit != "launch" {
		t.Errorf("startup chart lines %+v", c.lines)
	}
	labels := []string{}
	for _, h := range c.hlines {
		labels = append(labels, h.label)
	}
	if strings.Join(labels, "; ") != "median initial display 650 ms; budget startup_initial ≤ 800 ms" {
		t.Errorf("startup chart lines %q", labels)
	}
	if other := (&result.Step{Name: "scroll", HostEndNs: 1e9}); len(stepCharts(r, other, nil)) != 6 {
		t.Error("a step that launched nothing has a startup chart")
	}
}

// A traffic chart is drawn in the unit its bytes need: 3 bytes on a 0 to
// 3 B axis, not 0.003 KiB on one to 0.004; 3 MiB in MiB.
func TestTrafficUnit(t *testing.T) {
	st := &result.Step{Name: "tap", HostStartNs: 1e9, HostEndNs: 3e9}
	for _, tc := range []struct {
		rx   uint64
		unit string
		top  float64
	}{{3, "B", 3}, {620, "B", 620}, {5000, "KiB", 5000.0 / 1024}, {3 << 20, "MiB", 3}} {
		r := &result.Result{Steps: []*result.Step{st}, Traffic: []result.TrafficSample{{HostNs: 1e9}, {HostNs: 2e9, RxBytes: tc.rx}}}
		c := chartOf(t, r, st, nil, "traffic")
		if c.unit != tc.unit || c.lines[0].pts[len(c.lines[0].pts)-1].y != tc.top {
			t.Errorf("%d B: unit %s, received %v; want %s, %v", tc.rx, c.unit, c.lines[0].pts, tc.unit, tc.top)
		}
	}
}

// A step shorter than a meminfo read holds none; its table takes the read
// its start called for (stepstats.Memory), and its chart draws that read
// as a point, not an empty chart beside a table of 124000 KiB.
func TestPSSOfShortStep(t *testing.T) {
	st := &result.Step{Name: "tap", HostStartNs: 1.2e9, HostEndNs: 1.5e9}
	r := &result.Result{Steps: []*result.Step{st}, Config: result.RunConfig{SlowIntervalMs: 1000},
		Memory: []result.MemorySample{{HostNs: 0.5e9, PSSKB: 100000}, {HostNs: 2e9, PSSKB: 124000, Steps: []string{"tap"}}, {HostNs: 3e9, PSSKB: 130000}}}
	_, pss := memOf(r, st)
	if len(pss) != 1 || pss[0].y != 124000.0/1024 {
		t.Errorf("PSS %v, want the one read of 124000 KiB", pss)
	}
}

// One launch is one point over the tick "1": the axis has no "0" or "2"
// launch, and no fractional one.
func TestStartupAxisWhole(t *testing.T) {
	for _, n := range []int{1, 3, 7} {
		su := &result.StartupStats{Kind: "cold", InitialDisplayMs: 400}
		for range n {
			su.Iterations = append(su.Iterations, result.StartupSample{TotalTimeMs: 400})
		}
		svg := startupChart(su, nil).svg()
		var ticks []string
		for _, m := range regexp.MustCompile(`text-anchor="middle" font-size="11">([^<]*)<`).FindAllStringSubmatch(svg, -1) {
			ticks = append(ticks, m[1])
		}
		if len(ticks) == 0 || ticks[0] != "1" || slices.ContainsFunc(ticks, func(s string) bool { return strings.Contains(s, ".") }) || slices.Contains(ticks, fmt.Sprint(n+1)) {
			t.Errorf("%d launches: x ticks %q", n, ticks)
		}
	}
}

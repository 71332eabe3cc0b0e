package report_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/internal/browsertest"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
)

// A report of a live session on the simulated phone's janky workload,
// opened in headless Chromium: the DOM holds every chart with drawn paths
// and jank marks, nothing is logged to the console, and the screenshot is
// not blank. The deadline-missed marks are checked against the phone's
// ground truth: the frames it really rendered late.
func TestBrowserRendersReport(t *testing.T) {
	t.Parallel()
	bin := browsertest.Chromium(t)
	r, truth := simSession(t, "janky-scroll", 3*time.Second)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var b bytes.Buffer
	budgets := []budget.Limit{{Metric: "frame_time_p95", Value: 12}, {Step: "scroll", Metric: "fps", Value: 50, Min: true}, {Metric: "jank", Value: 2}}
	assert.NilError(t, report.WriteHTML(&b, []*result.Result{r}, report.Options{Budgets: budgets}))
	assert.NilError(t, os.WriteFile(page, b.Bytes(), 0o644))
	if d := os.Getenv("PERFGATE_REPORT_KEEP"); d != "" {
		// Keep the page and its screenshot to look at.
		dir = d
		assert.NilError(t, os.WriteFile(filepath.Join(d, "report.html"), b.Bytes(), 0o644))
	}

	// Ground truth: the frames of the scroll step's window that missed
	// their deadline on the phone, by time since the step began.
	st := r.Step("scroll")
	var want []string
	for _, f := range truth {
		if f.Missed && sameWindow(f.Window, st.FrameStats.Window) && f.IntendedVsync >= st.DeviceStartNs && f.IntendedVsync < st.DeviceEndNs {
			want = append(want, fmt.Sprintf("%.3f s: %s ms", float64(f.IntendedVsync-st.DeviceStartNs)/1e9, metrics.FormatValue(float64(f.Duration)/1e6, "")))
		}
	}
	assert.Assert(t, len(want) > 0, "the janky workload missed no deadline in the step")

	dom, logs, colours := browsertest.Render(t, bin, page, filepath.Join(dir, "report.png"), "1100,2400")
	cs := charts(t, dom)
	assert.Equal(t, cs[len(cs)-1].Chart, "memory-breakdown") // the session's, after its steps
	assert.Equal(t, cs[len(cs)-2].Chart, "power-session")
	cs = cs[:len(cs)-2]
	assert.Equal(t, len(cs), 7*len(r.Steps))
	// Every chart of the 3 s scroll step has data to draw, the energy
	// lane's power chart too; the short settle step may hold no slow-lane
	// (memory, traffic) sample at all.
	for _, c := range cs[:7] {
		n := 0
		for _, p := range c.Paths {
			if p.Class == "series" && len(p.D) > 1 {
				n++
			}
		}
		assert.Assert(t, n > 0, "chart %s has no drawn path in the DOM", c.Chart)
	}
	var got []string
	for _, c := range cs[0].marks() {
		if c.Class == "jank jank-deadline" {
			got = append(got, strings.TrimPrefix(c.Title, "deadline missed at "))
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	assert.DeepEqual(t, got, want)
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, ":CONSOLE") {
			t.Errorf("console message: %s", l)
		}
	}

	assert.Assert(t, len(colours) > 8, "screenshot has %d colours: blank", len(colours))
	// The series colours of the charts are on the screen, not just in the DOM.
	for name, c := range map[string][3]uint8{"app series": {0x1f, 0x77, 0xb4}, "jank mark": {0xd6, 0x27, 0x28}} {
		assert.Assert(t, colours[c] > 20, "%s colour %x drawn on %d pixels", name, c, colours[c])
	}
}

// sameWindow matches the phone's window name with gfxinfo's, which adds
// the ViewRootImpl's identity after a slash.
func sameWindow(truth, gfx string) bool {
	return gfx == truth || strings.HasPrefix(gfx, truth+"/")
}

// The comparison page of four runs of the smooth app against four of the
// janky one on the simulated phone (a session of each, which repeats its
// steps four times), opened in headless Chromium: a strip
// per metric with both sides' runs, medians and confidence intervals, the
// gate's verdict (the janky app's frame time p99 regressed), the first runs'
// frame times overlaid, hover text on every point, and a screenshot that
// shows both sides' colours.
func TestBrowserRendersComparison(t *testing.T) {
	t.Parallel()
	bin := browsertest.Chromium(t)
	// Four runs of each app: a session on a phone of its own that
	// repeats its steps four times, both sessions at once.
	base, next := make([]*result.Result, 1), make([]*result.Result, 1)
	t.Run("sessions", func(t *testing.T) {
		for _, run := range []struct {
			preset string
			into   []*result.Result
		}{{"smooth-scroll", base}, {"janky-scroll", next}} {
			t.Run(run.preset, func(t *testing.T) {
				t.Parallel()
				run.into[0], _ = simSessionTimes(t, run.preset, 1200*time.Millisecond, 4)
			})
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	// Four iterations a side; the janky app's frame_time_p99 is five to
	// eleven times the smooth one's in every one, which the gate fails on
	// once it is asked to gate that metric.
	c := report.Compare(base, next, report.CompareOptions{Metrics: []metrics.Name{metrics.FrameTimeP99}})
	var b bytes.Buffer
	assert.NilError(t, report.WriteCompareHTML(&b, c, base, next, report.Options{}))
	dir := t.TempDir()
	if d := os.Getenv("PERFGATE_REPORT_KEEP"); d != "" {
		dir = d
	}
	page := filepath.Join(dir, "compare.html")
	assert.NilError(t, os.WriteFile(page, b.Bytes(), 0o644))

	dom, logs, colours := browsertest.Render(t, bin, page, filepath.Join(dir, "compare.png"), "1100,2600")
	cs := charts(t, dom)
	kinds := map[string]int{}
	for _, c := range cs {
		kinds[c.Chart]++
	}
	assert.DeepEqual(t, kinds, map[string]int{"compare-metrics": 2, "compare-frametime": 2, "compare-fps": 2, "compare-cpu": 2})
	// Every run of both sides is a point on the frame time p99 row, with
	// its value on hover.
	runs := 0
	for _, c := range cs[:1] {
		for _, ci := range c.Circles {
			if strings.HasPrefix(ci.Title, "base run ") || strings.HasPrefix(ci.Title, "new run ") {
				runs++
			}
		}
	}
	assert.Assert(t, runs >= 8, "%d run points on the scroll step's strips", runs)
	assert.Assert(t, strings.Contains(dom, "frame_time_p99"), "no frame_time_p99 row")
	regressed := slices.ContainsFunc(c.Rows, func(r report.Row) bool { return r.Regression })
	assert.Assert(t, regressed, "the janky app did not regress: %q", c.Regressions())
	assert.Assert(t, strings.Contains(dom, "REGRESSION"), "no regression verdict drawn")
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, ":CONSOLE") {
			t.Errorf("console message: %s", l)
		}
	}

	for name, c := range map[string][3]uint8{"base": {0x7f, 0x7f, 0x7f}, "new": {0x1f, 0x77, 0xb4}} {
		assert.Assert(t, colours[c] > 20, "%s colour %x drawn on %d pixels", name, c, colours[c])
	}
}

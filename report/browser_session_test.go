package report_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/perfgate/perfgate/internal/browsertest"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
)

// seenJS runs in the page once it has laid out, and writes what a person
// sees into a <pre id="seen"> as JSON: text that overlaps other text in a
// chart (getBoundingClientRect), table cells saying "not measured" that
// wrap onto several lines, the page's headings, and the texts of each
// chart by chart id and step section.
const seenJS = `<script>(function(){
const out = {overlaps: [], wraps: [], headings: [], charts: []};
const hit = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
document.querySelectorAll('svg.chart').forEach(svg => {
  const ts = [...svg.querySelectorAll('text')].filter(t => t.textContent.trim() !== '').map(t => [t.textContent, t.getBoundingClientRect()]);
  for (let i = 0; i < ts.length; i++) for (let j = i + 1; j < ts.length; j++)
    if (hit(ts[i][1], ts[j][1])) out.overlaps.push(svg.dataset.chart + ': "' + ts[i][0] + '" over "' + ts[j][0] + '"');
  const sec = svg.closest('section.step');
  out.charts.push({chart: svg.dataset.chart, step: sec ? sec.id : '', texts: ts.map(t => t[0]),
    series: [...svg.querySelectorAll('path.series')].map(p => p.dataset.series + ' ' + p.getBoundingClientRect().width.toFixed(1))});
});
document.querySelectorAll('td').forEach(td => {
  if (td.textContent.trim() !== 'not measured') return;
  const r = document.createRange(); r.selectNodeContents(td);
  const lines = new Set([...r.getClientRects()].map(x => Math.round(x.top))).size;
  if (lines > 1) out.wraps.push(td.textContent + ' on ' + lines + ' lines');
});
document.querySelectorAll('h2, h3').forEach(h => out.headings.push(h.textContent.replace(/\s+/g, ' ').trim()));
const pre = document.createElement('pre'); pre.id = 'seen'; pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
})();</script>`

// seen is what seenJS reports.
type seen struct {
	Overlaps, Wraps, Headings []string
	Charts                    []struct {
		Chart, Step   string
		Texts, Series []string
	}
}

var seenRE = regexp.MustCompile(`(?s)<pre id="seen">(.*?)</pre>`)

// look writes page with seenJS into dir, opens it in headless Chromium
// at the given window size, and returns what seenJS saw.
func look(t *testing.T, bin, dir, name string, page []byte, size string) seen {
	t.Helper()
	if d := os.Getenv("PERFGATE_REPORT_KEEP"); d != "" {
		dir = d
	}
	file := filepath.Join(dir, name+".html")
	assert.NilError(t, os.WriteFile(file, bytes.Replace(page, []byte("</body>"), []byte(seenJS+"</body>"), 1), 0o644))
	dom, _, _ := browsertest.Render(t, bin, file, filepath.Join(dir, name+".png"), size)
	m := seenRE.FindStringSubmatch(dom)
	assert.Assert(t, m != nil, "the page's script did not run")
	var s seen
	assert.NilError(t, json.Unmarshal([]byte(htmlUnescape(m[1])), &s))
	return s
}

func htmlUnescape(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#39;", "'", "&amp;", "&").Replace(s)
}

// A session page of the simulated phone, as a person sees it in a
// window 900 pixels wide: no text of a chart overlaps another, every
// "not measured" cell reads on one line, the traffic axis is in a unit
// its bytes fill (not 0 to 0.004 KiB for 3 bytes), and a 30 ms step,
// shorter than a meminfo read, draws the PSS its table shows.
func TestBrowserSessionPage(t *testing.T) {
	t.Parallel()
	bin := browsertest.Chromium(t)
	// The app sends and receives a few bytes a second: 3 B in a 1.2 s
	// step.
	wl, err := simdevice.Preset("janky-scroll")
	assert.NilError(t, err)
	for i := range wl.Phases {
		wl.Phases[i].RxBps, wl.Phases[i].TxBps = 2.5, 1
	}
	r, _ := simRun(t, wl, func(s *perftest.Session) {
		s.Step("scroll", func() { time.Sleep(1200 * time.Millisecond) })
		s.Step("tap", func() { time.Sleep(30 * time.Millisecond) })
		s.Step("settle", func() { time.Sleep(300 * time.Millisecond) })
	})
	// The phone answers `dumpsys meminfo` at once; a real one takes a
	// few hundred ms, and each read, stamped in the middle of the call,
	// lands 120 ms or so after it was asked for: after a 30 ms step has
	// ended. Stamp the reads so.
	for i := range r.Memory {
		r.Memory[i].HostNs += 120e6
	}
	var b bytes.Buffer
	assert.NilError(t, report.WriteHTML(&b, []*result.Result{r}, report.Options{}))
	s := look(t, bin, t.TempDir(), "session", b.Bytes(), "900,3000")

	assert.Check(t, len(s.Overlaps) == 0, "overlapping text: %q", s.Overlaps)
	assert.Check(t, len(s.Wraps) == 0, "wrapped cells: %q", s.Wraps)
	for _, st := range r.Steps {
		anchor := fmt.Sprintf("r1-s%d", slices.Index(r.Steps, st)+1)
		for _, c := range s.Charts {
			if c.Step != anchor {
				continue
			}
			switch c.Chart {
			case "memory":
				// The table's PSS is drawn: the PSS series is on the chart.
				if st.MemoryStats.PSSMaxKB > 0 {
					assert.Check(t, slices.ContainsFunc(c.Series, func(s string) bool { return strings.HasPrefix(s, "PSS ") }),
						"step %s (%v long) shows pss_max %d KiB but its chart draws %q", st.Name, st.Duration(), st.MemoryStats.PSSMaxKB, c.Series)
				}
			case "traffic":
				checkTrafficAxis(t, st, c.Texts)
			}
		}
	}
}

// checkTrafficAxis checks that the traffic chart of st is in B, KiB or
// MiB, that its top tick holds the step's bytes, and that it is at least
// 1 of its unit: an axis whose every tick is a fraction of its unit is in
// too big a unit.
func checkTrafficAxis(t *testing.T, st *result.Step, texts []string) {
	t.Helper()
	if len(texts) < 3 || strings.HasPrefix(texts[1], "no data") {
		return
	}
	factor := map[string]float64{"B": 1, "KiB": 1024, "MiB": 1 << 20}
	unit := ""
	top := 0.0
	for _, s := range texts {
		if _, ok := factor[s]; ok && unit == "" {
			unit = s
		}
	}
	if unit == "" {
		t.Errorf("traffic chart of %s has no byte unit: %q", st.Name, texts)
		return
	}
	// The y ticks come first, from 0 up, before the unit label.
	for _, s := range texts[1:slices.Index(texts, unit)] {
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			top = max(top, v)
		}
	}
	assert.Check(t, top >= 1, "traffic axis of %s runs to %v %s: %q", st.Name, top, unit, texts)
	if ts := st.TrafficStats; ts != nil {
		assert.Check(t, top*factor[unit] >= float64(max(ts.RxBytes, ts.TxBytes)), "traffic axis of %s runs to %v %s below its %d B", st.Name, top, unit, max(ts.RxBytes, ts.TxBytes))
	}
}

// Four runs of one test on one phone (go test -count=4), on one page:
// every heading is unique and each run's names the device (model and
// serial) and the run ("run 2 of 4"); no chart text overlaps another and
// no "not measured" cell wraps; a section sums the runs up, and its
// median of each metric of the scroll step is the median of the four
// Results' values.
func TestBrowserManyRuns(t *testing.T) {
	t.Parallel()
	bin := browsertest.Chromium(t)
	const n = 4
	runs := simSessions(t, n, 1200*time.Millisecond)
	var b bytes.Buffer
	assert.NilError(t, report.WriteHTML(&b, runs, report.Options{}))
	s := look(t, bin, t.TempDir(), "runs", b.Bytes(), "1100,3000")
	assert.Check(t, len(s.Overlaps) == 0, "overlapping text: %q", s.Overlaps)
	assert.Check(t, len(s.Wraps) == 0, "wrapped cells: %q", s.Wraps)

	seenTwice := map[string]int{}
	for _, h := range s.Headings {
		seenTwice[h]++
	}
	for h, c := range seenTwice {
		assert.Assert(t, c == 1, "heading %q appears %d times", h, c)
	}
	dev := runs[0].Device.Model + " " + runs[0].Device.Serial
	for i := 1; i <= n; i++ {
		want := fmt.Sprintf("%s · %s · run %d of %d", runs[0].Name, dev, i, n)
		assert.Assert(t, slices.ContainsFunc(s.Headings, func(h string) bool { return strings.HasPrefix(h, want) }), "no heading %q in %q", want, s.Headings)
	}

	// The aggregate's medians, read from the page, against the Results.
	rows := regexp.MustCompile(`<tr><td>([a-z0-9_]+)</td><td class="num median">([^<]*)</td>`).FindAllStringSubmatch(aggregateOf(t, b.String(), "scroll"), -1)
	assert.Assert(t, len(rows) > 5, "scroll's aggregate has %d rows", len(rows))
	for _, row := range rows {
		name := metrics.Name(row[1])
		var vals []float64
		for _, r := range runs {
			for _, m := range report.StepMetrics(r.Step("scroll")) {
				if m.Name == name {
					vals = append(vals, m.Value)
				}
			}
		}
		slices.Sort(vals)
		want := vals[(len(vals)+1)/2-1] // the lower middle: the value of a run
		assert.Equal(t, row[2], metrics.FormatValue(want, ""), "median of %s over %v", name, vals)
	}
}

// aggregateOf returns the aggregate table of step from page.
func aggregateOf(t *testing.T, page, step string) string {
	t.Helper()
	i := strings.Index(page, "<h3>Step "+step+" over ")
	assert.Assert(t, i >= 0, "no aggregate of step %s", step)
	j := strings.Index(page[i:], "</table>")
	return page[i : i+j]
}

// simSessions are n sessions of the janky app on a phone of their own
// (simSession), run at once.
func simSessions(t *testing.T, n int, stepLen time.Duration) []*result.Result {
	t.Helper()
	runs := make([]*result.Result, n)
	t.Run("sessions", func(t *testing.T) {
		for i := range runs {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				runs[i], _ = simSession(t, "janky-scroll", stepLen)
			})
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	return runs
}

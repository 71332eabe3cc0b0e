package report_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/assert/cmp"

	"github.com/perfgate/perfgate/internal/browsertest"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
)

// cmpRuns are n runs of two steps: scroll, whose janks and frame time p50
// are given, and fling, with a p95 three times scroll's.
func cmpRuns(n int, jank int, p50 float64, p95 float64) []*result.Result {
	var out []*result.Result
	for i := range n {
		r := run(p95+0.2*float64(i), 60, 120000)
		st := r.Steps[0]
		st.FrameStats.Jank, st.FrameStats.FrameTimeMS.P50 = jank, p50+0.01*float64(i)
		fl := *st
		fl.Name, fl.FrameStats.FrameTimeMS.P95 = "fling", 3*st.FrameStats.FrameTimeMS.P95
		r.Steps = append(r.Steps, &fl)
		out = append(out, r)
	}
	return out
}

// The comparison page of two results folders, written into a third, in
// headless Chromium: every link leads to a file that exists, each run of
// each side links its report, Result and trace; no two texts of a chart
// overlap; every row of a metric has the same scale; a count's ticks are
// whole numbers; the closing hint is a folder comparison's.
func TestBrowserComparisonPage(t *testing.T) {
	t.Parallel()
	bin := browsertest.Chromium(t)
	root := t.TempDir()
	sides := map[string][]*result.Result{"base": cmpRuns(8, 0, 7, 18), "new": cmpRuns(3, 5, 7.02, 24)}
	for side, rs := range sides {
		dir := filepath.Join(root, side+" runs")
		for i, r := range rs {
			tr := filepath.Join(dir, fmt.Sprintf("TestScroll #%d 100%%.perfetto-trace", i+1))
			assert.NilError(t, os.MkdirAll(dir, 0o755))
			assert.NilError(t, os.WriteFile(tr, []byte("trace"), 0o644))
			r.Trace = &result.TraceInfo{File: tr, SizeBytes: 5}
			assert.NilError(t, report.WriteDir(dir, r, report.Options{}))
		}
		read, err := result.ReadResults([]string{dir})
		assert.NilError(t, err)
		sides[side] = read
	}
	c := report.Compare(sides["base"], sides["new"], report.CompareOptions{From: "baseline base runs"})
	pages := filepath.Join(root, "pages")
	page := filepath.Join(pages, "compare.html")
	assert.NilError(t, os.MkdirAll(pages, 0o755))
	f, err := os.Create(page)
	assert.NilError(t, err)
	assert.NilError(t, report.WriteCompareHTML(f, c, sides["base"], sides["new"], report.Options{PageDir: pages}))
	assert.NilError(t, f.Close())
	p := browsertest.Probe(t, bin, page)

	broken, files := p.BrokenLinks()
	assert.Check(t, len(broken) == 0, "broken links: %q", broken)
	kinds := map[string]int{}
	for text, fs := range files {
		kinds[text] = len(fs)
	}
	// Two steps, each listing 8 base runs and 3 new ones.
	assert.Check(t, cmp.DeepEqual(kinds, map[string]int{"report": 22, "Result": 22, "Perfetto trace": 22}))
	for _, o := range p.Overlaps() {
		t.Errorf("texts overlap: %s", o)
	}

	// Per metric, every row's ticks; all rows of a metric alike.
	rows := map[string]map[string][]string{}
	for _, tk := range p.Ticks {
		if rows[tk.Metric] == nil {
			rows[tk.Metric] = map[string][]string{}
		}
		k := fmt.Sprint(tk.SVG, "/", tk.Row)
		rows[tk.Metric][k] = append(rows[tk.Metric][k], tk.Text)
	}
	for _, m := range []metrics.Name{metrics.Jank, metrics.FrameTimeP50, metrics.FrameTimeP95, metrics.FPS} {
		assert.Check(t, len(rows[string(m)]) == 2, "%s: rows with ticks: %v", m, rows[string(m)])
	}
	for m, byRow := range rows {
		var first []string
		for k, ticks := range byRow {
			if first == nil {
				first = ticks
			}
			assert.Check(t, cmp.DeepEqual(ticks, first), "%s: the rows' scales differ", m)
			if metrics.Name(m).Def().Count {
				for _, tk := range ticks {
					_, err := strconv.Atoi(tk)
					assert.Check(t, err == nil, "%s row %s: count tick %q is no whole number", m, k, tk)
				}
			}
		}
	}
	b, err := os.ReadFile(page)
	assert.NilError(t, err)
	assert.Assert(t, strings.Contains(string(b), "compare later runs with the new runs") && !strings.Contains(string(b), "-update"))
}

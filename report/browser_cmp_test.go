package report_test

import (
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/assert/cmp"

	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
)

// probeJS measures what a person sees on a page: every SVG text's box, the
// links as the browser resolves them, the comparison strips' tick labels.
const probeJS = `<script>
const out = {texts: [], links: [], ticks: []};
document.querySelectorAll('svg').forEach((s, si) => s.querySelectorAll('text').forEach(t => {
  const r = t.getBoundingClientRect();
  out.texts.push({svg: si, text: t.textContent, x: r.left, y: r.top, w: r.width, h: r.height});
  if (t.classList.contains('tick')) out.ticks.push({svg: si, metric: t.dataset.metric, row: t.dataset.row, text: t.textContent});
}));
document.querySelectorAll('a[href]').forEach(a => out.links.push({text: a.textContent, href: a.href, raw: a.getAttribute('href')}));
const p = document.createElement('pre'); p.id = 'probe'; p.textContent = JSON.stringify(out); document.body.appendChild(p);
</script>`

type probed struct {
	Texts []struct {
		SVG        int
		Text       string
		X, Y, W, H float64
	}
	Links []struct{ Text, Href, Raw string }
	Ticks []struct {
		SVG               int
		Metric, Row, Text string
	}
}

var probeRE = regexp.MustCompile(`(?s)<pre id="probe">(.*?)</pre>`)

// probe opens a copy of page, beside it so its links resolve alike, with
// probeJS added, in headless Chromium, and returns what the script saw.
func probe(t *testing.T, bin, page string) probed {
	t.Helper()
	b, err := os.ReadFile(page)
	assert.NilError(t, err)
	cp := strings.TrimSuffix(page, ".html") + ".probe.html"
	assert.NilError(t, os.WriteFile(cp, []byte(strings.Replace(string(b), "</body>", probeJS+"</body>", 1)), 0o644))
	dom, _ := headless(t, bin, cp, "--dump-dom", "--window-size=1100,3000")
	m := probeRE.FindStringSubmatch(dom)
	assert.Assert(t, m != nil, "the probe did not run")
	var p probed
	assert.NilError(t, json.Unmarshal([]byte(html.UnescapeString(m[1])), &p))
	return p
}

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
	bin := chromium(t)
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
	p := probe(t, bin, page)

	kinds := map[string]int{}
	for _, l := range p.Links {
		u, err := url.Parse(l.Href)
		assert.NilError(t, err)
		if u.Scheme == "https" || u.Fragment != "" && u.Path == filepath.ToSlash(strings.TrimSuffix(page, ".html")+".probe.html") {
			continue
		}
		assert.Check(t, u.Scheme == "file" && exists(filepath.FromSlash(u.Path)), "link %q (%s) leads to no file: %s", l.Text, l.Raw, l.Href)
		kinds[l.Text]++
	}
	// Two steps, each listing 8 base runs and 3 new ones.
	assert.Check(t, cmp.DeepEqual(kinds, map[string]int{"report": 22, "Result": 22, "Perfetto trace": 22}))

	for i, a := range p.Texts {
		for _, b := range p.Texts[i+1:] {
			if a.SVG == b.SVG && a.W > 0 && b.W > 0 && a.X < b.X+b.W && b.X < a.X+a.W && a.Y < b.Y+b.H && b.Y < a.Y+a.H {
				t.Errorf("texts overlap: %q at (%.0f,%.0f %.0f×%.0f) and %q at (%.0f,%.0f %.0f×%.0f)", a.Text, a.X, a.Y, a.W, a.H, b.Text, b.X, b.Y, b.W, b.H)
			}
		}
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

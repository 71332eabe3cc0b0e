package history

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/internal/browsertest"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/report"
	resultpkg "github.com/perfgate/perfgate/result"
)

// The trend pages of a history, as `perfgate history add -report-base
// ../reports` and `history html -o trends` make them, in headless
// Chromium: 24 runs of TestFeed on a Pixel 7 and a Pixel 6 (its frame
// time half as long again), the frame time p95 rising twice four runs
// apart, janks counted; one run measured no frames. Every link leads to a file that exists (each run
// to its own report); no two texts of a chart overlap; the charts of one
// metric share one scale; a count's ticks are whole numbers; each series
// is headed by its test, step and device; the run that measured no
// frames has no point on the frame metrics' pages (a gap, never a zero).
func TestBrowserTrendPages(t *testing.T) {
	bin := browsertest.Chromium(t)
	root := t.TempDir()
	if d := os.Getenv("PERFGATE_REPORT_KEEP"); d != "" {
		root = d
	}
	results, reports, pages := filepath.Join(root, "results"), filepath.Join(root, "reports"), filepath.Join(root, "trends")
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(root, "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const runs = 24
	for i := range runs {
		for k, model := range []string{"Pixel 7", "Pixel 6"} {
			p95 := 10.0
			switch {
			case i >= 14:
				p95 = 20
			case i >= 10:
				p95 = 14
			}
			st := scrollStep("scroll", p95*(1+0.5*float64(k))+0.1*float64(i%3), 8)
			st.FrameStats.Jank = i % 3
			if i == 5 && k == 0 {
				st.FrameStats.Frames = 0 // the Pixel 7's sixth run measured no frames
			}
			r := result("TestFeed", model, t0.Add(time.Duration(i)*time.Hour), st)
			r.Device.Serial = fmt.Sprintf("serial-%d", k)
			if err := r.WriteInDir(results, resultpkg.Base(r.Name)); err != nil {
				t.Fatal(err)
			}
			if err := report.WriteDir(reports, r, report.Options{}); err != nil {
				t.Fatal(err)
			}
			o := AddOptions{Meta: Meta{Commit: commitOf(i), Branch: "main"}, ReportBase: "../reports"}
			if _, err := s.AddFiles(ctx, []string{r.Path}, o); err != nil {
				t.Fatal(err)
			}
		}
	}
	series, err := s.Series(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var trends []Trend
	for _, sr := range series {
		trends = append(trends, Analyze(sr, TrendOptions{}))
	}
	budgets := []budget.Limit{{Metric: metrics.FrameTimeP95, Value: 24}}
	if err := WritePages(pages, trends, PageOptions{Budgets: budgets}); err != nil {
		t.Fatal(err)
	}

	// The index, and the pages of a time, a count, a rate and a share.
	for _, name := range []string{"index", PageName("frame_time_p95"), PageName("jank"), PageName("fps"), PageName("cpu")} {
		t.Run(name, func(t *testing.T) {
			p := browsertest.Probe(t, bin, filepath.Join(pages, name+".html"))
			broken, files := p.BrokenLinks()
			if len(broken) > 0 {
				t.Errorf("broken links: %q", broken)
			}
			for _, o := range p.Overlaps() {
				t.Errorf("texts overlap: %s", o)
			}
			if name == "index" {
				if n := len(files) - len(files["all metrics"]); n < 4 {
					t.Errorf("the index links %d metrics' pages: %v", n, files)
				}
				return
			}
			points := 2 * runs
			if name != PageName("cpu") {
				points-- // the run without frames
			}
			checkTrendPage(t, p, files, points)
			if name == PageName("frame_time_p95") {
				// On the screen: the runs' points and the change points
				// for the worse.
				_, _, colours := browsertest.Render(t, bin, filepath.Join(pages, name+".html"), filepath.Join(pages, name+".png"), "1100,1200")
				for what, c := range map[string][3]uint8{"runs": {0x1f, 0x77, 0xb4}, "change for the worse": {0xd6, 0x27, 0x28}} {
					if colours[c] < 20 {
						t.Errorf("%s colour %x drawn on %d pixels", what, c, colours[c])
					}
				}
			}
		})
	}
}

// checkTrendPage checks a metric's page of two series: a heading and a
// chart per series, each of the points runs that measured the metric a
// link to a report
// (BrokenLinks checked it is there), the charts' y ticks alike, and whole
// numbers for a count.
func checkTrendPage(t *testing.T, p browsertest.Probed, files map[string][]string, points int) {
	t.Helper()
	heads := p.Headings[1:] // after the page's title
	if want := []string{"TestFeed · scroll · Pixel 6", "TestFeed · scroll · Pixel 7"}; !slices.Equal(heads, want) {
		t.Errorf("series headings %q, want %q", heads, want)
	}
	linked := 0
	for text, fs := range files {
		if text != "all metrics" {
			linked += len(fs)
		}
	}
	if linked != points {
		t.Errorf("%d runs link a report, want %d", linked, points)
	}
	ticks := map[int][]string{}
	metric := ""
	for _, tx := range p.Texts {
		if tx.Anchor == "end" && tx.Class == "" && tx.At == "60.0" {
			ticks[tx.SVG] = append(ticks[tx.SVG], tx.Text)
		}
	}
	for i, sv := range p.SVGs {
		metric = sv.Metric
		if !slices.Equal(ticks[i], ticks[0]) {
			t.Errorf("%s: chart %d's y ticks %q, chart 0's %q: the scales differ", sv.Metric, i, ticks[i], ticks[0])
		}
	}
	if len(p.SVGs) != 2 {
		t.Errorf("%d charts, want 2", len(p.SVGs))
	}
	if metrics.Name(metric).Def().Count {
		for _, tk := range ticks[0] {
			if _, err := strconv.Atoi(tk); err != nil {
				t.Errorf("%s: count tick %q is no whole number", metric, tk)
			}
		}
	}
}

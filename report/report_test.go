package report_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"html"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"
	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"

	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/android/surfaceflinger"
	pgassert "github.com/perfgate/perfgate/assert"
	"github.com/perfgate/perfgate/budget"
	framespkg "github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/internal/testenv"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/report/internal/sessview"
	"github.com/perfgate/perfgate/result"
)

// The Markdown summary of the recorded janky-scroll session, with budgets
// that the scroll step breaks (jank) and meets (fps), is a golden file:
// run 'go test ./report -update' to rewrite testdata/*.golden.
func TestMarkdownGolden(t *testing.T) {
	r := loadRecorded(t)
	cases := []struct {
		name string
		opts report.Options
	}{
		{"janky-scroll.md", report.Options{}},
		{"janky-scroll-budgets.md", report.Options{
			HTMLLink: "https://example.com/artifacts/report.html",
			Budgets: []budget.Limit{
				{Step: "scroll", Metric: "jank", Value: 2},
				{Step: "scroll", Metric: "fps", Value: 50, Min: true},
				{Metric: "frame_time_p95", Value: 12},
				{Step: "settle", Metric: "rx", Value: 1000},
			}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			assert.NilError(t, report.WriteMarkdown(&b, []*result.Result{r}, tc.opts))
			golden.Assert(t, b.String(), tc.name+".golden")
		})
	}
}

// A step that launched the app shows its startup times in the summary
// without a budget, each with its own source, and a summary checked
// against no budget does not claim "all budgets met".
func TestMarkdownStartupWithoutBudget(t *testing.T) {
	r := loadRecorded(t)
	launch := &result.Step{Name: "launch", Startup: &result.StartupStats{Kind: "cold", Source: "am start -W TotalTime; logcat Fully drawn",
		InitialDisplayMs: 2500, Iterations: []result.StartupSample{{TotalTimeMs: 2400}, {TotalTimeMs: 2500}}}}
	r.Steps = append([]*result.Step{launch}, r.Steps...)
	var b bytes.Buffer
	assert.NilError(t, report.WriteMarkdown(&b, []*result.Result{r}, report.Options{}))
	md := b.String()
	assert.Assert(t, strings.Contains(md, "## perfgate report: ✅ no failures (no budgets checked)\n"), md)
	assert.Assert(t, !strings.Contains(md, "all budgets met"), md)
	assert.Assert(t, strings.Contains(md, "| startup_initial | 2500ms | time to initial display, cold start, am start -W TotalTime, median of 2 |"), md)
	assert.Assert(t, strings.Contains(md, "| startup_full | not measured | startup: time to full display needs every launch to log"), md)
	// Steps that launched nothing have no startup rows.
	assert.Equal(t, strings.Count(md, "| startup_initial |"), 1, md)

	b.Reset()
	assert.NilError(t, report.WriteMarkdown(&b, []*result.Result{r}, report.Options{Budgets: []budget.Limit{{Step: "scroll", Metric: "jank", Value: 3}}}))
	assert.Assert(t, strings.Contains(b.String(), "## perfgate report: ✅ all budgets met\n"), b.String())
}

// The budgets' verdicts against the values the recorded Result holds, read
// by hand from testdata/janky-scroll.json: scroll has jank 3 (deadline
// missed), fps 55.3, p95 8.25 ms; settle received 2003 B. The summary
// carries the very line assert's checks report, and fails the session
// exactly when they do.
func TestBudgetVerdicts(t *testing.T) {
	r := loadRecorded(t)
	cases := []struct {
		step   string
		budget budget.Limit
		pass   bool
		line   string
	}{
		{"scroll", budget.Limit{Metric: "jank", Value: 2}, false, "perf budget exceeded: scroll: jank 3 > 2 (deadline missed; frames at 0.39s 1.48s 2.59s)"},
		{"scroll", budget.Limit{Metric: "jank", Value: 3}, true, ""},
		{"scroll", budget.Limit{Metric: "fps", Value: 50, Min: true}, true, ""},
		{"scroll", budget.Limit{Metric: "fps", Value: 56, Min: true}, false, "perf budget exceeded: scroll: fps 55.31 < 56 (" + "(n−1)/(t[n−1]−t[0]), gfxinfo)"},
		{"scroll", budget.Limit{Metric: "frame_time_p95", Value: 8.2}, false, "perf budget exceeded: scroll: frame_time_p95 8.25ms > 8.2ms (frame duration, nearest rank)"},
		{"settle", budget.Limit{Metric: "rx", Value: 1000}, false, "perf budget exceeded: settle: rx 2003B > 1000B (dumpsys netstats, scope uid)"},
		{"settle", budget.Limit{Metric: "startup", Value: 1000}, false, "perf budget not checked: settle: startup not measured (budget startup ≤ 1000)"},
		{"settle", budget.Limit{Metric: "startup_initial", Value: 1000}, false,
			"perf budget not checked: settle: startup_initial not measured (startup: the step launched nothing; budget startup_initial ≤ 1000ms)"},
		{"settle", budget.Limit{Step: "scroll", Metric: "jank", Value: 0}, true, ""}, // another step's budget does not apply
	}
	for _, tc := range cases {
		t.Run(tc.step+"/"+tc.budget.String(), func(t *testing.T) {
			one := &result.Result{Schema: r.Schema, Device: r.Device, App: r.App, Steps: []*result.Step{r.Step(tc.step)}}
			assert.Equal(t, report.Failed(one, []budget.Limit{tc.budget}), !tc.pass)
			var md bytes.Buffer
			assert.NilError(t, report.WriteMarkdown(&md, []*result.Result{one}, report.Options{Budgets: []budget.Limit{tc.budget}}))
			rt := &lineT{}
			pgassert.Check(rt, one, tc.budget)
			if tc.line != "" {
				assert.Assert(t, strings.Contains(md.String(), tc.line+"\n"), "want line %q in\n%s", tc.line, md.String())
				assert.DeepEqual(t, rt.lines, []string{tc.line})
			} else {
				assert.Assert(t, !strings.Contains(md.String(), "perf budget"), md.String())
				assert.Equal(t, len(rt.lines), 0)
			}
		})
	}
}

// lineT collects what a check reports.
type lineT struct{ lines []string }

func (l *lineT) Errorf(format string, args ...any) {
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}
func (l *lineT) FailNow() {}

// A crash fails the step even without a budget for it.
func TestCrashFailsWithoutBudget(t *testing.T) {
	st := &result.Step{Name: "tap", Crashes: []result.Crash{{Step: "tap", OldPIDs: []int{100}}}}
	r := &result.Result{Schema: result.Schema, Steps: []*result.Step{st}}
	assert.Equal(t, report.Failed(r, nil), true)
	var md bytes.Buffer
	assert.NilError(t, report.WriteMarkdown(&md, []*result.Result{r}, report.Options{}))
	assert.Assert(t, strings.Contains(md.String(), "perf budget exceeded: tap: crashes 1 > 0 ("), md.String())
}

// svgDoc is the part of an SVG chart the structure tests read.
type svgDoc struct {
	Chart   string  `xml:"data-chart,attr"`
	Paths   []svgEl `xml:"path"`
	Lines   []svgEl `xml:"line"`
	Circles []svgEl `xml:"circle"`
	// Linked are the marks that link to a janky frame's causes.
	Linked []svgEl `xml:"a>circle"`
	Texts  []svgEl `xml:"text"`
	Rects  []svgEl `xml:"rect"`
}

// marks are the chart's circles, linked to causes or not.
func (d svgDoc) marks() []svgEl { return append(slices.Clone(d.Circles), d.Linked...) }

type svgEl struct {
	Class  string `xml:"class,attr"`
	Series string `xml:"data-series,attr"`
	D      string `xml:"d,attr"`
	Y1     string `xml:"y1,attr"`
	Text   string `xml:",chardata"`
	Title  string `xml:"title"`
}

var svgRE = regexp.MustCompile(`(?s)<svg .*?</svg>`)

// charts returns the SVG charts of an HTML page in order, parsed.
func charts(t *testing.T, page string) []svgDoc {
	t.Helper()
	var out []svgDoc
	for _, s := range svgRE.FindAllString(page, -1) {
		var d svgDoc
		assert.NilError(t, xml.Unmarshal([]byte(s), &d), "chart is not well-formed XML: %.200s", s)
		out = append(out, d)
	}
	return out
}

// The HTML's structure: per step, the five charts in order, each drawing
// its series; jank marks on the frame-time chart that are exactly the
// frames the step's counts counted (the count per definition comes from
// perftest's summary, the marks from the report's own pass over the
// frames); the refresh deadline and budgets drawn as lines; facts, the
// metrics table and verdicts present.
func TestHTMLStructure(t *testing.T) {
	r := loadRecorded(t)
	budgets := []budget.Limit{
		{Step: "scroll", Metric: "fps", Value: 50, Min: true},
		{Metric: "frame_time_p95", Value: 12},
		{Metric: "pss_max", Value: 200000},
		{Metric: "cpu", Value: 30},
		{Metric: "rx", Value: 8192},
		{Step: "scroll", Metric: "jank", Value: 2},
	}
	var b bytes.Buffer
	assert.NilError(t, report.WriteHTML(&b, []*result.Result{r}, report.Options{Budgets: budgets}))
	page := b.String()
	cs := charts(t, page)
	assert.Equal(t, cs[len(cs)-1].Chart, "memory-breakdown") // the session's, after its steps
	cs = cs[:len(cs)-1]
	assert.Equal(t, len(cs), 6*len(r.Steps))
	for i, st := range r.Steps {
		step := cs[6*i : 6*i+6]
		var ids []string
		for _, c := range step {
			ids = append(ids, c.Chart)
		}
		assert.DeepEqual(t, ids, []string{"frametime", "fps", "cpu", "memory", "traffic", "battery"})
		for _, c := range step {
			drawn := 0
			for _, p := range c.Paths {
				if p.Class == "series" && strings.HasPrefix(p.D, "M") {
					drawn++
				}
			}
			assert.Assert(t, drawn >= 1, "%s: chart %s drew no series", st.Name, c.Chart)
		}
		ft := step[0]
		count := func(class string) int {
			n := 0
			for _, c := range ft.marks() {
				if c.Class == "jank "+class {
					n++
				}
			}
			return n
		}
		fs := st.FrameStats
		assert.Equal(t, count("jank-deadline"), *fs.DeadlineMissed, "%s: deadline-missed marks", st.Name)
		assert.Equal(t, count("jank-perfdog"), fs.PerfDog.Jank, "%s: PerfDog marks", st.Name)
		assert.Equal(t, count("jank-bigjank"), fs.PerfDog.BigJank, "%s: BigJank marks", st.Name)
		// Frame-time series: one vertex per frame with a duration.
		for _, p := range ft.Paths {
			if p.Class == "series" {
				assert.Equal(t, strings.Count(p.D, "L")+1, fs.Frames, "%s: frame-time vertices", st.Name)
			}
		}
		classes := map[string]int{}
		for _, l := range ft.Lines {
			classes[l.Class]++
		}
		assert.Equal(t, classes["deadline"], 1)
		assert.Equal(t, classes["budget"], 1) // frame_time_p95
		for _, c := range step[1:] {
			nb := 0
			for _, l := range c.Lines {
				if l.Class == "budget" {
					nb++
				}
			}
			want := map[string]int{"fps": 0, "cpu": 1, "memory": 1, "traffic": 1}[c.Chart]
			if c.Chart == "fps" && st.Name == "scroll" {
				want = 1
			}
			assert.Equal(t, nb, want, "%s: %s budget lines", st.Name, c.Chart)
		}
	}
	for _, want := range []string{
		"<th>device</th><td>Google Pixel 6</td>", "<th>android</th><td>13</td>", "<th>refresh</th><td>60 Hz</td>",
		"<th>package</th><td>com.perfgate.demo</td>",
		`<li class="fail">perf budget exceeded: scroll: jank 3 &gt; 2 (deadline missed; frames at 0.39s 1.48s 2.59s)</li>`,
		"<td>jank_perfdog</td><td class=\"num\">2</td>",
	} {
		assert.Assert(t, strings.Contains(page, want), "page lacks %q", want)
	}
	assert.Assert(t, !strings.Contains(page, "<script"), "the page must need no script")
	assert.Assert(t, !regexp.MustCompile(`(?i)(src|href)="https?:`).MatchString(page), "the page must fetch nothing")
}

// Gaps, crashes and an early end are shown, and text from the device is
// escaped.
func TestHTMLShowsErrors(t *testing.T) {
	r := loadRecorded(t)
	r.Error = "device unreachable: <eof>"
	st := r.Step("scroll")
	mid := (st.HostStartNs + st.HostEndNs) / 2
	r.Gaps = []result.Gap{{Lane: "cheap", HostNs: mid, DurationNs: 2e8, Step: "scroll", Error: `adbx shell: read "<x>": EOF`}}
	st.Gaps = 1
	r.Crashes = []result.Crash{{HostNs: mid, Step: "scroll", OldPIDs: []int{1}, NewPIDs: []int{2}, Logcat: []string{"E AndroidRuntime: FATAL EXCEPTION: <main>"}}}
	st.Crashes = r.Crashes
	var b bytes.Buffer
	assert.NilError(t, report.WriteHTML(&b, []*result.Result{r}, report.Options{}))
	page := b.String()
	for _, want := range []string{
		`<p class="error">Session ended early: device unreachable: &lt;eof&gt;</p>`,
		`<code>adbx shell: read &#34;&lt;x&gt;&#34;: EOF</code>`,
		`FATAL EXCEPTION: &lt;main&gt;`,
		`<span class="flag">1 failed ticks</span>`,
		`perf budget exceeded: scroll: crashes 1 &gt; 0`,
	} {
		assert.Assert(t, strings.Contains(page, want), "page lacks %q", want)
	}
	gapRects := 0
	for _, c := range charts(t, page)[:5] {
		for _, rc := range c.Rects {
			if rc.Class == "gap" {
				gapRects++
			}
		}
	}
	assert.Equal(t, gapRects, 5, "the gap is shaded on every chart of the step")

	var md bytes.Buffer
	assert.NilError(t, report.WriteMarkdown(&md, []*result.Result{r}, report.Options{}))
	for _, want := range []string{"> ❌ session ended early: device unreachable: &lt;eof&gt;", "❌ 1 crashes: in `scroll`", "⚠️ 1 failed reads (gaps); first: `adbx shell: read \"<x>\": EOF`", "⚠️ 1 failed ticks"} {
		assert.Assert(t, strings.Contains(md.String(), want), "markdown lacks %q:\n%s", want, md.String())
	}
}

// A step without frames, CPU or memory says "no data" rather than drawing
// empty axes.
func TestHTMLEmptyStep(t *testing.T) {
	r := &result.Result{Schema: result.Schema, Name: "TestEmpty", App: result.AppInfo{Package: "com.example"},
		Steps: []*result.Step{{Name: "idle", HostEndNs: 1e9, DeviceEndNs: 1e9}}}
	var b bytes.Buffer
	assert.NilError(t, report.WriteHTML(&b, []*result.Result{r}, report.Options{}))
	assert.Equal(t, strings.Count(b.String(), `class="nodata"`), 7) // and the session's memory breakdown
	var md bytes.Buffer
	assert.NilError(t, report.WriteMarkdown(&md, []*result.Result{r}, report.Options{}))
	assert.Assert(t, strings.Contains(md.String(), "| crashes | 0 |"))
}

// Hand-built frames with known times: the FPS and frame-time series of
// the chart follow the definitions. 60 Hz gfxinfo frames every 16.6 ms for
// 1.5 s, one of which takes 40 ms and misses its deadline (deadline =
// vsync + 16.6 ms).
func TestChartSeriesHandComputed(t *testing.T) {
	const period = 16_666_667
	var frames []framespkg.Frame
	var gf []gfxinfo.FrameStats
	for i := range 90 { // 90 frames over 1.5 s
		iv := int64(1e9) + int64(i)*period
		dur := int64(8e6)
		if i == 45 {
			dur = 40e6
		}
		g := gfxinfo.FrameStats{IntendedVsync: iv, Vsync: iv, FrameCompleted: iv + dur, FrameDeadline: iv + period}
		frames = append(frames, framespkg.Frame{Source: "gfxinfo", Window: "w", FrameStats: g})
		gf = append(gf, g)
	}
	st := &result.Step{Name: "s", HostStartNs: 0, HostEndNs: 1.5e9, DeviceStartNs: 1e9, DeviceEndNs: 2.5e9,
		HostEnd: time.Unix(0, 1.5e9), HostStart: time.Unix(0, 0)}
	st.FrameStats = framespkg.SummarizeGfxInfo(gf, period)
	st.FrameStats.Window = "w"
	r := &result.Result{Schema: result.Schema, Name: "hand", Frames: frames, Steps: []*result.Step{st}}
	var b bytes.Buffer
	assert.NilError(t, report.WriteHTML(&b, []*result.Result{r}, report.Options{}))
	cs := charts(t, b.String())
	ft, fps := cs[0], cs[1]
	// Exactly one deadline mark, on the 40 ms frame at 45 × 16.67 ms = 0.75 s.
	var marks []string
	for _, c := range ft.marks() {
		if c.Class == "jank jank-deadline" {
			marks = append(marks, c.Title)
		}
	}
	assert.DeepEqual(t, marks, []string{"deadline missed at 0.750 s: 40 ms"})
	// FPS per second: 60 frames in [0,1) s; 30 frames in [1,1.5) s → 60 fps.
	var pts []string
	for _, p := range fps.Paths {
		if p.Class == "series" {
			pts = strings.Split(strings.TrimPrefix(p.D, "M"), "L")
		}
	}
	assert.Equal(t, len(pts), 2)
	ys := []float64{}
	for _, p := range pts {
		f := strings.Fields(p)
		y, err := strconv.ParseFloat(f[1], 64)
		assert.NilError(t, err)
		ys = append(ys, y)
	}
	assert.Equal(t, ys[0], ys[1], "both seconds are at 60 fps")
}

// The benchmark text parses as Go benchmark format, one result per step,
// with the values the Result holds, scaled to benchstat's units.
func TestBenchstatFormat(t *testing.T) {
	r := loadRecorded(t)
	var b bytes.Buffer
	assert.NilError(t, report.WriteBenchstat(&b, []*result.Result{r, r}))
	rd := benchfmt.NewReader(&b, "janky.txt")
	var names []string
	var cfg []string
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Fatalf("syntax error: %v", rec)
		case *benchfmt.Result:
			names = append(names, string(rec.Name.Full()))
			if len(cfg) == 0 {
				for _, c := range rec.Config {
					cfg = append(cfg, c.Key+"="+string(c.Value))
				}
			}
			if strings.HasSuffix(string(rec.Name.Full()), "step=scroll") {
				v, ok := rec.Value("p95-frame-sec")
				assert.Assert(t, ok, "p95 frame time in seconds after tidying")
				assert.Assert(t, v > 0.00824 && v < 0.00825, "p95 %v s, want 8.246 ms", v)
				j, _ := rec.Value("jank")
				assert.Equal(t, j, 3.0)
				pss, _ := rec.Value("pss-max-B")
				assert.Equal(t, pss, 124000.0*1024)
			}
		}
	}
	assert.DeepEqual(t, names, []string{
		"Perf/test=TestJankyScroll/step=scroll", "Perf/test=TestJankyScroll/step=settle",
		"Perf/test=TestJankyScroll/step=scroll", "Perf/test=TestJankyScroll/step=settle",
	})
	assert.DeepEqual(t, cfg, []string{"device=Google Pixel 6", "android=13", "api=33", "refresh-hz=60", "package=com.perfgate.demo"})
}

// PERFGATE_REPORT: every session's reports land in the directory with an
// index linking all of them, also when many write at once.
func TestWriteDir(t *testing.T) {
	t.Parallel()
	r := loadRecorded(t)
	dir := filepath.Join(t.TempDir(), "reports")
	const n = 8
	errs := make(chan error, n)
	for i := range n {
		go func() {
			c := *r
			c.Name = fmt.Sprintf("TestFeed/case_%d", i)
			errs <- report.WriteDir(dir, &c, report.Options{Budgets: []budget.Limit{{Metric: "jank", Value: 2}}})
		}()
	}
	for range n {
		assert.NilError(t, <-errs)
	}
	index, err := os.ReadFile(filepath.Join(dir, "index.html"))
	assert.NilError(t, err)
	for i := range n {
		base := fmt.Sprintf("TestFeed_case_%d@report", i)
		for _, ext := range []string{".html", ".md", ".json"} {
			_, err := os.Stat(filepath.Join(dir, base+ext))
			assert.NilError(t, err)
		}
		assert.Assert(t, strings.Contains(string(index), `<a href="`+base+`.html">TestFeed/case_`+strconv.Itoa(i)+` · `+sessview.Device(r)+`</a>`), "index lacks %s", base)
	}
	assert.Equal(t, strings.Count(string(index), `<span class="fail">failed</span>`), n, "jank 3 > 2 fails every session")
	md, err := os.ReadFile(filepath.Join(dir, "TestFeed_case_0@report.md"))
	assert.NilError(t, err)
	assert.Assert(t, strings.Contains(string(md), "[HTML report](TestFeed_case_0@report.html)"))
}

// Six runs of one test on one phone (go test -count=6) are six rows of
// the index, each named by device and run as the session pages name
// them, not six rows reading TestScrollJankBudget.
func TestWriteDirNamesRuns(t *testing.T) {
	r := loadRecorded(t)
	dir := t.TempDir()
	start := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for i := range 6 {
		c := *r
		c.Start = start.Add(time.Duration(5-i) * time.Minute) // written newest first
		assert.NilError(t, report.WriteDir(dir, &c, report.Options{}))
	}
	b, err := os.ReadFile(filepath.Join(dir, "index.html"))
	assert.NilError(t, err)
	index := html.UnescapeString(string(b))
	for k := range 6 {
		want := fmt.Sprintf(">%s · %s · run %d of 6, %s</a>", r.Name, sessview.Device(r), k+1, start.Add(time.Duration(k)*time.Minute).Format("2006-01-02 15:04:05"))
		assert.Equal(t, strings.Count(index, want), 1, "index names run %d %q once:\n%s", k+1, want, index)
	}
}

// PERFGATE_REPORT=try/rep names one folder at the module root, as
// PERFGATE_HISTORY names one file there: a session in example_test/
// writes its reports to ./try/rep, not ./example_test/try/rep.
func TestReportFromEnvModuleRoot(t *testing.T) {
	r := loadRecorded(t)
	mod := testenv.InModulePackage(t)
	t.Setenv(report.EnvReportDir, "try/rep")
	assert.NilError(t, report.ReportFromEnv(r, report.Options{}))
	_, err := os.Stat(filepath.Join(mod, "try", "rep", "index.html"))
	assert.NilError(t, err, "no index at the module root")
	_, err = os.Stat(filepath.Join(mod, "example_test", "try"))
	assert.Assert(t, os.IsNotExist(err), "reports written below the package folder: %v", err)
}

func TestReportFromEnv(t *testing.T) {
	r := loadRecorded(t)
	t.Setenv(report.EnvReportDir, "")
	assert.NilError(t, report.ReportFromEnv(r, report.Options{}))
	dir := t.TempDir()
	t.Setenv(report.EnvReportDir, dir)
	assert.NilError(t, report.ReportFromEnv(r, report.Options{}))
	_, err := os.Stat(filepath.Join(dir, "TestJankyScroll@report.html"))
	assert.NilError(t, err)
}

// Two sessions of one name in one run (go test -count=2, or the same test
// name in another package's run at once) keep their own reports; a
// session whose Result is already in the folder gets no second copy.
func TestWriteDirNeverOverwrites(t *testing.T) {
	t.Parallel()
	r := loadRecorded(t)
	dir := t.TempDir()
	for i := range 2 {
		c := *r
		c.Notes = []string{fmt.Sprintf("session %d", i)}
		assert.NilError(t, report.WriteDir(dir, &c, report.Options{}))
	}
	for i, base := range []string{"TestJankyScroll@report", "TestJankyScroll@report.2"} {
		got, err := result.ReadResult(filepath.Join(dir, base+".json"))
		assert.NilError(t, err)
		assert.DeepEqual(t, got.Notes, []string{fmt.Sprintf("session %d", i)})
		_, err = os.Stat(filepath.Join(dir, base+".html"))
		assert.NilError(t, err)
	}

	c := *r
	assert.NilError(t, c.WriteInDir(dir, "TestOwn@report"))
	assert.NilError(t, report.WriteDir(dir, &c, report.Options{}))
	_, err := os.Stat(filepath.Join(dir, "TestOwn@report.html"))
	assert.NilError(t, err)
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	assert.Equal(t, len(files), 3, "%q", files)
}

// A failing writer's error comes back, named.
func TestWriteErrors(t *testing.T) {
	r := loadRecorded(t)
	for name, write := range map[string]func(io.Writer) error{
		"html":     func(w io.Writer) error { return report.WriteHTML(w, []*result.Result{r}, report.Options{}) },
		"markdown": func(w io.Writer) error { return report.WriteMarkdown(w, []*result.Result{r}, report.Options{}) },
		"bench":    func(w io.Writer) error { return report.WriteBenchstat(w, []*result.Result{r}) },
	} {
		err := write(failWriter{})
		assert.ErrorContains(t, err, "disk full", name)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, fmt.Errorf("disk full") }

// A corrupt Result whose step spans centuries once made the FPS chart
// allocate a bin per second; the chart now widens its bins instead.
func TestHTMLHugeStep(t *testing.T) {
	st := &result.Step{Name: "s", HostEndNs: math.MaxInt64, DeviceEndNs: math.MaxInt64}
	st.FrameStats = framespkg.Summary{Source: "surfaceflinger", Window: "w", Frames: 3, RefreshPeriodMS: 16.7}
	r := &result.Result{Schema: result.Schema, Steps: []*result.Step{st}, Frames: []framespkg.Frame{
		{Source: "surfaceflinger", Window: "w", LatencyFrame: surfaceflinger.LatencyFrame{ActualPresent: 1}},
		{Source: "surfaceflinger", Window: "w", LatencyFrame: surfaceflinger.LatencyFrame{ActualPresent: 2e7}},
		{Source: "surfaceflinger", Window: "w", LatencyFrame: surfaceflinger.LatencyFrame{ActualPresent: math.MaxInt64 - 1}}}}
	var b bytes.Buffer
	assert.NilError(t, report.WriteHTML(&b, []*result.Result{r}, report.Options{Budgets: []budget.Limit{{Metric: "fps", Value: math.MaxFloat64}}}))
	assert.Equal(t, len(charts(t, b.String())), 7) // the step's and the session's memory breakdown
	assert.Assert(t, b.Len() < 200_000, "page of %d bytes", b.Len())
}

// Restarts the test caused are listed apart from crashes and do not fail
// the session.
func TestHTMLRestarts(t *testing.T) {
	r := loadRecorded(t)
	r.Restarts = []result.Crash{{HostNs: 1_500_000_000, Step: "scroll", OldPIDs: []int{100}, NewPIDs: []int{200}}}
	var b bytes.Buffer
	assert.NilError(t, report.WriteHTML(&b, []*result.Result{r}, report.Options{}))
	assert.Assert(t, strings.Contains(b.String(), "<h3>Restarts the test caused (1)</h3>"))
	assert.Assert(t, strings.Contains(b.String(), "in step scroll: pids [100] → [200] (not a crash)"), "restart line missing")
	assert.Assert(t, !strings.Contains(b.String(), `<h3 class="fail">Crashes</h3>`))
}

// A metric the step could not measure reads "not measured" with the
// reason in every report, never 0 and never a blank; benchstat's reader
// skips the reason lines.
func TestReportsSayNotMeasured(t *testing.T) {
	r := loadRecorded(t)
	why := `traffic: /proc/<pid>/net/dev unreadable on every read in the step (7 failed; last: exit 1: "cat: /proc/4242/net/dev: No such file or directory")`
	settle := r.Step("settle")
	settle.TrafficStats = nil
	settle.NotMeasured = map[metrics.Name]string{"rx": why, "tx": why}
	budgets := report.Options{Budgets: []budget.Limit{{Step: "settle", Metric: "rx", Value: 1000}}}

	var md bytes.Buffer
	assert.NilError(t, report.WriteMarkdown(&md, []*result.Result{r}, budgets))
	esc := strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(why)
	assert.Assert(t, strings.Contains(md.String(), "| rx | not measured | "+esc+" | ≤ 1000B | ❌ |\n"), md.String())
	assert.Assert(t, strings.Contains(md.String(), "| tx | not measured | "+esc+" |  |  |\n"), md.String())
	assert.Assert(t, strings.Contains(md.String(), "perf budget not checked: settle: rx not measured ("+why+"; budget rx ≤ 1000B)\n"), md.String())

	var html bytes.Buffer
	assert.NilError(t, report.WriteHTML(&html, []*result.Result{r}, budgets))
	row := regexp.MustCompile(`<tr><td>rx</td><td class="num">([^<]*)</td><td>B</td><td>([^<]*)</td>`)
	var got []string
	for _, m := range row.FindAllStringSubmatch(html.String(), -1) {
		got = append(got, m[1]+" | "+m[2])
	}
	// scroll measured its bytes; settle did not.
	assert.DeepEqual(t, got, []string{"6008 | dumpsys netstats, scope uid", "not measured | " + strings.NewReplacer("<", "&lt;", ">", "&gt;", `"`, "&#34;").Replace(why)})

	var bench bytes.Buffer
	assert.NilError(t, report.WriteBenchstat(&bench, []*result.Result{r}))
	assert.Assert(t, strings.Contains(bench.String(), "\n# settle: not measured: rx, tx ("+why+")\n"), bench.String())
	rd := benchfmt.NewReader(&bench, "b.txt")
	for rd.Scan() {
		rec, ok := rd.Result().(*benchfmt.Result)
		assert.Assert(t, ok, "%v", rd.Result())
		if strings.HasSuffix(string(rec.Name.Full()), "step=settle") {
			_, has := rec.Value("rx-B")
			assert.Assert(t, !has, "settle reports rx-B")
		}
	}
}

// A metric the catalogue gained reaches every report with no code of the
// report's own: GT SM in the HTML table, the benchmark line, and a budget
// on it in the summary, failing with the gates' line.
func TestCatalogueMetricInEveryReport(t *testing.T) {
	r := loadRecorded(t)
	st := r.Step("scroll")
	st.Smoothness = &result.SmoothnessStats{Source: "logcat Choreographer: Skipped N frames!", RefreshHz: 60, MinSM: 16, Skipped: 88}
	one := &result.Result{Schema: r.Schema, Name: r.Name, Device: r.Device, App: r.App, Steps: []*result.Step{st}}
	budgets := report.Options{Budgets: []budget.Limit{{Step: "scroll", Metric: metrics.SMGT, Value: 30, Min: true}}}

	var html, md, bench bytes.Buffer
	assert.NilError(t, report.WriteHTML(&html, []*result.Result{one}, budgets))
	assert.NilError(t, report.WriteMarkdown(&md, []*result.Result{one}, budgets))
	assert.NilError(t, report.WriteBenchstat(&bench, []*result.Result{one}))
	assert.Assert(t, strings.Contains(html.String(), `<tr><td>sm_gt</td><td class="num">16</td><td>fps</td>`), "HTML lacks the sm_gt row")
	assert.Assert(t, strings.Contains(bench.String(), " 16 gt-sm-fps "), bench.String())
	line := "perf budget exceeded: scroll: sm_gt 16 < 30 (GT SM, the step's lowest second (refresh 60 Hz), logcat Choreographer: Skipped N frames!)"
	assert.Assert(t, strings.Contains(md.String(), "| sm_gt | 16 | "), md.String())
	assert.Assert(t, strings.Contains(md.String(), line+"\n"), md.String())
	rt := &lineT{}
	pgassert.Check(rt, one, budgets.Budgets...)
	assert.DeepEqual(t, rt.lines, []string{line})
}

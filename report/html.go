package report

import (
	"fmt"
	"html/template"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/report/internal/heapview"
	"github.com/perfgate/perfgate/report/internal/launchview"
	"github.com/perfgate/perfgate/report/internal/memchart"
	"github.com/perfgate/perfgate/report/internal/powerchart"
	"github.com/perfgate/perfgate/report/internal/sessview"
	"github.com/perfgate/perfgate/report/internal/traceview"
	"github.com/perfgate/perfgate/result"
)

// Options shape a report. The zero value reports without budgets or links.
type Options struct {
	// Title heads the page or summary; default "perfgate report".
	Title string
	// Budgets are checked in the metrics tables and drawn on the charts: a
	// limit with a step applies to that step and its iterations, one
	// without to every step (see budget.ParseLimit, (*budget.File).Limits).
	// They add to the verdicts each Result keeps (Result.Verdicts), which
	// a report shows as they are.
	Budgets []budget.Limit
	// BudgetFile, when set, adds to Budgets the budgets of each Result's
	// device model (see (*budget.File).LimitsFor): a file with budgets per
	// model checks each device against its model's, added to the shared.
	BudgetFile *budget.File
	// HTMLLink, when set, is where the Markdown summary links to the full
	// HTML report (a CI artifact's URL or a relative path).
	HTMLLink string
	// Comparison, when set, adds its regression lines to the Markdown.
	Comparison *Comparison
	// PageDir is the HTML page's folder, links go from there; "": file URLs.
	PageDir string
}

func (o Options) title() string {
	if o.Title == "" {
		return "perfgate report"
	}
	return o.Title
}

type htmlFact struct{ Key, Value string }

type htmlMetric struct {
	metrics.Metric
	Shown   string
	Budget  string
	Verdict string // "pass", "fail" or ""
}

type htmlStep struct {
	Name       string
	Of         string // the run's label, on a page of several
	Anchor     string
	Duration   string
	Flags      []string
	Failures   []string
	Warnings   []string
	Charts     []template.HTML
	Causes     template.HTML
	Metrics    []htmlMetric
	Windows    []result.WindowFrames
	Thermal    *result.ThermalStats
	Battery    *result.BatteryStats
	MemSummary []htmlFact
	Trace      *traceview.Step
	Launches   template.HTML // the startup phases (launchview)
}

type htmlResult struct {
	Name   string
	Anchor string
	Failed bool
	// Failures are the session's failing lines: every failing verdict,
	// wherever it belongs (a step the run lacks has no section).
	Failures []string
	Error    string
	Facts    []htmlFact
	Sources  []htmlFact
	Notes    []string
	Steps    []htmlStep
	Gaps     []result.Gap
	Crashes  []result.Crash
	// Restarts are process changes the test caused (a cold launch).
	Restarts []result.Crash
	Trace    *traceview.Trace
	Memory   template.HTML // the App Summary over the session (memchart)
	Power    template.HTML // the energy lane over the session, heap dumps
	Heap     template.HTML
}

type htmlPage struct {
	Title     string
	Generated string
	Devices   []deviceTable
	Results   []htmlResult
	// Aggregates sum up the repeated runs of each test.
	Aggregates template.HTML
}

// pageCSS is the style of every perfgate page: reports and comparisons.
const pageCSS = `body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#222;max-width:1100px}
h1{font-size:22px}h2{font-size:19px;border-bottom:1px solid #ccc;padding-bottom:4px;margin-top:32px}h3{font-size:16px;margin-top:24px}
table{border-collapse:collapse;margin:8px 0}details.causes{margin:8px 0}tr:target{background:#fff8c5}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f5f5f5}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.pass{color:#1a7f37;font-weight:bold}.fail{color:#cf222e;font-weight:bold}
.error{background:#ffebe9;border:1px solid #cf222e;padding:8px;border-radius:4px}
.flag{background:#fff8c5;border:1px solid #d4a72c;padding:1px 6px;border-radius:4px;margin-right:6px}
svg.chart{display:block;margin:8px 0;max-width:100%;height:auto;font-family:system-ui,sans-serif}
pre{background:#f6f8fa;padding:8px;overflow:auto;font-size:12px}
.muted{color:#666}
`

// pageHead opens every perfgate page, up to its own styles.
const pageHead = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
` + pageCSS

var pageTmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	"ms": func(ns int64) string { return fmt.Sprintf("%.3f s", sec(ns)) },
}).Parse(pageHead + `</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="muted">Generated {{.Generated}}. Every number follows perfgate's metric definitions and names its source.</p>
{{if .Devices}}<h2>Devices side by side</h2><p class="muted">The worst device of each metric is marked <span class="fail">▼</span>.</p>
{{range .Devices}}<h3>{{.Test}} · step {{.Step}}</h3>
<table class="devices"><tr><th>metric</th>{{range .Devices}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}{{$w := .Worst}}<tr><td>{{.Metric}} ({{.Unit}})</td>{{range $i, $c := .Cells}}<td class="num">{{if eq $i $w}}<strong class="fail">{{$c.Text}} ▼</strong>{{else}}{{$c.Text}}{{end}}{{if eq $c.Verdict "pass"}} <span class="pass">pass</span>{{else if eq $c.Verdict "fail"}} <span class="fail">FAIL</span>{{end}}</td>{{end}}</tr>
{{end}}</table>{{end}}{{end}}
{{.Aggregates}}{{if gt (len .Results) 1}}<ul class="toc">{{range .Results}}<li><a href="#{{.Anchor}}">{{.Name}}</a>{{if .Failed}} <span class="fail">failed</span>{{end}}</li>{{end}}</ul>{{end}}
{{range .Results}}
<section class="result" id="{{.Anchor}}">
<h2>{{.Name}}{{if .Failed}} <span class="fail">✗</span>{{else}} <span class="pass">✓</span>{{end}}</h2>
{{if .Error}}<p class="error">Session ended early: {{.Error}}</p>{{end}}
{{if .Failures}}<div class="error"><strong>Failed:</strong><ul class="failures">{{range .Failures}}<li>{{.}}</li>{{end}}</ul></div>{{end}}
<table class="facts">{{range .Facts}}<tr><th>{{.Key}}</th><td>{{.Value}}</td></tr>{{end}}</table>
{{if .Sources}}<details><summary>Sources</summary><table class="sources">{{range .Sources}}<tr><th>{{.Key}}</th><td><code>{{.Value}}</code></td></tr>{{end}}</table></details>{{end}}
{{if .Notes}}<ul class="notes">{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{with .Trace}}<p class="trace">{{if .File}}Perfetto trace: <a href="{{.Href}}"><code>{{.File}}</code></a> ({{.Size}}{{if .Sources}}; {{.Sources}}{{end}}). To look at it, open <a href="{{.UI}}">{{.UI}}</a> and choose <em>Open trace file</em>: the browser reads the file, which stays on your machine.{{else}}Perfetto trace not recorded: {{.NotRecorded}}{{end}}</p>{{if .Notes}}<ul class="notes">{{range .Notes}}<li>trace: {{.}}</li>{{end}}</ul>{{end}}{{end}}
{{range .Steps}}
<section class="step" id="{{.Anchor}}">
<h3>Step {{.Name}}{{with .Of}} · {{.}}{{end}} <span class="muted">({{.Duration}})</span> {{range .Flags}}<span class="flag">{{.}}</span>{{end}}</h3>
{{if .Failures}}<ul class="failures">{{range .Failures}}<li class="fail">{{.}}</li>{{end}}</ul>{{end}}
{{if .Warnings}}<ul class="warnings">{{range .Warnings}}<li>⚠ {{.}}</li>{{end}}</ul>{{end}}
{{range .Charts}}{{.}}
{{end}}{{.Causes}}{{.Launches}}
<table class="metrics"><tr><th>metric</th><th>value</th><th>unit</th><th>definition / source</th><th>budget</th><th></th></tr>
{{range .Metrics}}<tr><td>{{.Name}}</td><td class="num">{{.Shown}}</td><td>{{.Unit}}</td><td>{{.Definition}}</td><td>{{.Budget}}</td><td>{{if eq .Verdict "pass"}}<span class="pass">pass</span>{{else if eq .Verdict "fail"}}<span class="fail">FAIL</span>{{end}}</td></tr>
{{end}}</table>
{{if gt (len .Windows) 1}}<p>Windows that rendered in this step (frame metrics use the first): {{range $i, $w := .Windows}}{{if $i}}, {{end}}<code>{{$w.Window}}</code> {{$w.Frames}} frames{{end}}</p>{{end}}
{{if .MemSummary}}<p>App Summary (KiB): {{range $i, $f := .MemSummary}}{{if $i}}, {{end}}{{$f.Key}} {{$f.Value}}{{end}}</p>{{end}}
{{with .Battery}}<p>Battery ({{.Source}}): {{.StartLevelPct}}% → {{.EndLevelPct}}%, max {{.MaxTemperatureC}} °C</p>{{end}}
{{with .Thermal}}<p>Hottest thermal zone: {{.MaxZone}} {{.MaxC}} °C</p>{{end}}
{{with .Trace}}<h4>FrameTimeline (Perfetto trace)</h4><p>{{.Summary}}; an app jank is App Deadline Missed or App Resynced Jitter.{{if .Partial}} <span class="flag">partial: {{.Partial}}</span>{{end}}</p>
{{if .Missing}}<ul class="notes">{{range .Missing}}<li>not measured: {{.}}</li>{{end}}</ul>{{end}}
{{if .Frames}}<table class="janky"><tr><th>at</th><th>frame</th><th>length</th><th>jank</th><th>present</th><th>main thread (ms)</th><th>longest slices</th><th>polled</th></tr>
{{range .Frames}}<tr><td class="num">{{.At}}</td><td>{{.Token}}</td><td class="num">{{.Length}}</td><td>{{if .App}}<span class="fail">{{.Jank}}</span>{{else}}{{.Jank}}{{end}}</td><td>{{.Present}}</td><td>{{.States}}</td><td>{{range $i, $s := .Slices}}{{if $i}}<br>{{end}}{{$s}}{{end}}</td><td>{{.Polled}}</td></tr>
{{end}}</table>{{end}}{{end}}
</section>
{{end}}{{.Power}}{{.Memory}}{{.Heap}}
{{if .Gaps}}<h3>Gaps ({{len .Gaps}} failed reads; samples around them are kept)</h3>
<table class="gaps"><tr><th>at</th><th>lane</th><th>step</th><th>took</th><th>error</th></tr>
{{range .Gaps}}<tr><td class="num">{{ms .HostNs}}</td><td>{{.Lane}}</td><td>{{.Step}}</td><td class="num">{{ms .DurationNs}}</td><td><code>{{.Error}}</code></td></tr>
{{end}}</table>{{end}}
{{if .Restarts}}<h3>Restarts the test caused ({{len .Restarts}})</h3>
{{range .Restarts}}<p>At {{ms .HostNs}} in step {{.Step}}: pids {{.OldPIDs}} → {{.NewPIDs}} (not a crash)</p>
{{end}}{{end}}{{if .Crashes}}<h3 class="fail">Crashes</h3>
{{range .Crashes}}<p>At {{ms .HostNs}} in step {{.Step}}: pids {{.OldPIDs}} → {{.NewPIDs}}</p>{{if .Logcat}}<pre>{{range .Logcat}}{{.}}
{{end}}</pre>{{end}}{{end}}{{end}}
</section>
{{end}}
</body>
</html>
`))

// WriteHTML writes one self-contained HTML page for the results: per
// step, charts (inline SVG), the metrics table with budget verdicts, and
// the device and app facts, gaps, crashes and errors of each session.
func WriteHTML(w io.Writer, results []*result.Result, opts Options) error {
	page := htmlPage{Title: opts.title(), Generated: generated(results), Devices: deviceTables(results, opts)}
	labels := sessview.Labels(results)
	var runs []sessview.Run
	for i, r := range results {
		page.Results = append(page.Results, htmlResultOf(r, i, opts.forResult(r), labels[i]))
		runs = append(runs, runValues(r, labels[i], "#"+page.Results[i].Anchor))
	}
	page.Aggregates = sessview.HTML(sessview.Aggregate(runs))
	if err := pageTmpl.Execute(w, page); err != nil {
		return fmt.Errorf("report html: %w", err)
	}
	return nil
}

func generated(results []*result.Result) string { return sessview.Generated(results) }

func resultName(r *result.Result) string { return sessview.Name(r) }

func htmlResultOf(r *result.Result, i int, opts Options, label string) htmlResult {
	hr := htmlResult{Name: label, Anchor: fmt.Sprintf("r%d", i+1), Error: r.Error, Notes: r.Notes, Gaps: r.Gaps, Crashes: r.Crashes, Restarts: r.Restarts,
		Trace: traceview.Session(r, opts.PageDir), Memory: template.HTML(memchart.Session(r)),
		Power: template.HTML(powerchart.Session(r)), Heap: heapview.HTML(r, opts.PageDir)}
	for _, f := range sessview.Facts(r) {
		hr.Facts = append(hr.Facts, htmlFact(f))
	}
	for _, k := range slices.Sorted(maps.Keys(r.Config.Sources)) {
		hr.Sources = append(hr.Sources, htmlFact{k, r.Config.Sources[k]})
	}
	hr.Failures = Failures(r, opts.Budgets)
	hr.Failed = len(hr.Failures) > 0
	of := sessview.Beyond(label, resultName(r))
	for j, st := range r.Steps {
		hs := htmlStep{Name: st.Name, Of: of, Anchor: fmt.Sprintf("r%d-s%d", i+1, j+1), Duration: st.Duration().Round(time.Millisecond).String(),
			Windows: st.Windows, Thermal: st.ThermalStats, Battery: st.BatteryStats, Trace: traceview.StepOf(st), Launches: launchview.HTML(r, st)}
		if st.Unfinished {
			hs.Flags = append(hs.Flags, "unfinished: the session stopped inside this step")
		}
		if st.Gaps > 0 {
			hs.Flags = append(hs.Flags, fmt.Sprintf("%d failed ticks", st.Gaps))
		}
		if len(st.Crashes) > 0 {
			hs.Flags = append(hs.Flags, fmt.Sprintf("%d crashes", len(st.Crashes)))
		}
		vs := stepVerdicts(r, st, opts.Budgets)
		charts := stepCharts(r, st, limitsOf(vs))
		var links map[int64]string
		hs.Causes, links = causesOf(r, st, hs.Anchor)
		for i := range charts[0].marks { // the frame chart's janky frames
			charts[0].marks[i].links = links
		}
		hs.Charts = powerchart.Append(charts, (*chart).svg, r, st) // and the power charts
		for _, m := range StepMetrics(st) {
			hm := htmlMetric{Metric: m, Shown: metrics.FormatValue(m.Value, "")}
			hm.Verdict, hm.Budget = metricVerdict(vs, m.Name)
			hs.Metrics = append(hs.Metrics, hm)
		}
		// Unmeasured is never zero: each metric the step has no value for
		// gets its row, saying why.
		for _, a := range st.Absent() {
			hm := htmlMetric{Metric: a.Name.Def().Measure(0, a.Reason), Shown: "not measured"}
			hm.Verdict, hm.Budget = metricVerdict(vs, a.Name)
			hs.Metrics = append(hs.Metrics, hm)
		}
		for _, v := range vs {
			switch {
			case v.Fails():
				hs.Failures = append(hs.Failures, v.Line)
			case v.Status == budget.Warn && v.Line != "":
				hs.Warnings = append(hs.Warnings, v.Line)
			}
		}
		sk := make([]string, 0, len(st.MemoryStats.Summary))
		for k := range st.MemoryStats.Summary {
			sk = append(sk, k)
		}
		slices.Sort(sk)
		for _, k := range sk {
			hs.MemSummary = append(hs.MemSummary, htmlFact{strings.TrimSuffix(k, "_kb"), fmt.Sprint(st.MemoryStats.Summary[k])})
		}
		hr.Steps = append(hr.Steps, hs)
	}
	return hr
}

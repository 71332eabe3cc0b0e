// Package launchview shows a step's launches on the report's page: per
// launch with phases from the session's trace (cold, warm or hot), a
// table of its phases (process start, bindApplication, activityStart,
// activityResume, the first Choreographer#doFrame, first frame presented,
// reportFullyDrawn, as far as its kind goes through them),
// each with its start since the launch's first phase, its length, its
// longest slice and the main thread's time per state; or why the step's
// launches have none.
//
//	hs.Launches = launchview.HTML(r, st)
package launchview

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/perfgate/perfgate/report/internal/traceview"
	"github.com/perfgate/perfgate/result"
)

// Phase is one row of a launch's table.
type Phase struct {
	Name, Start, Dur, Longest, States string
}

// Launch is one launch's table.
type Launch struct {
	N       int
	Caption string
	Phases  []Phase
}

// View is a step's launches on the page.
type View struct {
	Launches []Launch
	// NotMeasured says why launches have no phases.
	NotMeasured string
}

var tmpl = template.Must(template.New("launches").Parse(`<h4>Startup phases (Perfetto trace)</h4>
{{if .NotMeasured}}<p class="notes startup-phases-absent">not measured: {{.NotMeasured}}</p>
{{end}}{{range .Launches}}<table class="startup-phases" data-launch="{{.N}}"><caption>{{.Caption}}</caption>
<tr><th>phase</th><th>start</th><th>duration</th><th>longest slice</th><th>main thread (ms)</th></tr>
{{range .Phases}}<tr><td>{{.Name}}</td><td class="num">{{.Start}}</td><td class="num">{{.Dur}}</td><td>{{.Longest}}</td><td>{{.States}}</td></tr>
{{end}}</table>
{{end}}`))

// Of is the view of st's launches; nil when the step launched nothing.
func Of(r *result.Result, st *result.Step) *View {
	su := st.Startup
	if su == nil || len(su.Iterations) == 0 {
		return nil
	}
	v := &View{NotMeasured: strings.TrimPrefix(su.PhasesNotMeasured, "startup phases: ")}
	for i, it := range su.Iterations {
		if len(it.Phases) == 0 {
			continue
		}
		l := Launch{N: i + 1, Caption: fmt.Sprintf("Launch %d of %d: %d ms to initial display (am start -W TotalTime)", i+1, len(su.Iterations), it.TotalTimeMs)}
		if it.Compilation != "" {
			l.Caption += ", compiler filter " + it.Compilation
		}
		t0 := it.Phases[0].DeviceStartNs
		for _, p := range it.Phases {
			row := Phase{Name: p.Name, Start: fmt.Sprintf("+%.1f ms", float64(p.DeviceStartNs-t0)/1e6), Dur: fmt.Sprintf("%.1f ms", p.DurMs),
				Longest: "no slice within the phase", States: traceview.States(p.MainThread)}
			if len(p.Slices) > 0 {
				row.Longest = fmt.Sprintf("%.1f ms %s", p.Slices[0].DurMs, p.Slices[0].Name)
			}
			l.Phases = append(l.Phases, row)
		}
		v.Launches = append(v.Launches, l)
	}
	if len(v.Launches) == 0 && v.NotMeasured == "" {
		switch {
		case r.Trace == nil:
			v.NotMeasured = "the session recorded no Perfetto trace (perftest.WithTrace)"
		case r.Trace.File == "":
			v.NotMeasured = "no Perfetto trace: " + r.Trace.NotRecorded
		default:
			v.NotMeasured = "the trace gave the step's launches no phases"
		}
	}
	return v
}

// HTML is the view of st's launches, "" when the step launched nothing.
func HTML(r *result.Result, st *result.Step) template.HTML {
	v := Of(r, st)
	if v == nil {
		return ""
	}
	var b strings.Builder
	if err := tmpl.Execute(&b, v); err != nil {
		return template.HTML(template.HTMLEscapeString("startup phases: " + err.Error()))
	}
	return template.HTML(b.String())
}

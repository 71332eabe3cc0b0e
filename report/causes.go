package report

import (
	"fmt"
	"html/template"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/causes"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/result"
)

// htmlCauses is a step's "why it janked" section: beside the frame chart,
// whose janky frames link to their rows here.
type htmlCauses struct {
	Summary string
	Phases  []htmlFact
	// Blockers and Stacks are those of janky frames, then those of blocks
	// tied to no janky frame (Untied).
	Blockers, Untied []htmlBlocker
	Stacks, Idle     []htmlStack
	Frames           []htmlFrameCause
	ANRs             []causes.ANR
	Missing          []string
	// Folded is the session's folded stacks file, for flame-graph tools.
	Folded string
}

type htmlBlocker struct {
	causes.Blocker
	Message string
}

// htmlStack is a stack; Top its innermost frames, up to the app's.
type htmlStack struct {
	Samples              int
	AppFrame, Top, Stack string
}

type htmlFrameCause struct{ ID, AtS, Janks, Duration, Phase, Block, Stack string }

var causesTmpl = template.Must(template.New("causes").Parse(`<details class="causes" open><summary><b>Why it janked</b>{{if .Summary}}: {{.Summary}}{{end}}</summary>
{{if .Phases}}<p>Janky frames by the phase they spent longest in: {{range $i, $p := .Phases}}{{if $i}}, {{end}}{{$p.Key}} {{$p.Value}}{{end}}</p>{{end}}
{{define "blockers"}}<tr><th>messages</th><th>total ms</th><th>longest ms</th><th>janky frames</th><th>message (Looper h=, c=)</th></tr>
{{range .}}<tr><td><code>{{.Where}}</code></td><td class="num">{{.Count}}</td><td class="num">{{.TotalMs}}</td><td class="num">{{.MaxMs}}</td><td class="num">{{.Frames}}</td><td><code>{{.Message}}</code></td></tr>
{{end}}</table>{{end}}{{define "stacks"}}<th>samples</th><th>innermost frames </th></tr>
{{range .}}<tr><td><code>{{.AppFrame}}</code></td><td class="num">{{.Samples}}</td><td><details><summary><code>{{.Top}}</code></summary><pre>{{.Stack}}</pre></details></td></tr>
{{end}}</table>{{end}}{{if .Blockers}}<table class="blockers"><tr><th>top blockers</th>{{template "blockers" .Blockers}}{{end}}
{{if .Stacks}}<table class="stacks"><tr><th>top stacks</th>{{template "stacks" .Stacks}}{{end}}
{{if .Frames}}<table class="janky"><tr><th>janky frame at</th><th>counted by</th><th>duration</th><th title="wait: the frame began late, its main thread busy with another message (running; see its block) or given no CPU (runnable in the trace's thread states)">longest phase</th><th>block</th><th>stack sampled most (app frame)</th></tr>
{{range .Frames}}<tr id="{{.ID}}"><td class="num">{{.AtS}}</td><td>{{.Janks}}</td><td class="num">{{.Duration}}</td><td>{{.Phase}}</td><td>{{.Block}}</td><td><code>{{.Stack}}</code></td></tr>
{{end}}</table>{{end}}
{{if .Untied}}<p>Blocked time tied to no janky frame (it made none late):</p><table class="blockers"><tr><th>blockers</th>{{template "blockers" .Untied}}{{end}}
{{if .Idle}}<table class="stacks"><tr><th>their stacks</th>{{template "stacks" .Idle}}{{end}}
{{range .ANRs}}<p class="fail">ANR at {{printf "%.2f" .AtS}} s (pid {{.PID}}): {{.Reason}}</p>{{if .MainStack}}<pre>{{range .MainStack}}at {{.}}
{{end}}</pre>{{end}}{{end}}
{{if .Missing}}<ul class="muted">{{range .Missing}}<li>not measured: {{.}}</li>{{end}}</ul>{{end}}
{{if .Folded}}<p class="muted">Every sampled stack of the session, folded for flame-graph tools: <code>{{.Folded}}</code></p>{{end}}
</details>`))

// causesOf builds a step's causes section and the links from the frame
// chart's janky frames (by their time in ms) to their rows.
func causesOf(r *result.Result, st *result.Step, anchor string) (template.HTML, map[int64]string) {
	c := st.Causes
	if c == nil {
		return "", nil
	}
	hc := htmlCauses{Summary: c.Line()}
	for _, p := range frames.PhaseOrder {
		if n := c.Phases[p]; n > 0 {
			hc.Phases = append(hc.Phases, htmlFact{string(p), fmt.Sprint(n)})
		}
	}
	hc.Blockers, hc.Untied = htmlBlockers(c.TopBlockers), htmlBlockers(c.UntiedBlockers)
	hc.Stacks, hc.Idle = htmlStacks(c.TopStacks), htmlStacks(c.UntiedStacks)
	links := map[int64]string{}
	for i, f := range c.Frames {
		id := fmt.Sprintf("%s-jank%d", anchor, i+1)
		links[int64(math.Round(f.AtS*1000))] = "#" + id
		hf := htmlFrameCause{ID: id, AtS: fmt.Sprintf("%.3f s", f.AtS), Janks: strings.Join(f.Janks, ", "), Phase: string(f.Phase)}
		if f.DurationMs > 0 {
			hf.Duration = fmt.Sprintf("%.1f ms", f.DurationMs)
		}
		if f.Phases != nil {
			hf.Phase = fmt.Sprintf("%s (%.1f ms)", f.Phase, float64(f.Phases.Of(f.Phase))/1e6)
		}
		if f.Block != nil && *f.Block < len(c.Blocks) {
			b := c.Blocks[*f.Block]
			hf.Block = fmt.Sprintf("%d ms in %s", b.Ms, b.Where())
		} else {
			hf.Block = "none: " + f.Unexplained
		}
		if f.Stack != "" {
			hf.Stack = fmt.Sprintf("%s (%d of %d samples)", innermost(f.Stack, f.AppFrame), f.StackHits, f.StackSamples)
		}
		hc.Frames = append(hc.Frames, hf)
	}
	hc.ANRs = c.ANRs
	for _, k := range slices.Sorted(maps.Keys(c.NotMeasured)) {
		hc.Missing = append(hc.Missing, c.NotMeasured[k])
	}
	if r.Causes != nil {
		hc.Folded = r.Causes.StacksFile
	}
	var b strings.Builder
	if err := causesTmpl.Execute(&b, hc); err != nil {
		return template.HTML(template.HTMLEscapeString(err.Error())), links
	}
	return template.HTML(b.String()), links
}

func htmlBlockers(bs []causes.Blocker) (out []htmlBlocker) {
	for _, b := range bs {
		msg := "h=" + b.Handler
		if b.Callback != "" {
			msg += " c=" + b.Callback
		}
		out = append(out, htmlBlocker{b, msg})
	}
	return out
}

func htmlStacks(ss []causes.Stack) (out []htmlStack) {
	for _, s := range ss {
		out = append(out, htmlStack{Samples: s.Samples, AppFrame: s.AppFrame, Top: innermost(s.Stack, s.AppFrame), Stack: strings.ReplaceAll(s.Stack, ";", "\n")})
	}
	return out
}

// innermost is a folded stack's innermost frames down from the app's own
// frame (or the last three): where the time went.
func innermost(fold, app string) string {
	frames := strings.Split(fold, ";")
	from := max(0, len(frames)-3)
	if app != "" {
		if i := slices.Index(frames, app); i >= 0 {
			from = i
		}
	}
	return strings.Join(frames[from:], " → ")
}

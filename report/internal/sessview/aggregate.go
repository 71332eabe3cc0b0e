package sessview

import (
	"html/template"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/metrics"
)

// Value is one run's figure of one metric of one step: the median of the
// step's iterations in that run, as a comparison with the history takes
// it (report.RunsOf).
type Value struct {
	// Test and Device are the group the run belongs to: its test (its
	// Result key) and device model, as a comparison groups runs.
	Test, Device, Step string
	Metric             metrics.Name
	V                  float64
}

// Run is one Result of a page, with its label and the anchor of its
// section.
type Run struct {
	Label, Href string
	Values      []Value
}

// Row is a metric of a step over the runs of a test: the median of the
// runs' values, their range, and each run's value.
type Row struct {
	Metric, Unit        string
	Median, Min, Max    string
	MedianV, MinV, MaxV float64
	Measured, Runs      int
	Each                []RunValue
}

// RunValue is one run's value in a Row.
type RunValue struct{ Label, Href, Value string }

// Step is one step of a test's runs.
type Step struct {
	Name string
	Rows []Row
}

// Group is a test's runs on one device model.
type Group struct {
	Test, Device string
	Runs         int
	Steps        []Step
}

// Aggregate sums up each test that ran more than once on a device model:
// per step and metric, the median of the runs' values (the nearest-rank
// median, frames.NearestRank: a value one run had) and their range from
// the lowest to the highest, with each run's value under it. A metric a
// run did not measure is left out of that run's values, never taken as 0:
// the row says in how many runs it was measured.
func Aggregate(runs []Run) []Group {
	type gk struct{ test, device string }
	type rk struct {
		step   string
		metric metrics.Name
	}
	var order []gk
	members := map[gk][]int{}
	for i, r := range runs {
		seen := map[gk]bool{}
		for _, v := range r.Values {
			k := gk{v.Test, v.Device}
			if seen[k] {
				continue
			}
			seen[k] = true
			if members[k] == nil {
				order = append(order, k)
			}
			members[k] = append(members[k], i)
		}
	}
	var out []Group
	for _, k := range order {
		idx := members[k]
		if len(idx) < 2 {
			continue
		}
		g := Group{Test: k.test, Device: k.device, Runs: len(idx)}
		var keys []rk
		vals := map[rk][]RunValue{}
		nums := map[rk][]float64{}
		for _, i := range idx {
			for _, v := range runs[i].Values {
				if v.Test != k.test || v.Device != k.device {
					continue
				}
				key := rk{v.Step, v.Metric}
				if vals[key] == nil {
					keys = append(keys, key)
				}
				unit := v.Metric.Def().Unit
				vals[key] = append(vals[key], RunValue{runs[i].Label, runs[i].Href, metrics.FormatValue(v.V, unit)})
				nums[key] = append(nums[key], v.V)
			}
		}
		for _, key := range keys {
			if len(g.Steps) == 0 || g.Steps[len(g.Steps)-1].Name != key.step {
				g.Steps = append(g.Steps, Step{Name: key.step})
			}
			xs := nums[key]
			unit := key.metric.Def().Unit
			row := Row{Metric: string(key.metric), Unit: unit, MedianV: frames.NearestRank(xs, 50),
				MinV: slices.Min(xs), MaxV: slices.Max(xs), Measured: len(xs), Runs: len(idx), Each: vals[key]}
			row.Median, row.Min, row.Max = metrics.FormatValue(row.MedianV, ""), metrics.FormatValue(row.MinV, ""), metrics.FormatValue(row.MaxV, "")
			st := &g.Steps[len(g.Steps)-1]
			st.Rows = append(st.Rows, row)
		}
		out = append(out, g)
	}
	return out
}

var aggTmpl = template.Must(template.New("agg").Funcs(template.FuncMap{"short": func(s string) string {
	if i := strings.Index(s, " · "); i >= 0 {
		return s[i+len(" · "):]
	}
	return s
}}).Parse(`{{range .}}<section class="aggregate">
<h2>{{.Test}} on {{.Device}}: {{.Runs}} runs</h2>
<p class="muted">Per step, the median of the runs' values (nearest rank: the value of one run) and their range, lowest to highest; each run's value is listed under it.</p>
{{$g := .}}{{range .Steps}}<h3>Step {{.Name}} over {{$g.Runs}} runs of {{$g.Test}} on {{$g.Device}}</h3>
<table class="aggregate"><tr><th>metric</th><th>median</th><th>min – max</th><th>unit</th><th>runs</th></tr>
{{range .Rows}}<tr><td>{{.Metric}}</td><td class="num median">{{.Median}}</td><td class="num">{{.Min}} – {{.Max}}</td><td>{{.Unit}}</td><td>{{if lt .Measured .Runs}}measured in {{.Measured}} of {{.Runs}} runs: {{end}}{{range $i, $v := .Each}}{{if $i}}; {{end}}<a href="{{$v.Href}}">{{short $v.Label}}</a> <span class="run-value">{{$v.Value}}</span>{{end}}</td></tr>
{{end}}</table>
{{end}}</section>
{{end}}`))

// HTML renders groups as page sections.
func HTML(groups []Group) template.HTML {
	var b strings.Builder
	if err := aggTmpl.Execute(&b, groups); err != nil {
		return template.HTML(template.HTMLEscapeString(err.Error()))
	}
	return template.HTML(b.String())
}

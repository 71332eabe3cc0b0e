package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/report/internal/sessview"
	"github.com/perfgate/perfgate/result"
)

// WriteMarkdown writes a summary for $GITHUB_STEP_SUMMARY or a pull-request
// comment: per result a line of device facts, per step a table of its main
// metrics with ✅/❌ per budget, the failure and regression lines, gaps and
// errors, and a link to the HTML report.
func WriteMarkdown(w io.Writer, results []*result.Result, opts Options) error {
	bw := bufio.NewWriter(w)
	failed, budgets := 0, 0
	var body strings.Builder
	labels := sessview.Labels(results)
	for i, r := range results {
		o := opts.forResult(r)
		budgets += len(o.Budgets) + len(r.Verdicts)
		if writeMarkdownResult(&body, r, o, labels[i]) {
			failed++
		}
	}
	status := "✅ all budgets met"
	if budgets == 0 {
		// Nothing was checked against a budget: "all met" would claim
		// what no one asked.
		status = "✅ no failures (no budgets checked)"
	}
	if failed > 0 {
		status = fmt.Sprintf("❌ %d of %d sessions failed", failed, len(results))
	}
	if c := opts.Comparison; c != nil && len(c.Regressions()) > 0 {
		status += fmt.Sprintf(", ❌ %d regressions", len(c.Regressions()))
	}
	fmt.Fprintf(bw, "## %s: %s\n\n", mdEscape(opts.title()), status)
	if opts.HTMLLink != "" {
		fmt.Fprintf(bw, "Charts and every metric: [HTML report](%s)\n\n", opts.HTMLLink)
	}
	var devices strings.Builder
	markdownDevices(&devices, deviceTables(results, opts))
	bw.WriteString(devices.String())
	bw.WriteString(body.String())
	if c := opts.Comparison; c != nil {
		bw.WriteString("### Comparison with the baseline\n\n")
		if err := c.WriteMarkdown(bw); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report markdown: %w", err)
	}
	return nil
}

// writeMarkdownResult writes one session, headed by its label
// (sessview.Labels), and reports whether it failed.
func writeMarkdownResult(b *strings.Builder, r *result.Result, opts Options, label string) bool {
	failures := Failures(r, opts.Budgets)
	failed := len(failures) > 0
	mark := "✅"
	if failed {
		mark = "❌"
	}
	fmt.Fprintf(b, "### %s %s\n\n", mark, mdEscape(label))
	b.WriteString(mdEscape(deviceLine(r)) + "\n\n")
	if r.Error != "" {
		fmt.Fprintf(b, "> ❌ session ended early: %s\n\n", mdEscape(r.Error))
	}
	markdownTrace(b, r)
	if len(failures) > 0 {
		b.WriteString("```\n" + strings.Join(failures, "\n") + "\n```\n\n")
	}
	for _, st := range r.Steps {
		markdownStep(b, r, st, opts)
	}
	markdownCrashes(b, r)
	if len(r.Gaps) > 0 {
		fmt.Fprintf(b, "⚠️ %d failed reads (gaps); first: `%s`\n\n", len(r.Gaps), codeSpan(r.Gaps[0].Error))
	}
	return failed
}

// deviceLine is a session's device facts in benchstat's lower-case
// key: value form, and the app's package.
func deviceLine(r *result.Result) string {
	d := r.Device
	line := []string{}
	if m := strings.TrimSpace(d.Manufacturer + " " + d.Model); m != "" {
		line = append(line, "device: "+m)
	}
	if d.Release != "" {
		line = append(line, fmt.Sprintf("android: %s (API %d)", d.Release, d.API))
	}
	if d.RefreshHz > 0 {
		line = append(line, fmt.Sprintf("refresh: %g Hz", d.RefreshHz))
	}
	line = append(line, "package: "+r.App.Package)
	return strings.Join(line, " · ")
}

// markdownStep writes a step's heading and its table: the catalogue's
// summary metrics, and every budgeted one, each with its verdict.
func markdownStep(b *strings.Builder, r *result.Result, st *result.Step, opts Options) {
	vs := stepVerdicts(r, st, opts.Budgets)
	ms := StepMetrics(st)
	flags := ""
	if st.Unfinished {
		flags += " · ⚠️ unfinished"
	}
	if st.Gaps > 0 {
		flags += fmt.Sprintf(" · ⚠️ %d failed ticks", st.Gaps)
	}
	fmt.Fprintf(b, "#### `%s` (%s%s)\n\n", codeSpan(st.Name), st.Duration().Round(time.Millisecond), flags)
	b.WriteString("| metric | value | definition | budget | |\n|---|---:|---|---|---|\n")
	absent := st.Absent()
	shown := map[metrics.Name]bool{}
	// row writes a metric's line; an unmeasured one says so and why,
	// never 0 and never a blank.
	row := func(name metrics.Name) {
		shown[name] = true
		verdict, bound := metricVerdict(vs, name)
		mark := map[string]string{"pass": "✅", "fail": "❌"}[verdict]
		value, def := "not measured", reasonOf(absent, name)
		if m, ok := find(ms, name); ok {
			value, def = metrics.FormatValue(m.Value, m.Unit), m.Definition
		} else if def == "" {
			def = "no such metric in the step"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", name, value, mdEscape(def), bound, mark)
	}
	// The catalogue's summary metrics, and every budgeted one.
	// FrameTimeline's jank too, beside the other definitions, when the
	// session recorded a trace.
	// A step that launched the app shows its startup times.
	for _, d := range metrics.Catalogue() {
		_, ok := find(ms, d.Name)
		summary := d.Summary || d.Name == metrics.JankFrameTimeline && r.Trace != nil || d.Family == metrics.FamilyStartup && st.Startup != nil
		if summary && (ok || reasonOf(absent, d.Name) != "") {
			row(d.Name)
		}
	}
	for _, v := range vs {
		if v.Metric != "" && !shown[v.Metric] && (v.Kind == budget.KindBudget || v.Kind == budget.KindRegression) {
			row(v.Metric)
		}
	}
	b.WriteString("\n")
	markdownTraceStep(b, st)
}

// markdownCrashes writes a session's crashes, each with its step and
// cause; one the test expected is a warning.
func markdownCrashes(b *strings.Builder, r *result.Result) {
	if len(r.Crashes) == 0 {
		return
	}
	mark, expected := "❌", ""
	if !unexpectedCrash(r) {
		mark, expected = "⚠️", " the test expected"
	}
	fmt.Fprintf(b, "%s %d crashes%s: ", mark, len(r.Crashes), expected)
	for i, c := range r.Crashes {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(b, "in `%s` at %.3f s", codeSpan(c.Step), sec(c.HostNs))
		if c.Cause != "" {
			fmt.Fprintf(b, " (%s)", mdEscape(c.Cause))
		}
	}
	b.WriteString("\n\n")
}

// mdEscape keeps text from breaking a table cell or starting markup.
func mdEscape(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;").Replace(s)
}

// codeSpan keeps text from ending a `code span` early.
func codeSpan(s string) string {
	return strings.NewReplacer("`", "'", "\n", " ").Replace(s)
}

// Package report turns perftest Results into what a team reads where it
// looks: a self-contained HTML page with charts, a Markdown summary for a
// pull request or $GITHUB_STEP_SUMMARY, Go benchmark text that benchstat
// reads, and comparisons of two sets of runs with the regression gate's
// statistics.
//
//	r, _ := perftest.ReadResult("testdata/perf-results/TestScroll@feed.json") // TestScroll of package feed
//	report.WriteMarkdown(os.Stdout, []*perftest.Result{r}, report.Options{HTMLLink: "report.html"})
//	report.WriteHTML(f, []*perftest.Result{r}, report.Options{})
//
// The package reads perftest's Results and judges them with assert and
// metrics; nothing below it imports it (a test binary links it to write its
// sessions' reports). Budgets are package assert's limits (assert.ParseLimit, a budget file's
// Limits), judged by metrics.Judge: a report fails a session exactly where
// the tests' checks would, with the same line. Which metrics a summary
// shows, and their units, come from metrics.Catalogue.
//
// Charts are inline SVG drawn here in Go: the page needs no script and no
// network when it is opened, stays small (a few tens of KiB per step), and
// renders the same in a browser, a CI artifact viewer or a mail client that
// strips scripts. Every number follows the metric definitions of the
// project's DESIGN.md and names the definition or the device command it came
// from.
package report

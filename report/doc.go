// Package report turns perftest Results into what a team reads where it
// looks: a self-contained HTML page with charts, a Markdown summary for a
// pull request or $GITHUB_STEP_SUMMARY, Go benchmark text that benchstat
// reads, and comparisons of two sets of runs with the regression gate's
// statistics.
//
//	r, _ := result.ReadResult("testdata/perf-results/TestScroll@feed.json") // TestScroll of package feed
//	report.WriteMarkdown(os.Stdout, []*result.Result{r}, report.Options{HTMLLink: "report.html"})
//	report.WriteHTML(f, []*result.Result{r}, report.Options{})
//
// The package reads perftest's Results and shows the verdicts each keeps
// (Result.Verdicts: its test's checks, budget files, scenario budgets,
// regression gates, crashes): a session with a failing verdict is never
// shown as passed. Budgets a report is given besides (budget.ParseLimit, a
// budget file's Limits) are judged by budget.Judge, as the tests' checks
// are, with the same line. Comparisons key runs by test, device and step
// and judge them with budget.CompareRuns. Nothing below the package
// imports it (a test binary links it to write its sessions' reports).
// Which metrics a summary shows, and their units, come from
// metrics.Catalogue.
//
// Charts are inline SVG drawn here in Go: the page needs no script and no
// network when it is opened, stays small (a few tens of KiB per step), and
// renders the same in a browser, a CI artifact viewer or a mail client that
// strips scripts. Every number follows the metric definitions of the
// project's DESIGN.md and names the definition or the device command it came
// from.
package report

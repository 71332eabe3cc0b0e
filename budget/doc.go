// Package budget judges what a session measured: limits on the metrics of
// the catalogue (budgets), golden budget files and the policy that
// rewrites them, and regression gates that compare runs. Everything here
// returns values: a Verdict per check, stored in the Result it judged
// (see Recorder), shown by reports and pull-request summaries as it was
// made, and turned into test failures only by package assert.
//
//	vs := budget.Check(r.Step("scroll"), "scroll_test.go:23", budget.Limit{Metric: metrics.Jank, Value: 3})
//	for _, v := range vs {
//		if v.Fails() {
//			fmt.Println(v.Line) // perf budget exceeded: scroll: jank 5 > 3 (deadline missed; frames at …)
//		}
//	}
//
// Judge is the one place a measurement meets a limit; CompareRuns the one
// place two sets of runs are compared. The statistics are those of
// golang.org/x/perf/benchmath (medians, confidence intervals, the
// Mann-Whitney U test) and, where one side is a single run, a prediction
// interval over the other side's runs (Student's t); see CompareRuns for
// what each verdict rests on.
package budget

// Package assert checks what a perftest session measured, as a test:
// absolute budgets a team agrees on (MaxJank, MinFPS, MaxStartup, …),
// every budget of a golden budget file at once (Budget), and noise-aware
// regression gates against recorded iterations (NoRegression).
//
//	r := s.Stop()
//	assert.MaxJank(t, r.Step("scroll"), 3)
//	assert.MinFPS(t, r.Step("scroll"), 55)
//	assert.Budget(t, r, "feed.budget.json")            // testdata/feed.budget.json
//	assert.Budget(t, r, "./feed.budget.json")          // ./feed.budget.json: any other path as given
//	assert.NoRegression(t, r, "feed.budget.json", budget.Gate{})
//
// The package is a thin layer over package budget, as gotest.tools'
// assert is over assert/cmp: budget judges and returns verdicts; these
// functions keep every verdict with the Result they judged (so reports and
// pull-request summaries show exactly those verdicts), and report each
// failing one through the test. Checks report like testify's assert or
// gotest.tools' Check: they call Helper, report one line per broken budget
// with its evidence, return false, and let the test go on, so one device
// run shows every broken budget:
//
//	perf budget exceeded: scroll: jank 5 > 3 (deadline missed; frames at 1.84s 2.10s 2.31s 3.02s 3.40s)
//	perf regression: scroll: frame_time_p95 18.2ms → 24.9ms (+36.8%, p=0.002, n=10+10)
//
// `go test . -update` (gotest.tools' flag, shared) or PERFGATE_UPDATE=1
// rewrites the golden files from the current run (budget.RecordBudgets,
// budget.RecordBaselines).
package assert

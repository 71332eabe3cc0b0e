// Package assert checks what a perftest session measured: absolute budgets
// a team agrees on (MaxJank, MinFPS, MaxStartup, …), every budget of a
// golden budget file at once (Budget), and noise-aware regression gates
// against recorded iterations (NoRegression).
//
//	r := s.Stop()
//	assert.MaxJank(t, r.Step("scroll"), 3)
//	assert.MinFPS(t, r.Step("scroll"), 55)
//	assert.Budget(t, r, "feed.budget.json")            // testdata/feed.budget.json
//	assert.Budget(t, r, "./feed.budget.json")          // ./feed.budget.json: any other path as given
//	assert.NoRegression(t, r, "feed.budget.json", assert.Gate{})
//
// Checks report like testify's assert or gotest.tools' Check: they call
// Helper, report one line per broken budget with its evidence, return
// false, and let the test go on, so one device run shows every broken
// budget:
//
//	perf budget exceeded: scroll: jank 5 > 3 (deadline missed; frames at 1.84s 2.10s 2.31s 3.02s 3.40s)
//	perf regression: scroll: frame_time_p95 18.2ms → 24.9ms (+36.8%, p=0.002, n=10+10)
//
// `go test . -update` (gotest.tools' flag, shared) or PERFGATE_UPDATE=1
// rewrites the golden files from the current run, under a lock file beside
// each that an update waits for at most $PERFGATE_LOCK_TIMEOUT (default
// 30s). A budget file with a key given twice in one object is an error
// naming both lines, and every parse error quotes at most a bounded
// excerpt of the offending text.
//
// The package imports metrics and perfgate's internal file helpers
// (atomicfile, filelock, jsondup, excerpt), not perftest: it reads steps
// through the Subject interface, which *perftest.Step and *perftest.Result
// implement, so that perftest's
// session-bound checks (perftest.MaxJank(t, 3)) are a thin layer over this
// one. Every check, budget file and report judges a limit with
// metrics.Judge and names metrics from metrics.Catalogue: one
// implementation, one message format, one list of metrics.
package assert

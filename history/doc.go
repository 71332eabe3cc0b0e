// Package history keeps every run of the perf tests with the commit,
// branch, device and app version it measured, follows each metric of each
// step over the runs, and finds the commits where a metric changed:
// what a pairwise gate misses when a metric creeps a few percent per
// change.
//
//	s, _ := history.Open(ctx, "perf-history.db") // or "postgres://…"
//	s.Add(ctx, history.RunOf(result, history.Meta{Commit: sha, Branch: "main"}))
//	series, _ := s.Series(ctx, history.Filter{Test: "TestFeed", Metric: "frame_time_p95"})
//	for _, sr := range series {
//		for _, c := range history.Analyze(sr, history.TrendOptions{}).Changes {
//			fmt.Println(c.Sentence(sr.Key)) // frame_time_p95 of scroll rose 18% at abc1234, p = 0.001
//		}
//	}
//
// Store.Trends does both for a history of any length in bounded memory:
// every run's value goes into change point detection, which costs time in
// proportion to the runs (package changepoint reads a long series in
// windows), and only each series' newest runs are read in full.
//
// The history is an SQLite file (modernc.org/sqlite: pure Go, so tests and
// the CLI need no cgo) or, when a team shares one, a PostgreSQL database
// (github.com/jackc/pgx/v5) chosen by its DSN; both hold the same schema,
// versioned and migrated on open. A session given Reporter adds its Result
// to $PERFGATE_HISTORY. Metric names, units and directions are
// metrics.Catalogue's, as (*result.Step).Metrics reports them; a run's value
// for a step is the median of the step's iterations. Change points come from
// package changepoint (E-divisive means with a permutation test). The
// package sits above result, assert and report, and imports nothing that
// imports it.
package history

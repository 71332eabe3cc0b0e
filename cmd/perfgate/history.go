package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/history"
	"github.com/perfgate/perfgate/history/changepoint"
	"github.com/perfgate/perfgate/internal/clihelp"
	"github.com/perfgate/perfgate/internal/excerpt"
)

const historyUsage = `usage: perfgate history <command> [flags]

Keeps every run's Result with its commit, branch, device and app version,
and finds where each metric changed. The history is an SQLite file, or a
PostgreSQL database named by a DSN (postgres://…) when a team shares one:
-history, else $PERFGATE_HISTORY, else perf-history.db.

commands:
  add      add Results (files or folders of *.json) to the history
  trend    each series (test, step, metric, device) with its change points
  digest   the change points as Markdown, for a pull request or a weekly job
  html     one trend page per metric (inline SVG, no script) and an index
  budget   suggest a budget file from the last runs on a device model
`

// runHistory is `perfgate history`.
func runHistory(args []string, stdout, stderr io.Writer) error {
	ctx := context.Background()
	in := func(f func(context.Context, []string, io.Writer, io.Writer) error) command {
		return func(args []string, stdout, stderr io.Writer) error { return f(ctx, args, stdout, stderr) }
	}
	return clihelp.Subcommands{What: "history", Usage: historyUsage, None: "no command given", Unknown: "unknown command %q", Cmds: map[string]command{
		"add": in(historyAdd), "trend": in(historyTrend), "digest": in(historyDigest), "html": in(historyHTML), "budget": in(historyBudget),
	}}.Run(args, stdout, stderr)
}

// historyFlags are the flags every history command has: where the history
// is, and which series to read.
type historyFlags struct {
	fs                         *flag.FlagSet
	dsn                        *string
	test, step, metric, device *string
	branches                   *string
	since                      *string
}

func newHistoryFlags(name, usage string, stderr io.Writer, series bool) *historyFlags {
	fs := newFlagSet("history "+name, usage, stderr)
	h := &historyFlags{fs: fs, dsn: fs.String("history", "", "the history: an SQLite file or a PostgreSQL DSN (default $PERFGATE_HISTORY, else perf-history.db)")}
	if series {
		h.test = fs.String("test", "", "only this test")
		h.step = fs.String("step", "", "only this step")
		h.metric = fs.String("metric", "", "only this metric")
		h.device = fs.String("device", "", "only this device model")
		h.branches = fs.String("branch", "", "only runs of these branches (comma-separated)")
		h.since = fs.String("from", "", "only runs that started at or after this time (RFC 3339, or a duration back from now such as 720h)")
	}
	return h
}

// open opens the history to add runs to it, creating it when new.
func (h *historyFlags) open(ctx context.Context) (*history.Store, error) {
	return history.Open(ctx, history.DSN(*h.dsn))
}

func (h *historyFlags) filter(now time.Time) (history.Filter, error) {
	f, err := history.FilterOf(*h.test, *h.step, *h.metric, *h.device, *h.branches, *h.since, now)
	if err != nil {
		return f, h.wrong(fmt.Errorf("-from: %w", err))
	}
	return f, nil
}

// wrong is err for the command called wrongly (a bad or missing argument
// or value): one line, then where its usage is, not the usage itself.
func (h *historyFlags) wrong(err error) error { return clihelp.Wrong(h.fs, err) }

// readTrends opens the history, which must exist (a misspelt path is an
// error, not an empty history created in passing, and a file the user may
// only read is read), and reads and analyses every series the flags
// select: change points among all the runs, the newest o.Last of each
// series read in full. what names the command in errors; close s.
func (h *historyFlags) readTrends(ctx context.Context, what string, o history.TrendOptions) (s *history.Store, trends []history.Trend, err error) {
	f, err := h.filter(time.Now())
	if err != nil {
		return nil, nil, err
	}
	if s, err = history.OpenExisting(ctx, history.DSN(*h.dsn)); err != nil {
		return nil, nil, fmt.Errorf("history %s: %w", what, err)
	}
	trends, err = s.Trends(ctx, f, o)
	if err == nil && len(trends) == 0 {
		err = s.NoMatch(ctx, f)
	}
	if err != nil {
		s.Close()
		return nil, nil, fmt.Errorf("history %s: %w", what, err)
	}
	return s, trends, nil
}

// parseNone parses args, flags only.
func (h *historyFlags) parseNone(args []string) error {
	rest, err := parseInterleaved(h.fs, args)
	if err == nil && len(rest) > 0 {
		err = h.wrong(fmt.Errorf("unexpected argument %s", excerpt.Quote(rest[0])))
	}
	return err
}

// lastFlag adds -last, how many of each series' newest runs are shown in
// full; set returns it into the options.
func lastFlag(fs *flag.FlagSet, what string) func(*history.TrendOptions) error {
	last := fs.Int("last", history.DefaultLast, "how many of each series' newest runs "+what+"; the older ones are summarised (0: every run)")
	return func(o *history.TrendOptions) error {
		switch {
		case *last < 0:
			return fmt.Errorf("-last %d: want 0 (every run) or more", *last)
		case *last == 0:
			o.Last = -1
		default:
			o.Last = *last
		}
		return nil
	}
}

const historyAddUsage = `usage: perfgate history add [-history DSN] [-commit SHA] [-branch NAME] [-app-version V] [-id ID] [-report-base URL] result.json|dir...

Adds Results to the history, each once: a run already there (same id) is
left as it is. Commit and branch default to $PERFGATE_COMMIT / $GITHUB_SHA
and $PERFGATE_BRANCH / $GITHUB_HEAD_REF / $GITHUB_REF_NAME, else the git
checkout; the id defaults to a hash of the test name, start time, device
serial and package. Every file is read and checked first, one at a time,
and nothing is added when one is not a Result the history can keep; then
the runs go in, a batch per transaction. A Result of a session that did not
reach Stop (killed, or still running: its "unfinished" is set) is skipped,
with a line saying so.
`

func historyAdd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	h := newHistoryFlags("add", historyAddUsage, stderr, false)
	commit := h.fs.String("commit", "", "the commit measured")
	branch := h.fs.String("branch", "", "the branch measured")
	appVersion := h.fs.String("app-version", "", "the app's version (default $PERFGATE_APP_VERSION)")
	id := h.fs.String("id", "", "the run's id (one Result only)")
	reportBase := h.fs.String("report-base", "", "where the Results' reports are, an http(s) URL or a path from the trend pages' folder (history html -o): a run links to <report-base>/<test>@<package>.html")
	paths, err := parseInterleaved(h.fs, args)
	if err != nil {
		return err
	}
	if *reportBase != "" && !history.SafeURL(*reportBase) {
		return h.wrong(fmt.Errorf("-report-base %s: want an http(s) URL or a relative path", excerpt.Quote(*reportBase)))
	}
	if len(paths) == 0 {
		return h.wrong(errors.New("no result file given"))
	}
	meta := history.MetaOf(paths, history.Meta{ID: *id, Commit: *commit, Branch: *branch, AppVersion: *appVersion})
	o := history.AddOptions{Meta: meta, ReportBase: *reportBase, Added: func(a history.AddedFile) { a.WriteText(stdout) }}
	files, err := history.CheckFiles(paths, o)
	if err != nil {
		return fmt.Errorf("history add: %w", err)
	}
	if *id != "" && len(files) != 1 {
		return fmt.Errorf("history add: -id %s names one run, but %d Results were given", excerpt.Quote(*id), len(files))
	}
	s, err := h.open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	added, err := s.AddFiles(ctx, files, o)
	if err != nil {
		return fmt.Errorf("history add: %w", err)
	}
	fmt.Fprintf(stdout, "history %s: %d of %d runs added\n", s, added, len(files))
	return s.Close()
}

// detectFlags adds the change point settings to fs.
func detectFlags(fs *flag.FlagSet) func() (history.TrendOptions, error) {
	alpha := fs.Float64("alpha", 0.01, "significance level of the permutation test")
	perms := fs.Int("permutations", 999, "permutations per test (p ≥ 1/(permutations+1))")
	minSize := fs.Int("min-runs", 4, "fewest runs between two change points")
	return func() (history.TrendOptions, error) {
		if *alpha <= 0 || *alpha >= 1 {
			return history.TrendOptions{}, fmt.Errorf("-alpha %g is not in (0, 1)", *alpha)
		}
		if *perms < 19 {
			return history.TrendOptions{}, fmt.Errorf("-permutations %d: want at least 19", *perms)
		}
		if *minSize < 2 {
			return history.TrendOptions{}, fmt.Errorf("-min-runs %d: want at least 2", *minSize)
		}
		return history.TrendOptions{Detect: changepoint.Options{Alpha: *alpha, Permutations: *perms, MinSize: *minSize}}, nil
	}
}

const historyTrendUsage = `usage: perfgate history trend [-history DSN] [-test T] [-step S] [-metric M] [-device D] [-branch B,…] [-from WHEN] [-series] [-last N] [-json]

Prints every series the filters select, oldest run first, with the change
points E-divisive means finds among all its runs (permutation test at
-alpha; a change of 3 %, or one event, at least): the first commit of
the new level, the change with its 95% interval, and p. -series and
-json give the newest -last runs of a series one by one and summarise
the older ones.
`

func historyTrend(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	h := newHistoryFlags("trend", historyTrendUsage, stderr, true)
	opts := detectFlags(h.fs)
	showSeries := h.fs.Bool("series", false, "also print the runs' values")
	asJSON := h.fs.Bool("json", false, "print JSON")
	last := lastFlag(h.fs, "-series and -json print one by one")
	if err := h.parseNone(args); err != nil {
		return err
	}
	o, err := opts()
	if err == nil {
		err = last(&o)
	}
	if err != nil {
		return h.wrong(err)
	}
	s, trends, err := h.readTrends(ctx, "trend", o)
	if err != nil {
		return err
	}
	defer s.Close()
	if *asJSON {
		return history.WriteTrendsJSON(stdout, trends)
	}
	if len(trends) == 0 {
		fmt.Fprintf(stdout, "history %s: no series match\n", s)
		return nil
	}
	for _, t := range trends {
		t.WriteText(stdout, *showSeries)
	}
	return nil
}

const historyDigestUsage = `usage: perfgate history digest [-history DSN] [filters] [-since WHEN] [-min-pct N] [-link URL] [-md out.md] [-check]

Writes the change points as Markdown: regressions first, each as
"frame_time_p95 of scroll rose 18% at abc1234, p = 0.001" with its levels
and interval. -since keeps the changes whose new level began at or after a
time, a duration back from now, or the first run of a commit in the
history. -check exits 1 when one of them is for the worse.
`

func historyDigest(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	h := newHistoryFlags("digest", historyDigestUsage, stderr, true)
	opts := detectFlags(h.fs)
	since := h.fs.String("since", "", "only changes from then on: a time, a duration back from now, or a commit")
	minPct := h.fs.Float64("min-pct", 0, "leave out changes smaller than this many percent (below 3 %, or one event for counts, a change is none anyway)")
	link := h.fs.String("link", "", "where the trend pages are (perfgate history html), for links")
	title := h.fs.String("title", "", "the digest's heading (default \"perfgate history\")")
	mdOut := h.fs.String("md", "-", `write the Markdown here ("-" for stdout)`)
	check := h.fs.Bool("check", false, "exit 1 when a change for the worse is listed")
	if err := h.parseNone(args); err != nil {
		return err
	}
	o, err := opts()
	if err != nil {
		return h.wrong(err)
	}
	s, trends, err := h.readTrends(ctx, "digest", o)
	if err != nil {
		return err
	}
	defer s.Close()
	do := history.DigestOptions{Title: *title, MinPct: *minPct, TrendLink: *link}
	if *since != "" {
		f, _ := h.filter(time.Now()) // h.readTrends read it
		if do.Since, err = s.Since(ctx, f, *since, time.Now()); err != nil {
			return fmt.Errorf("history digest: -since: %w", err)
		}
	}
	if err := writeOutput(*mdOut, stdout, func(w io.Writer) error { return history.WriteDigest(w, trends, do) }); err != nil {
		return fmt.Errorf("history digest: %w", err)
	}
	if *check {
		if e, ok := history.FirstRegression(trends, do); ok {
			return exitError{code: 1, err: fmt.Errorf("history digest: %s", e.Change.Sentence(e.Key))}
		}
	}
	return nil
}

const historyHTMLUsage = `usage: perfgate history html [-history DSN] [filters] [-budgets file] [-last N] -o dir

Writes one self-contained page per metric into dir (trend-<metric>.html:
every series of that metric, each of its newest -last runs a point linking
to its report, the older ones summarised, change points and budgets
marked) and index.html.
`

func historyHTML(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	h := newHistoryFlags("html", historyHTMLUsage, stderr, true)
	opts := detectFlags(h.fs)
	out := h.fs.String("o", "", "the folder to write the pages into")
	title := h.fs.String("title", "", "the pages' title (default \"perfgate history\")")
	budgetFile := h.fs.String("budgets", "", "a golden budget file whose limits the charts draw (a path as given, from the working directory)")
	var budgets budget.Limits
	h.fs.Var(&budgets, "budget", "a budget to draw, [step:]metric<=limit or [step:]metric>=limit (repeatable)")
	last := lastFlag(h.fs, "are drawn as points that link to their reports")
	if err := h.parseNone(args); err != nil {
		return err
	}
	if *out == "" {
		return h.wrong(errors.New("no -o folder given"))
	}
	o, err := opts()
	if err == nil {
		err = last(&o)
	}
	if err != nil {
		return h.wrong(err)
	}
	if *budgetFile != "" {
		f, err := budget.ReadBudgetFileAt(*budgetFile)
		if err != nil {
			return fmt.Errorf("history html: %w", err)
		}
		budgets = append(budgets, f.Limits()...)
	}
	s, trends, err := h.readTrends(ctx, "html", o)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := history.WritePages(*out, trends, history.PageOptions{Title: *title, Budgets: budgets}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "history html: %d series, pages in %s\n", len(trends), filepath.Join(*out, "index.html"))
	return nil
}

const historyBudgetUsage = `usage: perfgate history budget [-history DSN] -test T [-device D] [-last 20] [-headroom 10] [-o file]

Suggests a golden budget file for a test from its last runs on one device
model: per step and metric, the nearest-rank 95th percentile of those runs
(5th where higher is better) plus headroom, leaving out runs before the
metric's latest change point. Writes the file (stdout without -o) and says
on stderr what each budget rests on. Review it before committing it.
`

func historyBudget(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	h := newHistoryFlags("budget", historyBudgetUsage, stderr, true)
	opts := detectFlags(h.fs)
	last := h.fs.Int("last", 20, "take budgets from this many newest runs")
	minRuns := h.fs.Int("min-runs-budget", 5, "fewest runs a budget may rest on")
	headroom := h.fs.Float64("headroom", 10, "headroom in percent over the level (counts get +1)")
	out := h.fs.String("o", "-", `write the budget file here ("-" for stdout)`)
	if err := h.parseNone(args); err != nil {
		return err
	}
	if *h.test == "" {
		return h.wrong(errors.New("no -test given (a budget file serves one test)"))
	}
	if *last < 1 || *headroom < 0 {
		return h.wrong(fmt.Errorf("-last %d and -headroom %g must be positive", *last, *headroom))
	}
	o, err := opts()
	if err != nil {
		return h.wrong(err)
	}
	o.Last = max(history.DefaultLast, *last)
	s, trends, err := h.readTrends(ctx, "budget", o)
	if err != nil {
		return err
	}
	defer s.Close()
	switch {
	case len(trends) == 0:
		return fmt.Errorf("history budget: no runs of test %s in %s match", excerpt.Quote(*h.test), s)
	case history.DeviceModels(trends) > 1:
		return fmt.Errorf("history budget: test %s ran on %d device models; pick one with -device", excerpt.Quote(*h.test), history.DeviceModels(trends))
	}
	pct := *headroom
	if pct == 0 {
		pct = -1 // none; SuggestOptions reads 0 as its default
	}
	b, err := history.SuggestBudgets(trends, history.SuggestOptions{Last: *last, MinRuns: *minRuns, Pct: pct})
	b.WriteNotes(stderr)
	if errors.Is(err, history.ErrNoBudget) {
		return fmt.Errorf("history budget: no budget to suggest: no series of test %s has %d runs", excerpt.Quote(*h.test), *minRuns)
	}
	if err != nil {
		return err
	}
	return writeOutput(*out, stdout, b.WriteJSON)
}

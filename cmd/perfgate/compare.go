package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/history"
	"github.com/perfgate/perfgate/internal/clihelp"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
)

const compareUsage = `usage: perfgate compare [flags] base.json|dir new.json|dir
       perfgate compare -history DSN -branch main [flags] new.json|dir

Compares every metric of every step of every test between a baseline and
new runs, each test and device model with itself only. A directory stands
for every *.json in it and its subfolders, one run each; a step repeated
inside one session ("scroll#2") is one more run. With -history the
baseline is the last -runs runs of each test on -branch in the performance
history (an SQLite file or a PostgreSQL DSN), one value a run.

Runs differ from each other by more than the frames inside one run show,
so the verdict rests on runs: the Mann-Whitney U test where both sides have
enough of them; the new runs against the spread of the base runs where the
base side has at least -min-base-runs (one new run is enough then); with
fewer, the frames alone, and then only a change past -frames-only percent
fails. Each row says what it rests on. Prints a table, and exits 1 when a
metric got worse significantly (p < alpha) and by more than -threshold
percent (for counts such as jank, by at least -min-count too). -write keeps
every verdict in the new Results, for perfgate report.
`

// compareFlags are `perfgate compare`'s flags.
type compareFlags struct {
	fs                                     *flag.FlagSet
	alpha, threshold, minCount, framesOnly *float64
	minBase, runs                          *int
	across, write                          *bool
	mdOut, htmlOut, hist, branch           *string
}

func newCompareFlags(stderr io.Writer) *compareFlags {
	fs := newFlagSet("compare", compareUsage, stderr)
	return &compareFlags{fs: fs,
		alpha:      fs.Float64("alpha", 0.05, "significance level of the tests"),
		threshold:  fs.Float64("threshold", 10, "smallest change, in percent, that fails"),
		minCount:   fs.Float64("min-count", 2, "smallest change of a count (jank, slow frames) that fails"),
		minBase:    fs.Int("min-base-runs", 5, "base runs needed to know how much runs differ"),
		framesOnly: fs.Float64("frames-only", 50, "smallest change, in percent, that fails on the frames alone (too few runs to know their spread)"),
		across:     fs.Bool("across-devices", false, "compare runs of different device models with each other"),
		mdOut:      fs.String("md", "", `also write the comparison as Markdown here ("-" for stdout)`),
		htmlOut:    fs.String("html", "", "also write the comparison page here: every metric's runs, centres and CIs drawn, and the first runs overlaid"),
		write:      fs.Bool("write", false, "keep each verdict in the new Result it judged (rewrites those Result files)"),
		hist:       fs.String("history", "", "take the baseline from this performance history (a file or a PostgreSQL DSN) instead of Results"),
		branch:     fs.String("branch", "", "with -history: the base branch whose runs are the baseline (comma-separated for several)"),
		runs:       fs.Int("runs", history.DefaultBaseRuns, "with -history: how many of the branch's most recent runs of each test"),
	}
}

// options checks the flags and the number of paths, and returns the
// comparison's options.
func (f *compareFlags) options(paths []string, stderr io.Writer) (report.CompareOptions, error) {
	want := 2
	if *f.hist != "" {
		want = 1
	}
	if len(paths) != want {
		return report.CompareOptions{}, clihelp.Wrong(f.fs, fmt.Errorf("compare: want %s, got %d arguments", map[int]string{1: "the new runs (the baseline is -history)", 2: "a baseline and new runs"}[want], len(paths)))
	}
	var err error
	switch {
	case *f.alpha <= 0 || *f.alpha >= 1:
		err = fmt.Errorf("compare: -alpha %g is not in (0, 1)", *f.alpha)
	case *f.threshold < 0:
		err = fmt.Errorf("compare: -threshold %g is negative", *f.threshold)
	case *f.minCount < 0:
		err = fmt.Errorf("compare: -min-count %g is negative", *f.minCount)
	case *f.minBase < 3:
		err = fmt.Errorf("compare: -min-base-runs %d: want at least 3", *f.minBase)
	case *f.framesOnly <= 0:
		err = fmt.Errorf("compare: -frames-only %g: want a percentage above 0", *f.framesOnly)
	case *f.hist != "" && strings.TrimSpace(*f.branch) == "":
		err = errors.New("compare: -history needs -branch, the base branch whose runs are the baseline")
	case *f.hist == "" && *f.branch != "":
		err = errors.New("compare: -branch needs -history")
	case *f.runs < 1:
		err = fmt.Errorf("compare: -runs %d: want at least 1", *f.runs)
	}
	if err != nil {
		return report.CompareOptions{}, err
	}
	// A zero threshold is a real choice here, but the gate reads zero as
	// its default (10 %) and a negative value as zero.
	th := *f.threshold
	if th == 0 {
		th = -1
	}
	return report.CompareOptions{Alpha: *f.alpha, ThresholdPct: th, AcrossDevices: *f.across,
		Gate: budget.Gate{MinCount: *f.minCount, MinBaseRuns: *f.minBase, FramesOnlyPct: *f.framesOnly}}, nil
}

// compare compares next with the baseline: the first path's Results, or
// the -history runs of -branch. base is nil for the history.
func (f *compareFlags) compare(paths []string, next []*result.Result, opts report.CompareOptions) (c *report.Comparison, base []*result.Result, err error) {
	if *f.hist == "" {
		base, err = result.ReadResults(paths[:1])
		if err != nil {
			return nil, nil, fmt.Errorf("compare: baseline: %w", err)
		}
		opts.From = "baseline " + paths[0]
		return report.Compare(base, next, opts), base, nil
	}
	branches := strings.Split(*f.branch, ",")
	opts.From = fmt.Sprintf("history %s, last %d runs", strings.Join(branches, ","), *f.runs)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err = history.CompareWithBranches(ctx, *f.hist, branches, *f.runs, next, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("compare: %w", err)
	}
	return c, nil, nil
}

// runCompare is `perfgate compare`.
func runCompare(args []string, stdout, stderr io.Writer) error {
	f := newCompareFlags(stderr)
	paths, err := parseInterleaved(f.fs, args)
	if err != nil {
		return err
	}
	opts, err := f.options(paths, stderr)
	if err != nil {
		return err
	}
	next, err := result.ReadResults(paths[len(paths)-1:])
	if err != nil {
		return fmt.Errorf("compare: new runs: %w", err)
	}
	c, base, err := f.compare(paths, next, opts)
	if err != nil {
		return err
	}
	// A session that did not reach Stop is no run, and no pass: the
	// comparison leaves it out and warns, and compare fails for it.
	var unfinished error
	if n := report.CountUnfinished(next); n > 0 {
		unfinished = exitError{code: 1, err: fmt.Errorf("compare: %d of the %d new Results are of sessions that did not reach Stop (unfinished), left out", n, len(next))}
	}
	if len(c.Rows) == 0 {
		if unfinished != nil {
			c.WriteText(stdout)
			return unfinished
		}
		if *f.hist != "" {
			// No base runs yet (a new repository, a new test): nothing to
			// gate on, which is no failure.
			fmt.Fprintf(stdout, "compare: the history has no run on %s of the tests in %s; nothing to compare with\n", *f.branch, paths[len(paths)-1])
			c.WriteText(stdout)
			return nil
		}
		return errors.New("compare: the two sides share no test, step and metric")
	}
	if err := f.writeOutputs(c, base, next, stdout); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	if regs := c.Regressions(); len(regs) > 0 {
		what := "regressions"
		if len(regs) == 1 {
			what = "regression"
		}
		return exitError{code: 1, err: fmt.Errorf("compare: %d significant %s past %g%%", len(regs), what, *f.threshold)}
	}
	return unfinished
}

// writeOutputs prints the comparison, writes its Markdown and page, and
// with -write keeps its verdicts in the new Results.
func (f *compareFlags) writeOutputs(c *report.Comparison, base, next []*result.Result, stdout io.Writer) error {
	if err := c.WriteText(stdout); err != nil {
		return err
	}
	if *f.mdOut != "" {
		if err := writeOutput(*f.mdOut, stdout, c.WriteMarkdown); err != nil {
			return err
		}
	}
	if *f.htmlOut != "" {
		page := func(w io.Writer) error {
			return report.WriteCompareHTML(w, c, base, next, report.Options{PageDir: filepath.Dir(*f.htmlOut)})
		}
		if err := writeOutput(*f.htmlOut, stdout, page); err != nil {
			return err
		}
	}
	if *f.write {
		return c.Record(next)
	}
	return nil
}

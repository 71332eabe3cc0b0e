package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/internal/atomicfile"
	"github.com/perfgate/perfgate/internal/clihelp"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
)

const reportUsage = `usage: perfgate report [-html out.html] [-md out.md] [-bench out.txt] [-budget SPEC]... [-budgets file] [-base dir] [-check] result.json|dir...

Writes reports of Results (schema perfgate.result/v1): a self-contained HTML
page with charts, a Markdown summary (for $GITHUB_STEP_SUMMARY or a pull
request), and Go benchmark text for benchstat. A directory stands for every
*.json in it. Results of one test on several devices (a pool, or the shards
of a CI matrix) are also shown side by side per step, the worst device
marked; a -budgets file with budgets per model checks each device against
its model's. Without -html, -md or -bench the Markdown goes to stdout; "-"
names stdout. A budget is [step:]metric<=limit or [step:]metric>=limit,
e.g. -budget jank<=3 -budget scroll:fps>=55.
`

// runReport is `perfgate report`.
func runReport(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report", reportUsage, stderr)
	htmlOut := fs.String("html", "", "write the HTML report here")
	mdOut := fs.String("md", "", "write the Markdown summary here")
	benchOut := fs.String("bench", "", "write Go benchmark text (for benchstat) here")
	link := fs.String("link", "", "the HTML report's URL for the Markdown (default: -html's file name)")
	title := fs.String("title", "", "the report's title (default \"perfgate report\")")
	check := fs.Bool("check", false, "exit 1 when a budget is broken, a step crashed or a session ended early")
	var budgets budget.Limits
	fs.Var(&budgets, "budget", "a budget, [step:]metric<=limit or [step:]metric>=limit (repeatable)")
	budgetFile := fs.String("budgets", "", "a golden budget file (such as testdata/feed.budget.json, a path as given) whose limits the report checks")
	base := fs.String("base", "", "baseline Results (a file or folder) to compare with, as perfgate compare does; the Markdown gets the regression lines")
	paths, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return clihelp.Wrong(fs, errors.New("report: no result file given"))
	}
	results, err := result.ReadResults(paths)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	var budgetsOf *budget.File
	if *budgetFile != "" {
		f, err := budget.ReadBudgetFileAt(*budgetFile)
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		budgetsOf = f
	}
	if err := report.CheckBudgetSteps(results, budgets, budgetsOf); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	opts := report.Options{Title: *title, Budgets: budgets, BudgetFile: budgetsOf, HTMLLink: *link, PageDir: filepath.Dir(*htmlOut)}
	if *base != "" {
		old, err := result.ReadResults([]string{*base})
		if err != nil {
			return fmt.Errorf("report: -base: %w", err)
		}
		opts.Comparison = report.Compare(old, results, report.CompareOptions{})
	}
	if opts.HTMLLink == "" && *htmlOut != "" && *htmlOut != "-" {
		opts.HTMLLink = filepath.Base(*htmlOut)
	}
	if *htmlOut == "" && *mdOut == "" && *benchOut == "" {
		*mdOut = "-"
	}
	outputs := []struct {
		path  string
		write func(io.Writer) error
	}{
		{*htmlOut, func(w io.Writer) error { return report.WriteHTML(w, results, opts) }},
		{*mdOut, func(w io.Writer) error { return report.WriteMarkdown(w, results, opts) }},
		{*benchOut, func(w io.Writer) error { return report.WriteBenchstat(w, results) }},
	}
	for _, o := range outputs {
		if o.path == "" {
			continue
		}
		if err := writeOutput(o.path, stdout, o.write); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	if *check {
		if n := report.CountFailed(results, opts); n > 0 {
			return exitError{code: 1, err: fmt.Errorf("report: %d of %d sessions failed their budgets", n, len(results))}
		}
	}
	return nil
}

// writeOutput writes to stdout for "-", else to the file whole, through a
// temporary file and a rename, so a failed write leaves no half a report;
// an error names the file and the cause.
func writeOutput(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == "-" {
		return write(stdout)
	}
	return atomicfile.WriteFrom(path, write)
}

// parseInterleaved parses flags that may come before, between or after the
// positional arguments ("perfgate report a.json -html out.html"), which
// the flag package alone stops at. "--" ends the flags.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := clihelp.Parse(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(args) > 0 && len(rest) > 0 && len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// exitError asks main for an exit status.
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }
func (e exitError) ExitCode() int { return e.code }

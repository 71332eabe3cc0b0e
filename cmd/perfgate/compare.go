package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/perfgate/perfgate/report"
)

const compareUsage = `usage: perfgate compare [-alpha 0.05] [-threshold 10] [-md out.md] [-html out.html] base.json|dir new.json|dir

Compares every metric of every step between a baseline and new runs, with
the regression gate's statistics: medians with 95% confidence intervals and
the Mann-Whitney U test. A directory stands for every *.json in it, one run
each; a step repeated inside one session ("scroll#2") is one more run.
Prints a benchstat-style table, and exits 1 when a metric got worse
significantly (p < alpha) and by more than -threshold percent.
`

// runCompare is `perfgate compare`.
func runCompare(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, compareUsage); fs.PrintDefaults() }
	alpha := fs.Float64("alpha", 0.05, "significance level of the Mann-Whitney U test")
	threshold := fs.Float64("threshold", 10, "smallest change of the median, in percent, that fails")
	mdOut := fs.String("md", "", `also write the comparison as Markdown here ("-" for stdout)`)
	htmlOut := fs.String("html", "", "also write the comparison page here: every metric's runs, medians and CIs drawn, and the first runs overlaid")
	paths, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(paths) != 2 {
		fs.Usage()
		return fmt.Errorf("compare: want a baseline and new runs, got %d arguments", len(paths))
	}
	if *alpha <= 0 || *alpha >= 1 {
		return fmt.Errorf("compare: -alpha %g is not in (0, 1)", *alpha)
	}
	if *threshold < 0 {
		return fmt.Errorf("compare: -threshold %g is negative", *threshold)
	}
	base, err := readResults(paths[:1])
	if err != nil {
		return fmt.Errorf("compare: baseline: %w", err)
	}
	next, err := readResults(paths[1:])
	if err != nil {
		return fmt.Errorf("compare: new runs: %w", err)
	}
	// A zero threshold is a real choice here, but CompareOptions reads zero
	// as its default (10 %) and a negative value as zero.
	th := *threshold
	if th == 0 {
		th = -1
	}
	c := report.Compare(base, next, report.CompareOptions{Alpha: *alpha, ThresholdPct: th})
	if len(c.Rows) == 0 {
		return errors.New("compare: the two sides share no step and metric")
	}
	if err := c.WriteText(stdout); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	if *mdOut != "" {
		if err := writeOutput(*mdOut, stdout, c.WriteMarkdown); err != nil {
			return fmt.Errorf("compare: %w", err)
		}
	}
	if *htmlOut != "" {
		page := func(w io.Writer) error { return report.WriteCompareHTML(w, c, base, next, report.Options{}) }
		if err := writeOutput(*htmlOut, stdout, page); err != nil {
			return fmt.Errorf("compare: %w", err)
		}
	}
	if regs := c.Regressions(); len(regs) > 0 {
		return exitError{code: 1, err: fmt.Errorf("compare: %d significant regressions past %g%%", len(regs), *threshold)}
	}
	return nil
}

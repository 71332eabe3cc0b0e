package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/hostcmd"
	"github.com/perfgate/perfgate/internal/clihelp"
	"github.com/perfgate/perfgate/internal/stopsignal"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/scenario"
)

// commandRun is `perfgate run [flags] -- COMMAND…`: a session around a
// command of this machine, a step per iteration, judged and written as a
// scenario's (runEnd, runCut).
func commandRun(sigs <-chan os.Signal, args, argv []string, stdout, stderr io.Writer) error {
	f := newRunFlags(stderr)
	config := hostcmd.RegisterFlags(f.fs)
	budgetPath := f.fs.String("budget", "", "budget `file` of the step, checked after the run (rewritten with -update)")
	results := f.fs.String("results", "perf-results", "`folder` of the Result, the command's output and the trace")
	name := f.fs.String("name", "run", "the session's `name`: its Result's file name, its key in the history")
	trace := f.fs.Bool("trace", false, "record a Perfetto trace around the iterations")
	if err := clihelp.Parse(f.fs, args); err != nil {
		return err
	}
	cfg, err := config(argv)
	if err == nil && (f.fs.NArg() > 0 || f.pool.on() || *f.update && *budgetPath == "") {
		err = errors.New("with a command, no scenario file nor -pool, and -update only with -budget")
	}
	if err != nil {
		return clihelp.Wrong(f.fs, fmt.Errorf("run: %w", err))
	}
	cfg.Stdout, cfg.Stderr, cfg.Progress = stdout, stderr, stderr
	sc, budgets, err := f.commandBudgets(cfg, *budgetPath, *results)
	if err != nil {
		return err
	}
	stopCtx, stopWatch := stopsignal.Watch(sigs)
	defer stopWatch()
	pc := perftest.Config{Name: *name, ResultsDir: *results, Package: cfg.Package, WaitForApp: true}
	if *trace {
		perftest.WithTrace(perftest.TraceConfig{})(&pc)
	}
	dev, s, err := f.session(stopCtx, pc, stdout)
	if err != nil {
		return err
	}
	its := hostcmd.Run(stopCtx, s, dev, argv, cfg)
	r := s.Stop()
	report.WriteSteps(stdout, r)
	report.WriteHealth(stdout, r)
	if _, ok := stopsignal.Caught(stopCtx); ok {
		return runCut(stopCtx, s, r, hostcmd.Failures(its), cfg.Iterations, stdout)
	}
	notes := sc.Judge(r, budgets, *f.update, budget.Headroom{Pct: *f.headroom})
	return runEnd(sc, s, r, notes, "perfgate run -update "+strings.Join(args, " ")+" -- …", stdout)
}

// commandBudgets reads the budgets of a command run: sc is the run as a
// scenario of one step, which judges it.
func (f *runFlags) commandBudgets(cfg hostcmd.Config, budgetPath, results string) (*scenario.File, *budget.File, error) {
	sc := &scenario.File{Path: "-step", Package: cfg.Package, Steps: []scenario.FileStep{{Name: cfg.Step}}, BudgetPath: budgetPath, ResultsDir: results}
	if budgetPath == "" || *f.update {
		return sc, nil, nil
	}
	if _, err := os.Stat(budgetPath); err != nil {
		return nil, nil, fmt.Errorf("run: -budget: %w (-update records it)", err)
	}
	budgets, err := sc.ReadBudgets()
	if err != nil {
		return nil, nil, fmt.Errorf("run: %w", err)
	}
	return sc, budgets, nil
}

// session opens -serial's device and starts the session on it.
func (f *runFlags) session(stopCtx context.Context, cfg perftest.Config, stdout io.Writer) (dev *adbx.Device, s *perftest.Session, err error) {
	ctx, cancel := context.WithTimeout(stopCtx, 30*time.Second)
	defer cancel()
	dev, err = adbx.Open(ctx, adbx.Options{Serial: *f.serial, Server: *f.server})
	if err == nil {
		fmt.Fprintf(stdout, "device: %s\n", dev.Serial())
		s, err = perftest.NewSession(ctx, dev, cfg)
	}
	if _, ok := stopsignal.Caught(stopCtx); ok && err != nil {
		return nil, nil, interrupted(stopCtx, "before the device was open; nothing measured")
	} else if err != nil {
		err = fmt.Errorf("run: %w", err)
	}
	return dev, s, err
}

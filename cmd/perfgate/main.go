// Command perfgate measures Android app performance and gates it.
//
//	perfgate analyze frames|meminfo|cpu|trace ...
//	                                          apply perfgate's metrics to captures you already have
//	perfgate record -serial S -package P [-duration 10s] -out result.json
//	                                          measure an app the way a perftest session does
//	perfgate simdevice --listen 127.0.0.1:15555 [--api 33] [--workload NAME|FILE] [--truth FILE]
//	                                          serve a simulated phone that `adb connect` joins
//	perfgate simdevice -count N | -lab lab.json [-connect]
//	                                          serve a lab of simulated phones on two kinds of adb server
//	perfgate report [-html out.html] [-md out.md] [-bench out.txt] result.json|dir...
//	                                          write HTML, Markdown and benchstat reports of Results
//	perfgate compare [-alpha 0.05] [-threshold 10] base.json|dir new.json|dir
//	                                          compare runs with the regression gate's statistics
//	perfgate run [-update] scenario.json|-app P -- CMD  run a scenario file's steps, or a command; check budgets
//	perfgate run -pool [-per-model] [-parallel n] [-shard k/n] scenario.json
//	                                          the same on every device of a device pool
//	perfgate layer -package P [-serial S] [LIST]
//	                                          name an app's SurfaceFlinger layer and the adb command for its frames
//	perfgate history add|trend|digest|html|budget ...
//	                                          keep every run, find where metrics changed
//
// Run `perfgate <command> -h` for a command's flags.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/perfgate/perfgate/history"
	"github.com/perfgate/perfgate/internal/analyzecmd"
	"github.com/perfgate/perfgate/internal/clihelp"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/report"
)

func main() {
	os.Exit(clihelp.Exit(run(os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}

const usage = `usage: perfgate <command> [flags] [args]

commands:
  analyze    apply perfgate's metrics to saved captures (frames, meminfo, cpu, trace)
  record     record one app on a device for a while and write the Result
  simdevice  serve a simulated Android device for adb connect
  report     write HTML, Markdown and benchstat reports of Results
  compare    compare a baseline with new runs; exit 1 on a significant regression
  run        run a scenario file's UI steps, or any command (-- COMMAND), measured, and budgets
  history    keep every run; trends, change points, digests, budget suggestions
  layer      name the SurfaceFlinger layer of an app and how to save its frame times
`

// run is the whole CLI; main only turns its error into an exit status. A
// command's -h prints its usage and is not an error.
func run(args []string, stdout, stderr io.Writer) error {
	// Every session writes its reports into $PERFGATE_REPORT and joins
	// $PERFGATE_HISTORY when those are set.
	perftest.UseReporters(report.Reporter, history.Reporter)
	err := dispatch(args, stdout, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}

func dispatch(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && clihelp.IsHelp(args[0]) {
		if len(args) > 1 && !clihelp.IsHelp(args[1]) {
			// "perfgate help analyze" is "perfgate analyze -h".
			return dispatch([]string{args[1], "-h"}, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		fmt.Fprintln(stdout, "\nRun 'perfgate help <command>' or 'perfgate <command> -h' for a command's flags.")
		return nil
	}
	return clihelp.Subcommands{What: "", Usage: usage, None: "no command given", Unknown: "unknown command %q", Cmds: map[string]command{
		"analyze": analyzecmd.Run, "simdevice": runSimdevice, "record": runRecord, "report": runReport,
		"compare": runCompare, "run": runScenario, "history": runHistory, "layer": runLayer,
	}}.Run(args, stdout, stderr)
}

// command runs one command or subcommand on its arguments.
type command = clihelp.Command

// newFlagSet is a command's flags (see clihelp.NewFlagSet).
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	return clihelp.NewFlagSet(name, usage, stderr)
}

// exitCoder is an error that asks for a particular exit status.
type exitCoder interface{ ExitCode() int }

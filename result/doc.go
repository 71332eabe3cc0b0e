// Package result is the contract between measuring and everything after
// it: the Result a session writes (device and app facts, steps with their
// summaries, the raw frames and samples they came from, and every verdict
// of every check), its JSON (Schema), and its files.
//
// A Result is read with ReadResult, found among paths with ResultFiles,
// and written with WriteFile or into a results folder with WriteInDir,
// which gives each run a name of its own and never replaces a file that
// is not an earlier run's Result. Step.Metrics lists a step's figures in
// the order of the metric catalogue, and Step.Absent names each metric
// the step has no value for, with the reason: unmeasured is never zero.
//
// Reports, histories, budgets and the command line read Results through
// this package alone; package perftest makes them.
package result

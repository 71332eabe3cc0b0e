package result

import "time"

// EnvReport names the variable that asks every session of a test run to
// write its reports into a directory: PERFGATE_REPORT=dir (see
// report.Reporter).
const EnvReport = "PERFGATE_REPORT"

// EnvHistory names the variable that asks every session of a test run to
// add its Result to a performance history: PERFGATE_HISTORY=file.db or a
// PostgreSQL DSN (see history.Reporter).
const EnvHistory = "PERFGATE_HISTORY"

// A Reporter writes reports of a finished session's Result. A session
// calls the reporters it is given (perftest.WithReporters,
// perftest.UseReporters) once it has stopped and written its Result.
type Reporter struct {
	// Name says which reporter failed, in errors: "report", "history".
	Name string
	// Env names the variable that turns the reporter on (EnvReport,
	// EnvHistory): it runs only when that is set; "" runs it always.
	Env string
	// Write writes the reports of r.
	Write func(r *Result) error
}

// Live is the running state a session reports after each tick
// (perftest.Config.OnTick).
type Live struct {
	Elapsed time.Duration
	Step    string
	// Frames and FPS over the current step so far; Jank is the default
	// jank count over it (DESIGN.md "Pauses are not janks").
	Frames int
	FPS    float64
	Jank   int
	// CPUPct is the app's share of the device over the last tick, PSSKB
	// the latest `dumpsys meminfo` total.
	CPUPct float64
	PSSKB  int64
	Gaps   int
	Err    error
}

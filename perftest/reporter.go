package perftest

import (
	"errors"
	"fmt"
	"github.com/perfgate/perfgate/result"
	"os"
	"strings"
	"sync"
)

// EnvReport names the variable that asks every session of a test run to
// write its reports into a directory: PERFGATE_REPORT=dir.
const EnvReport = "PERFGATE_REPORT"

// EnvHistory names the variable that asks every session of a test run to
// add its Result to a performance history: PERFGATE_HISTORY=file.db or a
// PostgreSQL DSN (see package history). It takes effect in a test binary
// that links package history.
const EnvHistory = "PERFGATE_HISTORY"

// reporterPackages name, per variable, the package whose reporter a test
// binary must link for the variable to take effect.
var reporterPackages = map[string]string{EnvReport: "report", EnvHistory: "history"}

// A Reporter writes reports of a finished session's Result.
type Reporter func(*result.Result) error

var reporters struct {
	sync.Mutex
	list []namedReporter
}

type namedReporter struct {
	env, name string
	fn        Reporter
}

// RegisterReporter makes every session call fn with its Result once it has
// stopped and written the Result, when PERFGATE_REPORT is set. Package
// report registers its HTML and Markdown writer this way, as database/sql
// drivers register themselves: a test binary that links package report
// (import it, or import _ "github.com/perfgate/perfgate/report") writes
// reports. A name registered twice keeps the first function.
func RegisterReporter(name string, fn Reporter) { RegisterReporterFor(EnvReport, name, fn) }

// RegisterReporterFor is RegisterReporter for a reporter that runs when
// the variable env is set (package history registers for
// PERFGATE_HISTORY).
func RegisterReporterFor(env, name string, fn Reporter) {
	reporters.Lock()
	defer reporters.Unlock()
	for _, r := range reporters.list {
		if r.name == name {
			return
		}
	}
	reporters.list = append(reporters.list, namedReporter{env, name, fn})
}

// runReporters runs the registered reporters whose variable is set on r.
// It returns what went wrong, and a note when a variable is set but no
// reporter for it is linked in, so a missing report is never silent.
func runReporters(r *result.Result) (note string, err error) {
	reporters.Lock()
	list := append([]namedReporter(nil), reporters.list...)
	reporters.Unlock()
	var notes []string
	for _, env := range []string{EnvReport, EnvHistory} {
		if os.Getenv(env) == "" {
			continue
		}
		linked := false
		for _, rp := range list {
			linked = linked || rp.env == env
		}
		if !linked {
			pkg := reporterPackages[env]
			notes = append(notes, fmt.Sprintf("perftest: %s is set but this test binary does not link package %s; add import _ \"github.com/perfgate/perfgate/%s\" to use it", env, pkg, pkg))
		}
	}
	var errs []error
	for _, rp := range list {
		if os.Getenv(rp.env) == "" {
			continue
		}
		if e := rp.fn(r); e != nil {
			errs = append(errs, fmt.Errorf("perftest: %s reporter: %w", rp.name, e))
		}
	}
	return strings.Join(notes, "; "), errors.Join(errs...)
}

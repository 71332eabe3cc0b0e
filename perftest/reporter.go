package perftest

import (
	"fmt"
	"os"
	"sync"
)

// EnvReport names the variable that asks every session of a test run to
// write its reports into a directory: PERFGATE_REPORT=dir.
const EnvReport = "PERFGATE_REPORT"

// A Reporter writes reports of a finished session's Result.
type Reporter func(*Result) error

var reporters struct {
	sync.Mutex
	list []namedReporter
}

type namedReporter struct {
	name string
	fn   Reporter
}

// RegisterReporter makes every session call fn with its Result once it has
// stopped and written the Result, when PERFGATE_REPORT is set. Package
// report registers its HTML and Markdown writer this way, as database/sql
// drivers register themselves: a test binary that links package report
// (import it, or import _ "github.com/perfgate/perfgate/report") writes
// reports. A name registered twice keeps the first function.
func RegisterReporter(name string, fn Reporter) {
	reporters.Lock()
	defer reporters.Unlock()
	for _, r := range reporters.list {
		if r.name == name {
			return
		}
	}
	reporters.list = append(reporters.list, namedReporter{name, fn})
}

// report runs the registered reporters on r when PERFGATE_REPORT is set. It
// returns what went wrong, and a note when the variable is set but no
// reporter is linked in, so a missing report is never silent.
func runReporters(r *Result) (note string, err error) {
	dir := os.Getenv(EnvReport)
	if dir == "" {
		return "", nil
	}
	reporters.Lock()
	list := append([]namedReporter(nil), reporters.list...)
	reporters.Unlock()
	if len(list) == 0 {
		return fmt.Sprintf("perftest: %s=%s is set but this test binary does not link package report; add import _ \"github.com/perfgate/perfgate/report\" to write reports", EnvReport, dir), nil
	}
	for _, rp := range list {
		if e := rp.fn(r); e != nil {
			err = fmt.Errorf("perftest: %s reporter: %w", rp.name, e)
			break
		}
	}
	return "", err
}

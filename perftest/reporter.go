package perftest

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/perfgate/perfgate/result"
)

// reporterPackages name, per variable, the package whose Reporter a session
// must be given for the variable to take effect.
var reporterPackages = map[string]string{result.EnvReport: "report", result.EnvHistory: "history"}

// WithReporters gives the session reporters to call with its Result once it
// has stopped and written the Result: each runs when its variable is set
// (report.Reporter on PERFGATE_REPORT, history.Reporter on
// PERFGATE_HISTORY), and its failure fails the test. They come before those
// of UseReporters; of two reporters of one name the first runs.
func WithReporters(rs ...result.Reporter) Option {
	return func(c *Config) { c.Reporters = append(c.Reporters, rs...) }
}

var defaultReporters struct {
	sync.Mutex
	list []result.Reporter
}

// UseReporters gives every session the process starts from now on the
// reporters rs, after those of its own Config (WithReporters). A test
// package calls it once, in TestMain:
//
//	func TestMain(m *testing.M) {
//		perftest.UseReporters(report.Reporter, history.Reporter)
//		os.Exit(m.Run())
//	}
//
// A reporter of a name given before keeps its first function.
func UseReporters(rs ...result.Reporter) {
	defaultReporters.Lock()
	defer defaultReporters.Unlock()
	defaultReporters.list = appendReporters(defaultReporters.list, rs)
}

// appendReporters appends to list each of rs whose name it lacks.
func appendReporters(list, rs []result.Reporter) []result.Reporter {
	for _, r := range rs {
		if !hasReporter(list, func(h result.Reporter) bool { return h.Name == r.Name }) {
			list = append(list, r)
		}
	}
	return list
}

func hasReporter(list []result.Reporter, match func(result.Reporter) bool) bool {
	for _, r := range list {
		if match(r) {
			return true
		}
	}
	return false
}

// runReporters runs the reporters of the session (own, then UseReporters')
// whose variable is set on r. It returns what went wrong, and a note when a
// variable is set but the session has no reporter for it, so a missing
// report is never silent.
func runReporters(own []result.Reporter, r *result.Result) (note string, err error) {
	defaultReporters.Lock()
	list := appendReporters(appendReporters(nil, own), defaultReporters.list)
	defaultReporters.Unlock()
	var notes []string
	for _, env := range []string{result.EnvReport, result.EnvHistory} {
		if os.Getenv(env) == "" || hasReporter(list, func(h result.Reporter) bool { return h.Env == env }) {
			continue
		}
		pkg := reporterPackages[env]
		notes = append(notes, fmt.Sprintf("perftest: %s is set but the session has no reporter for it; give it %s.Reporter (perftest.WithReporters, or perftest.UseReporters in TestMain) to use it", env, pkg))
	}
	var errs []error
	for _, rp := range list {
		if rp.Env != "" && os.Getenv(rp.Env) == "" {
			continue
		}
		if e := rp.Write(r); e != nil {
			errs = append(errs, fmt.Errorf("perftest: %s reporter: %w", rp.Name, e))
		}
	}
	return strings.Join(notes, "; "), errors.Join(errs...)
}

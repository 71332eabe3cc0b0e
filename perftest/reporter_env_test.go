package perftest

import (
	"github.com/perfgate/perfgate/result"
	"strings"
	"sync"
	"testing"
)

// A reporter runs when its own variable is set, and only then: with
// PERFGATE_HISTORY set and PERFGATE_REPORT unset the history reporter gets
// the Result and the report reporter does not; with no history reporter
// linked the session says which package to import.
func TestReportersByVariable(t *testing.T) {
	reporters.Lock()
	saved := reporters.list
	reporters.list = nil
	reporters.Unlock()
	t.Cleanup(func() {
		reporters.Lock()
		reporters.list = saved
		reporters.Unlock()
	})
	t.Setenv(EnvReport, "")
	t.Setenv(EnvHistory, t.TempDir()+"/h.db")
	lt := &loggingT{}
	runFakeSession(t, lt)
	if len(lt.logs) != 1 || !strings.Contains(lt.logs[0], `import _ "github.com/perfgate/perfgate/history"`) || strings.Contains(lt.logs[0], "h.db") {
		t.Fatalf("no history reporter linked: logs %q", lt.logs)
	}
	var mu sync.Mutex
	var calls []string
	record := func(name string) Reporter {
		return func(*result.Result) error {
			mu.Lock()
			defer mu.Unlock()
			calls = append(calls, name)
			return nil
		}
	}
	RegisterReporter("report", record("report"))
	RegisterReporterFor(EnvHistory, "history", record("history"))
	lt = &loggingT{}
	runFakeSession(t, lt)
	if len(calls) != 1 || calls[0] != "history" || len(lt.logs) != 0 || len(lt.errs) != 0 {
		t.Fatalf("PERFGATE_HISTORY only: calls %q, logs %q, errs %q", calls, lt.logs, lt.errs)
	}
	calls = nil
	t.Setenv(EnvReport, t.TempDir())
	runFakeSession(t, &loggingT{})
	if len(calls) != 2 {
		t.Fatalf("both set: calls %q", calls)
	}
}

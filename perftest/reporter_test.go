package perftest

import (
	"errors"
	"fmt"
	"github.com/perfgate/perfgate/result"
	"strings"
	"sync"
	"testing"
)

// loggingT is a recordingT that also keeps Logf lines.
type loggingT struct {
	recordingT
	logs []string
}

func (l *loggingT) Logf(format string, args ...any) {
	l.logs = append(l.logs, fmt.Sprintf(format, args...))
}

func runFakeSession(t *testing.T, lt *loggingT) *result.Result {
	t.Helper()
	f := newFake()
	cfg := fastConfig(t)
	s := startFake(t, f, cfg)
	s.t = lt
	s.Step("scroll", func() { waitTicks(t, f, 2) })
	return s.Stop()
}

// The reporter registry: with PERFGATE_REPORT set and nothing registered
// a session says how to get reports instead of staying silent; once a
// reporter is registered it receives every stopped session's Result, and
// its failure fails the test.
func TestReporters(t *testing.T) {
	// The registry is the process's: start from an empty one and put it
	// back, so the test holds with -count=N.
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
	lt := &loggingT{}
	runFakeSession(t, lt)
	if len(lt.logs) != 0 || len(lt.errs) != 0 {
		t.Fatalf("PERFGATE_REPORT unset: logs %q errs %q", lt.logs, lt.errs)
	}

	t.Setenv(EnvReport, t.TempDir())
	lt = &loggingT{}
	runFakeSession(t, lt)
	if len(lt.logs) != 1 || !strings.Contains(lt.logs[0], `import _ "github.com/perfgate/perfgate/report"`) {
		t.Fatalf("no reporter linked: logs %q", lt.logs)
	}

	var mu sync.Mutex
	var got []*result.Result
	var fail error
	RegisterReporter("test", func(r *result.Result) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, r)
		return fail
	})
	RegisterReporter("test", func(*result.Result) error { panic("a second registration under one name must be ignored") })
	lt = &loggingT{}
	r := runFakeSession(t, lt)
	if len(got) != 1 || got[0] != r || len(lt.logs) != 0 || len(lt.errs) != 0 {
		t.Fatalf("reporter got %d results (want this session's one); logs %q errs %q", len(got), lt.logs, lt.errs)
	}
	if got[0].Step("scroll").Missing {
		t.Errorf("the reporter's Result lacks the step: %+v", got[0].Steps)
	}

	fail = errors.New("disk full")
	lt = &loggingT{}
	runFakeSession(t, lt)
	if want := "perftest: test reporter: disk full"; len(lt.errs) != 1 || lt.errs[0] != want {
		t.Errorf("failing reporter: errs %q, want [%q]", lt.errs, want)
	}
}

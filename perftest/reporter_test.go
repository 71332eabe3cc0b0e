package perftest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/perfgate/perfgate/result"
)

// loggingT is a recordingT that also keeps Logf lines.
type loggingT struct {
	recordingT
	logs []string
}

func (l *loggingT) Logf(format string, args ...any) {
	l.logs = append(l.logs, fmt.Sprintf(format, args...))
}

func runFakeSession(t *testing.T, lt *loggingT, rs ...result.Reporter) *result.Result {
	t.Helper()
	f := newFake()
	cfg := fastConfig(t)
	cfg.Reporters = rs
	s := startFake(t, f, cfg)
	s.t = lt
	s.Step("scroll", func() { waitTicks(t, f, 2) })
	return s.Stop()
}

// useNoDefaults empties UseReporters' list for the test and puts it back,
// so the test holds with -count=N.
func useNoDefaults(t *testing.T) {
	defaultReporters.Lock()
	saved := defaultReporters.list
	defaultReporters.list = nil
	defaultReporters.Unlock()
	t.Cleanup(func() {
		defaultReporters.Lock()
		defaultReporters.list = saved
		defaultReporters.Unlock()
	})
}

// With PERFGATE_REPORT set and no reporter given a session says how to
// get reports instead of staying silent; a reporter given receives every
// stopped session's Result, of two of one name the first runs, and its
// failure fails the test.
func TestReporters(t *testing.T) {
	useNoDefaults(t)
	t.Setenv(result.EnvReport, "")
	t.Setenv(result.EnvHistory, "")
	lt := &loggingT{}
	runFakeSession(t, lt)
	if len(lt.logs) != 0 || len(lt.errs) != 0 {
		t.Fatalf("PERFGATE_REPORT unset: logs %q errs %q", lt.logs, lt.errs)
	}

	t.Setenv(result.EnvReport, t.TempDir())
	lt = &loggingT{}
	runFakeSession(t, lt)
	if len(lt.logs) != 1 || !strings.Contains(lt.logs[0], "PERFGATE_REPORT is set but the session has no reporter for it; give it report.Reporter") {
		t.Fatalf("no reporter given: logs %q", lt.logs)
	}

	var mu sync.Mutex
	var got []*result.Result
	var fail error
	rp := result.Reporter{Name: "test", Env: result.EnvReport, Write: func(r *result.Result) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, r)
		return fail
	}}
	second := result.Reporter{Name: "test", Env: result.EnvReport, Write: func(*result.Result) error {
		panic("a second reporter of one name must not run")
	}}
	lt = &loggingT{}
	r := runFakeSession(t, lt, rp, second)
	if len(got) != 1 || got[0] != r || len(lt.logs) != 0 || len(lt.errs) != 0 {
		t.Fatalf("reporter got %d results (want this session's one); logs %q errs %q", len(got), lt.logs, lt.errs)
	}
	if got[0].Step("scroll").Missing {
		t.Errorf("the reporter's Result lacks the step: %+v", got[0].Steps)
	}

	fail = errors.New("disk full")
	lt = &loggingT{}
	runFakeSession(t, lt, rp)
	if want := "perftest: test reporter: disk full"; len(lt.errs) != 1 || lt.errs[0] != want {
		t.Errorf("failing reporter: errs %q, want [%q]", lt.errs, want)
	}
}

// A reporter runs when its own variable is set, and only then; those of
// UseReporters run for every session, after the session's own.
func TestReportersByVariable(t *testing.T) {
	useNoDefaults(t)
	t.Setenv(result.EnvReport, "")
	t.Setenv(result.EnvHistory, t.TempDir()+"/h.db")
	lt := &loggingT{}
	runFakeSession(t, lt)
	if len(lt.logs) != 1 || !strings.Contains(lt.logs[0], "PERFGATE_HISTORY is set but the session has no reporter for it; give it history.Reporter") || strings.Contains(lt.logs[0], "h.db") {
		t.Fatalf("no history reporter given: logs %q", lt.logs)
	}
	var mu sync.Mutex
	var calls []string
	record := func(name, env string) result.Reporter {
		return result.Reporter{Name: name, Env: env, Write: func(*result.Result) error {
			mu.Lock()
			defer mu.Unlock()
			calls = append(calls, name)
			return nil
		}}
	}
	UseReporters(record("history", result.EnvHistory))
	lt = &loggingT{}
	runFakeSession(t, lt, record("report", result.EnvReport))
	if !slices.Equal(calls, []string{"history"}) || len(lt.logs) != 0 || len(lt.errs) != 0 {
		t.Fatalf("PERFGATE_HISTORY only: calls %q, logs %q, errs %q", calls, lt.logs, lt.errs)
	}
	calls = nil
	t.Setenv(result.EnvReport, t.TempDir())
	runFakeSession(t, &loggingT{}, record("report", result.EnvReport))
	if !slices.Equal(calls, []string{"report", "history"}) {
		t.Fatalf("both set: calls %q, want the session's own first", calls)
	}
}

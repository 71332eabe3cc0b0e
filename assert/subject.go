package assert

import (
	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/internal/callsite"
)

// TestingT is the part of *testing.T the checks need; *testing.T,
// *testing.B and testify's mocks satisfy it. Helper and Logf are used when
// the value has them.
type TestingT interface {
	Errorf(format string, args ...any)
	FailNow()
}

type helperT interface{ Helper() }
type logT interface {
	Logf(format string, args ...any)
}

func logf(t TestingT, format string, args ...any) {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	if l, ok := t.(logT); ok {
		l.Logf(format, args...)
	}
}

// report records vs with the subject they judged (when it keeps verdicts,
// as a perftest Result and its steps do), reports each failing one's line
// through t and each warning through its log, and returns whether none
// failed.
func report(t TestingT, s budget.Subject, vs []budget.Verdict) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	budget.Record(s, vs)
	ok := true
	for _, v := range vs {
		switch {
		case v.Fails():
			t.Errorf("%s", v.Line)
			ok = false
		case v.Status == budget.Warn && v.Line != "":
			logf(t, "%s", v.Line)
		}
	}
	return ok
}

// callSite names the test's line that called a check (callsite.Outside).
func callSite() string { return callsite.Outside(1) }

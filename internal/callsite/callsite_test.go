package callsite

import (
	"strings"
	"testing"
)

// A call from a test file is the user's line.
func TestOutside(t *testing.T) {
	got := Outside(0)
	if !strings.HasPrefix(got, "callsite_test.go:") {
		t.Errorf("Outside(0) = %q, want this file's line", got)
	}
	if f := func() string { return Outside(1) }(); f != got[:strings.IndexByte(got, ':')]+":14" {
		t.Errorf("Outside(1) from a closure = %q", f)
	}
}

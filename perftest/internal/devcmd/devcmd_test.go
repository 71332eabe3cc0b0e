package devcmd

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/adbx"
)

// A failed command reads as adbx words it; one that exited 0 without the
// output it was run for says what it printed, cut at excerpt's limit.
func TestFailure(t *testing.T) {
	long := strings.Repeat("x", 500)
	for _, tc := range []struct {
		r    adbx.Result
		want string
	}{
		{adbx.Result{ExitCode: 1, Stderr: []byte("cat: /proc/1/stat: No such file or directory\n")}, "cat /proc/1/stat: exit status 1: cat: /proc/1/stat: No such file or directory"},
		{adbx.Result{}, "cat /proc/1/stat: exit status 0, printed nothing"},
		{adbx.Result{Stdout: []byte(long)}, `cat /proc/1/stat: exit status 0: "` + long[:120] + `…"`},
	} {
		if got := Failure(tc.r, "cat /proc/1/stat"); got != tc.want {
			t.Errorf("Failure(%+v) = %q, want %q", tc.r, got, tc.want)
		}
	}
}

// Output puts stderr after stdout, on a line of its own.
func TestOutput(t *testing.T) {
	if got := string(Output(adbx.Result{Stdout: []byte("a"), Stderr: []byte("b")})); got != "a\nb" {
		t.Errorf("Output = %q", got)
	}
	if got := string(Output(adbx.Result{Stdout: []byte("a")})); got != "a" {
		t.Errorf("Output without stderr = %q", got)
	}
}

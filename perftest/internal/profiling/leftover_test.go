package profiling

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
)

// A profiler file is a leftover when it is perfgate's, older than the
// grace period on the phone's clock, and no running simpleperf writes it;
// a listing the phone could not give shows none.
func TestProfilerLeftovers(t *testing.T) {
	const now = 1_800_000_000
	ok := func(s string) adbx.Result { return adbx.Result{Stdout: []byte(s)} }
	files := ok("" +
		"1799999000 /data/local/tmp/perfgate-00112233445566aa.data\n" + // 16m40s: a leftover
		"1799999000 /data/local/tmp/perfgate-00112233445566bb.trace\n" + // ART's: a leftover
		"1799999700 /data/local/tmp/perfgate-00112233445566cc.data\n" + // 5 min: may be live
		"1799990000 /data/local/tmp/perfgate-00112233445566dd.data\n" + // old, but written
		"1799990000 /data/local/tmp/perfgate-com.x.y-12.trace-lease\n" + // a trace's lease
		"1799990000 /data/local/tmp/perfgate-short.data\n" + // not a session's name
		"garbage\n")
	ps := ok("  PID ARGS\n" +
		"  812 /system/bin/surfaceflinger\n" +
		"21001 simpleperf record --app com.x.y -t 4242 -e cpu-clock -f 1000 -g --clockid monotonic -o /data/local/tmp/perfgate-00112233445566dd.data\n")
	got, why := profilerLeftovers([]adbx.Result{ok("1800000000\n"), files, ps})
	want := map[string]time.Duration{
		"/data/local/tmp/perfgate-00112233445566aa.data":  (now - 1799999000) * time.Second,
		"/data/local/tmp/perfgate-00112233445566bb.trace": (now - 1799999000) * time.Second,
	}
	if !maps.Equal(got, want) || why != "" {
		t.Errorf("leftovers %v (%q), want %v", got, why, want)
	}
	// A listing the phone could not give says why, quoting it.
	for _, tc := range []struct {
		out  []adbx.Result
		want string
	}{
		{nil, "batch of 3 commands returned 0 results"},
		{[]adbx.Result{{ExitCode: 127, Stderr: []byte("date: not found")}, files, ps}, "date +%s: exit status 127: date: not found"},
		{[]adbx.Result{ok("soon\n"), files, ps}, `date +%s printed "soon"`},
		{[]adbx.Result{ok("1800000000\n"), files, {ExitCode: 1}}, "ps -A -o PID,ARGS: exit status 1"},
	} {
		got, why := profilerLeftovers(tc.out)
		if len(got) > 0 || !strings.Contains(why, tc.want) {
			t.Errorf("from %d unreadable results: %v, why %q, want %q", len(tc.out), slices.Collect(maps.Keys(got)), why, tc.want)
		}
	}
}

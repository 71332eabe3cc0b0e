package trace_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/perfgate/perfgate/trace"
	"github.com/perfgate/perfgate/trace/tracewriter"
)

// With a package to look at, Options.Marker is not given the lines of a
// process the trace already named another's (SurfaceFlinger's, and its
// thread's end that names no process), and is given the app's, a
// zygote's fork's not yet named after its package, and an unnamed
// process's; without a package, every line.
func TestMarkerSkipsOtherProcesses(t *testing.T) {
	var buf bytes.Buffer
	w := tracewriter.New(&buf)
	w.ClockSnapshot(map[trace.Clock]int64{trace.Boottime: 1e9, trace.Monotonic: 1e9})
	w.ProcessTree(1e9, []tracewriter.Process{
		{PID: 600, PPID: 1, Cmdline: "/system/bin/surfaceflinger"},
		{PID: 4242, PPID: 500, Cmdline: genPkg},
		{PID: 5000, PPID: 500, Cmdline: "usap64"},
	}, []tracewriter.Thread{{TID: 601, TGID: 600, Name: "RenderEngine"}})
	lines := []struct {
		tid   int32
		print string
		other bool
	}{
		{600, "B|600|composite", true},
		{601, "B|600|REThreaded::drawLayers", true},
		{4242, "B|4242|Choreographer#doFrame 1", false},
		{5000, "B|5000|PostFork", false},
		{7000, "B|7000|unnamed", false},
		{601, "E", true},
		{600, "E|600", true},
		{4242, "E|4242", false},
		{5000, "E|5000", false},
		{7000, "E|7000", false},
	}
	var ev []tracewriter.Event
	var all, app []string
	for i, l := range lines {
		ev = append(ev, tracewriter.Event{Ts: 2e9 + int64(i)*1e6, PID: l.tid, Print: l.print})
		all = append(all, l.print)
		if !l.other {
			app = append(app, l.print)
		}
	}
	w.Ftrace(tracewriter.Bundle{CPU: 0, Events: ev})
	if err := w.Err(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pkg  string
		want []string
	}{{genPkg, app}, {"", all}} {
		var got []string
		_, err := trace.Analyze(bytes.NewReader(buf.Bytes()), trace.Options{Package: tc.pkg, Marker: func(_ int64, _ int32, line []byte) {
			got = append(got, string(line))
		}})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("package %q: the hook was given %q, want %q", tc.pkg, got, tc.want)
		}
	}
}

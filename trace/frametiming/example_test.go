package frametiming_test

import (
	"bytes"
	"fmt"

	"github.com/perfgate/perfgate/trace"
	"github.com/perfgate/perfgate/trace/frametiming"
	"github.com/perfgate/perfgate/trace/tracewriter"
)

// A trace of two frames of com.example (pid 4242, RenderThread 4259):
// each with its FrameTimeline frames, its Choreographer#doFrame and its
// DrawFrames slice. The first is done 6 ms before its deadline, the
// second 4 ms after it.
func Example() {
	var buf bytes.Buffer
	w := tracewriter.New(&buf)
	w.ProcessTree(1, []tracewriter.Process{{PID: 4242, PPID: 1, Cmdline: "com.example"}}, nil)
	const ms = 1_000_000
	var ui, rt []tracewriter.Event
	for i, f := range []struct{ vsync, doFrame, drawEnd, end int64 }{
		{100 * ms, 101 * ms, 126 * ms, 127 * ms},
		{117 * ms, 127 * ms, 150 * ms, 154 * ms},
	} {
		id := int64(10 + i)
		sf := tracewriter.SurfaceFrame{Cookie: 2*id + 1, Token: id, PID: 4242, Layer: "TX - com.example/com.example.Main#0"}
		w.ExpectedSurfaceFrame(f.vsync, sf)
		w.FrameEnd(f.vsync+33*ms, sf.Cookie)
		sf.Cookie++
		w.ActualSurfaceFrame(f.vsync, sf)
		w.FrameEnd(f.end, sf.Cookie)
		name := fmt.Sprint(id)
		ui = append(ui, tracewriter.Event{Ts: f.doFrame, PID: 4242, Print: "B|4242|Choreographer#doFrame " + name},
			tracewriter.Event{Ts: f.doFrame + 8*ms, PID: 4242, Print: "E|4242"})
		rt = append(rt, tracewriter.Event{Ts: f.doFrame + 8*ms, PID: 4259, Print: "B|4242|DrawFrames " + name},
			tracewriter.Event{Ts: f.drawEnd, PID: 4259, Print: "E|4242"})
	}
	w.Ftrace(tracewriter.Bundle{CPU: 1, Events: ui})
	w.Ftrace(tracewriter.Bundle{CPU: 2, Events: rt})

	c := &frametiming.Collector{}
	a, err := trace.Analyze(&buf, trace.Options{Package: "com.example", Marker: c.Marker})
	if err != nil {
		fmt.Println(err)
		return
	}
	st := frametiming.Compute(a, c).Window(a.Start, a.End+1)
	fmt.Printf("%d frames\noverrun p50 %.1f ms, p99 %.2f ms\ncpu p50 %.1f ms, p99 %.2f ms\n",
		st.Frames, st.Overrun.P50, st.Overrun.P99, st.CPU.P50, st.CPU.P99)
	// Output:
	// 2 frames
	// overrun p50 -1.0 ms, p99 3.90 ms
	// cpu p50 24.0 ms, p99 24.98 ms
}

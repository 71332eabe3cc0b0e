package tracewriter_test

import (
	"bytes"
	"fmt"

	"github.com/perfgate/perfgate/trace"
	"github.com/perfgate/perfgate/trace/tracewriter"
)

// A frame of an app, written as SurfaceFlinger's FrameTimeline does, and
// read back.
func ExampleWriter() {
	var buf bytes.Buffer
	w := tracewriter.New(&buf)
	w.ClockSnapshot(map[trace.Clock]int64{trace.Boottime: 5_000_000_000, trace.Monotonic: 2_000_000_000})
	frame := tracewriter.SurfaceFrame{Cookie: 1, Token: 42, PID: 4242, Layer: "TX - com.example/com.example.Main#0",
		Jank: trace.JankAppDeadlineMissed, Present: trace.PresentLate}
	w.ActualSurfaceFrame(5_010_000_000, frame)
	w.FrameEnd(5_040_000_000, 1)
	if err := w.Err(); err != nil {
		fmt.Println(err)
		return
	}

	a, err := trace.Analyze(&buf, trace.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	f := a.Frames[0]
	fmt.Printf("%d packets; frame %d of pid %d: %d ms, %v, %v\n", a.Packets, f.Token, f.PID, f.Dur()/1e6, f.Jank, f.Present)
	// Output:
	// 3 packets; frame 42 of pid 4242: 30 ms, App Deadline Missed, Late Present
}

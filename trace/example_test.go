package trace_test

import (
	"bytes"
	"fmt"

	"github.com/perfgate/perfgate/trace"
	"github.com/perfgate/perfgate/trace/tracewriter"
)

// A trace of one janky frame: the main thread runs 12 ms, then waits 8 ms
// on a binder call, inside Choreographer#doFrame.
func ExampleAnalyze() {
	var buf bytes.Buffer
	w := tracewriter.New(&buf)
	const ms = 1_000_000
	w.ClockSnapshot(map[trace.Clock]int64{trace.Boottime: 1000 * ms, trace.Monotonic: 400 * ms})
	w.ProcessTree(1000*ms, []tracewriter.Process{{PID: 4242, Cmdline: "com.example"}}, nil)
	w.Ftrace(tracewriter.Bundle{CPU: 0, Events: []tracewriter.Event{
		{Ts: 1001 * ms, PID: 0, Switch: &tracewriter.SchedSwitch{PrevPID: 0, NextPID: 4242}},
		{Ts: 1001 * ms, PID: 4242, Print: "B|4242|Choreographer#doFrame 77"},
		{Ts: 1002 * ms, PID: 4242, Print: "B|4242|inflate"},
		{Ts: 1012 * ms, PID: 4242, Print: "E|4242"},
		{Ts: 1012 * ms, PID: 4242, Print: "B|4242|AIDL::java::IFoo::bar::client"},
		{Ts: 1013 * ms, PID: 4242, Binder: &tracewriter.BinderTransaction{ToProc: 1000}},
		{Ts: 1013 * ms, PID: 4242, Switch: &tracewriter.SchedSwitch{PrevPID: 4242, PrevState: 1, NextPID: 0}},
	}})
	w.Ftrace(tracewriter.Bundle{CPU: 1, Events: []tracewriter.Event{
		{Ts: 1021 * ms, PID: 1010, Binder: &tracewriter.BinderTransaction{ToProc: 4242, ToThread: 4242, Reply: true}},
		{Ts: 1021 * ms, PID: 1010, Waking: &tracewriter.SchedWaking{PID: 4242}},
		{Ts: 1022 * ms, PID: 1010, Switch: &tracewriter.SchedSwitch{PrevPID: 1010, NextPID: 4242}},
		{Ts: 1022 * ms, PID: 4242, Print: "E|4242"},
		{Ts: 1023 * ms, PID: 4242, Print: "E|4242"},
		{Ts: 1023 * ms, PID: 4242, Switch: &tracewriter.SchedSwitch{PrevPID: 4242, PrevState: 1, NextPID: 0}},
	}})
	w.ExpectedSurfaceFrame(1000*ms, tracewriter.SurfaceFrame{Cookie: 1, Token: 77, PID: 4242, Layer: "TX - com.example/com.example.Main#0"})
	w.ActualSurfaceFrame(1001*ms, tracewriter.SurfaceFrame{Cookie: 2, Token: 77, PID: 4242, Layer: "TX - com.example/com.example.Main#0",
		Jank: trace.JankAppDeadlineMissed, Present: trace.PresentLate})
	w.FrameEnd(1016*ms, 1)
	w.FrameEnd(1025*ms, 2)

	a, err := trace.Analyze(&buf, trace.Options{Package: "com.example"})
	if err != nil {
		fmt.Println(err)
		return
	}
	step, _ := a.Window(trace.Window{Name: "tap", Start: 350 * ms, End: 450 * ms, Clock: trace.Monotonic})
	fmt.Println(step.Frames, "frame,", step.AppJank, "app jank:", step.ByType)
	jf := step.JankyFrames[0]
	st := jf.MainThread
	fmt.Printf("running %d ms, binder %d ms, runnable %d ms, sleeping %d ms\n", st.RunningNs/ms, st.BinderNs/ms, st.RunnableNs/ms, st.SleepingNs/ms)
	for _, s := range jf.Slices {
		fmt.Printf("%s: %d ms\n", s.Name, s.Dur()/ms)
	}
	// Output:
	// 1 frame, 1 app jank: map[App Deadline Missed:1]
	// running 13 ms, binder 8 ms, runnable 1 ms, sleeping 2 ms
	// inflate: 10 ms
	// AIDL::java::IFoo::bar::client: 10 ms
}

// Package trace reads Perfetto traces of Android apps in Go and says why
// their frames janked: Android's own FrameTimeline classification of every
// frame (App Deadline Missed, Buffer Stuffing, SurfaceFlinger deadlines,
// Display HAL, Prediction Error, Unknown), and for each janky frame what the
// app's main thread did meanwhile (running, runnable, sleeping, in
// uninterruptible I/O, waiting on a binder call) and its longest atrace or
// TrackEvent slices under the frame's Choreographer#doFrame. Per step (a
// window of time on the trace's clock or the monotonic one), jank by type.
//
//	f, _ := os.Open("trace.perfetto-trace")
//	a, err := trace.Analyze(f, trace.Options{Package: "com.example"})
//	if err != nil { … } // a still holds what was read before the error
//	step, _ := a.Window(trace.Window{Name: "scroll", Start: s, End: e, Clock: trace.Monotonic})
//	fmt.Println(step.AppJank, step.ByType)
//
// The file is read as a stream, one packet at a time (Reader), decoding by
// field number only the fields it needs, as perfetto's
// protos/perfetto/trace/**.proto define them: FrameTimeline events, ftrace
// bundles (sched_switch and sched_waking, plain and in the compact
// encoding, atrace markers, binder transactions), process trees, clock
// snapshots, system info, TrackEvent slices with their interned names and
// sequence defaults. What it keeps is what an analysis needs: the frames, the
// process names and the events of threads that can be an app's main thread.
// Package tracewriter writes the same format, and package internal/pb is the
// protobuf wire layer under both; none of them imports another package of
// perfgate.
//
// A number that cannot be real is not data: a frame without an end, an end
// without a start, a slice still open when the trace ends, an event whose
// CPU's time went backwards are counted in Analysis.Rejected and left out;
// what the trace cannot tell (no scheduler events, no slices, no
// FrameTimeline) is named in Analysis.NotMeasured, never given as zero.
//
// A file may hold several traces one after another (the framing allows
// `cat a b`; a ring buffer read twice holds its packets twice): it is
// analysed as the one trace they make up, each frame counted once by its
// identity and each CPU's and track's events once (Analysis.Traces,
// Analysis.ReadAgain).
package trace

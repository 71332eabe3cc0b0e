// Package perftest measures an Android app around named steps of a test and
// turns what it saw into a result.Result: frames, CPU, memory, traffic, battery and
// crashes, each step summarised with perfgate's metric definitions.
//
//	s := perftest.Start(t, dev, perftest.App("com.example.feed"))
//	s.Step("scroll", func() { /* drive the UI */ })
//	r := s.Stop()
//	if r.Step("scroll").Jank() > 3 { ... }
//
// A session polls the device on a tick (every 100 ms by default). Every cheap
// read of one tick (frames, /proc/stat, the app's /proc/<pid>/stat and
// status, thread stats, traffic counters, the device clock) goes to the
// device in ONE adb round trip; `dumpsys meminfo` runs in a slow lane of its
// own so it never delays frame polling. Frames are de-duplicated across
// overlapping polls and assigned to steps by the device's monotonic clock,
// which the session maps from host time by the midpoints of its round trips
// (the Result records how well the two clocks are aligned).
//
// A tick that fails (device gone, timeout) is recorded as a gap with its
// error; when the device stays unreachable the session ends with an error,
// and the Result keeps everything taken so far and is written to disk all the
// same (testdata/perf-results/ by default, or $PERFGATE_RESULTS), as
// <Test>@<package>.json: TestScroll of package feed writes
// TestScroll@feed.json, and a second session of that name in one run, or in
// another run going on at once, TestScroll@feed.2.json (see
// result.Result.WriteInDir).
//
// With WithTrace (Config.Trace) the session also records a Perfetto trace
// around its steps on Android 10 and later, pulls it beside the Result and
// reads Android's own FrameTimeline jank classification from it into each
// step (Step.Trace, the catalogue's jank_frametimeline), with what the
// main thread did in every janky frame.
//
// Start is for tests: it takes any TestingT (*testing.T, *testing.B, testify
// mocks) and fails the test when a session cannot start. NewSession is the
// same without a test, for programs such as `perfgate record`.
//
// A session also finds out why frames janked (package causes, Config.Causes):
// it sets the app's Looper slow-message property when it starts (restoring
// it at Stop), samples the app's main thread with simpleperf where the app
// allows it, and at Stop reads the Looper's lines and the app's ANRs; each
// step's Causes then holds every janky frame's phases, the message that
// delayed it and the stack sampled while it drew, and a jank failure says
// why in its line.
//
// The package builds on adbx (the device), metrics (the parsers, the math,
// the catalogue and the one type of a frame) and assert, whose checks the
// session-bound ones are; assert, report and history read its Result.
//
// The checks bound to a test's session (MaxJank(t, 3), MinFPS, …) check its
// most recent step. A session measures a step's last frames only when it
// stops, so a check called while it runs reports at Stop; the BoundCheck it
// returns has no verdict until then.
package perftest

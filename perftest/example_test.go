package perftest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/simdevice"
)

// A session outside a test, on the simulated phone: one step of scrolling,
// summarised with the metric definitions.
func ExampleNewSession() {
	wl, _ := simdevice.Preset("smooth-scroll")
	dev, _ := simdevice.New(simdevice.Config{Workload: wl, RefreshHz: 60})
	defer dev.Close()
	srv := adbtest.NewServer(dev)
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d := srv.Open("")
	d.Shell(ctx, "am start -W -n com.perfgate.demo/.MainActivity") // returns once the app is displayed

	s, err := perftest.NewSession(ctx, d, perftest.Config{Package: "com.perfgate.demo", ResultFile: "-"})
	if err != nil {
		fmt.Println(err)
		return
	}
	s.Step("scroll", func() { time.Sleep(500 * time.Millisecond) })
	r := s.Stop()

	st := r.Step("scroll")
	fmt.Printf("source %s, fps %.0f, jank %d (%s), crashed %v\n",
		st.Frames().Source, st.FPS(), st.Jank(), st.Frames().JankDefinition, st.Crashed())
	// Output: source gfxinfo, fps 60, jank 0 (deadline_missed), crashed false
}

// A session with a Perfetto trace on the simulated phone, whose app makes
// every 20th frame wait on a binder call: Android's own verdict on each
// janky frame, and what the main thread did meanwhile.
func ExampleWithTrace() {
	wl, _ := simdevice.Preset("smooth-scroll")
	wl.Phases[0].Janks = []simdevice.Jank{{Every: 20, Vsyncs: 4, Wait: simdevice.WaitBinder}}
	dev, _ := simdevice.New(simdevice.Config{Workload: wl, RefreshHz: 60})
	defer dev.Close()
	srv := adbtest.NewServer(dev)
	defer srv.Close()
	dir, _ := os.MkdirTemp("", "perfgate-example")
	defer os.RemoveAll(dir)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d := srv.Open("")
	d.Shell(ctx, "am start -W -n com.perfgate.demo/.MainActivity") // returns once the app is displayed

	s, err := perftest.NewSession(ctx, d, perftest.Config{Package: "com.perfgate.demo", Name: "scroll", ResultsDir: dir,
		Trace: &perftest.TraceConfig{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	s.Step("scroll", func() { time.Sleep(500 * time.Millisecond) })
	r := s.Stop()

	fmt.Println("trace:", filepath.Base(r.Trace.File))
	jf := r.Step("scroll").Trace.JankyFrames[0]
	st := jf.MainThread
	fmt.Printf("%v (%v), %.1f ms: running %.1f ms, binder %.1f ms, sleeping %.1f ms\n", jf.Jank, jf.Present,
		float64(jf.Dur())/1e6, float64(st.RunningNs)/1e6, float64(st.BinderNs)/1e6, float64(st.SleepingNs)/1e6)
	fmt.Println("longest slice:", jf.Slices[0].Name)
	// Output:
	// trace: scroll@perftest.perfetto-trace
	// App Deadline Missed (Late Present), 62.5 ms: running 19.8 ms, binder 4.5 ms, sleeping 37.5 ms
	// longest slice: traversal
}

// A tap that drew one frame, on a phone whose traffic counters could not
// be read: a frame count but no FPS (it needs two frames), and no traffic,
// each with the reason rather than a 0.
func ExampleStep_Absent() {
	dm := 0
	st := &perftest.Step{Name: "tap",
		FrameStats: frames.Summary{Source: "gfxinfo", Frames: 1, DeadlineMissed: &dm},
		NotMeasured: map[metrics.Name]string{
			metrics.Rx: `traffic: /proc/<pid>/net/dev unreadable on every read in the step (3 failed; last: exit 1: "cat: /proc/4242/net/dev: No such file or directory")`,
		},
	}
	for _, a := range st.Absent() {
		if a.Name == metrics.FPS || a.Name == metrics.Rx {
			fmt.Printf("%s: %s\n", a.Name, a.Reason)
		}
	}
	for _, m := range st.Metrics() {
		if m.Name == metrics.Frames || m.Name == metrics.Jank {
			fmt.Printf("%s = %g\n", m.Name, m.Value)
		}
	}
	// Output:
	// fps: frames: needs two frames (intervals between frames); the step had 1
	// rx: traffic: /proc/<pid>/net/dev unreadable on every read in the step (3 failed; last: exit 1: "cat: /proc/4242/net/dev: No such file or directory")
	// frames = 1
	// jank = 0
}

// Three cold starts: the figures are their nearest-rank medians, and full
// display only counts when every launch reported it.
func ExampleStartupStats_Summarise() {
	st := perftest.StartupStats{Kind: "cold", Iterations: []perftest.StartupSample{
		{TotalTimeMs: 690, FullyDrawnMs: 910}, {TotalTimeMs: 650, FullyDrawnMs: 900}, {TotalTimeMs: 700},
	}}
	st.Summarise()
	fmt.Println(st.InitialDisplayMs, st.FullDisplayMs)
	st.Iterations[2].FullyDrawnMs = 950
	st.Summarise()
	fmt.Println(st.InitialDisplayMs, st.FullDisplayMs)
	// Output:
	// 690 0
	// 690 910
}

// Results written into one folder never overwrite each other within a run
// (or across runs going on at once): the second session of TestFeed in
// this run gets a name of its own. A later run replaces them.
func ExampleResult_WriteInDir() {
	dir, _ := os.MkdirTemp("", "perf-results")
	defer os.RemoveAll(dir)
	for range 2 {
		r := &perftest.Result{Name: "TestFeed"}
		if err := r.WriteInDir(dir, "TestFeed@"+perftest.TestPackage()); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(filepath.Base(r.Path))
	}
	// Output:
	// TestFeed@perftest.json
	// TestFeed@perftest.2.json
}

package result_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/result"
)

// A tap that drew one frame, on a phone whose traffic counters could not
// be read: a frame count but no FPS (it needs two frames), and no traffic,
// each with the reason rather than a 0.
func ExampleStep_Absent() {
	dm := 0
	st := &result.Step{Name: "tap",
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
	st := result.StartupStats{Kind: "cold", Iterations: []result.StartupSample{
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
		r := &result.Result{Name: "TestFeed"}
		if err := r.WriteInDir(dir, "TestFeed@"+result.TestPackage()); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(filepath.Base(r.Path))
	}
	// Output:
	// TestFeed@result.json
	// TestFeed@result.2.json
}

package history

import (
	"fmt"
	"strings"
	"time"

	"github.com/perfgate/perfgate/android/procfs"
	resultpkg "github.com/perfgate/perfgate/result"
)

// t0 is when the generated histories begin.
var t0 = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

// scrollStep is a step whose frame_time_p95 is p95 ms and whose app CPU is
// cpu %, the figures the collectors would have summarised.
func scrollStep(name string, p95, cpu float64) *resultpkg.Step {
	st := &resultpkg.Step{Name: name}
	st.FrameStats.Source = "gfxinfo"
	st.FrameStats.Frames = 120
	st.FrameStats.FPS = 60
	st.FrameStats.FrameTimeMS.P95 = p95
	st.FrameStats.JankDefinition = "deadline_missed"
	st.CPUStats = resultpkg.CPUStats{Source: "/proc/stat", Unit: "%", Intervals: 20, Mean: cpu, P90: cpu, Max: cpu}
	return st
}

// result is a session of test on model that started at start.
func result(test, model string, start time.Time, steps ...*resultpkg.Step) *resultpkg.Result {
	return &resultpkg.Result{Schema: resultpkg.Schema, Name: test, Start: start, End: start.Add(time.Minute),
		Device: procfs.DeviceFacts{Serial: "emulator-5554", Model: model, Manufacturer: "Google", API: 34, Release: "14"},
		App:    resultpkg.AppInfo{Package: "com.example.feed"}, Steps: steps}
}

// commitOf names the i-th generated commit.
func commitOf(i int) string { return fmt.Sprintf("c%05d", i) }

// contains reports whether s holds every one of subs.
func contains(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

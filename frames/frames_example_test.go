package frames_test

import (
	"fmt"
	"time"

	"github.com/perfgate/perfgate/frames"
)

func ExampleSummarizeSurfaceFlinger() {
	// Eight frames at 60 Hz, then a 150 ms hitch, then two more frames.
	const p = 16_666_667
	var t []int64
	for i := range 8 {
		t = append(t, int64(i)*p)
	}
	t = append(t, t[7]+150_000_000, t[7]+150_000_000+p, t[7]+150_000_000+2*p)
	s := frames.SummarizeSurfaceFlinger(t, p)
	fmt.Printf("frames %d, jank %d (%s) at %v, big jank %d, max frame delay %d\n",
		s.Frames, s.Jank, s.JankDefinition, time.Duration(s.Janked.PerfDog[0]), s.PerfDog.BigJank, s.Chromium.MaxFrameDelay)
	// Output: frames 11, jank 1 (perfdog) at 266.666669ms, big jank 1, max frame delay 9
}

// The median and p90 of five CPU ticks, by the nearest-rank method.
func ExampleNearestRank() {
	ticks := []float64{6.1, 7.9, 6.4, 12.5, 6.8}
	fmt.Println(frames.NearestRank(ticks, 50), frames.NearestRank(ticks, 90))
	// Output: 6.8 12.5
}

package metrics_test

import (
	"fmt"
	"time"

	"github.com/perfgate/perfgate/metrics"
)

func ExampleParseSurfaceFlingerLatency() {
	out := "16666667\n" +
		"100000000\t100000000\t100000000\n" +
		"116666667\t116666667\t116666667\n" +
		"0\t0\t0\n" + // a slot without a frame: dropped
		"133333334\t133333334\t133333334\n"
	lat, err := metrics.ParseSurfaceFlingerLatency([]byte(out))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(lat.RefreshPeriod, len(lat.Frames), lat.Dropped)
	// Output: 16666667 3 1
}

func ExampleFrameSummarizeSurfaceFlinger() {
	// Eight frames at 60 Hz, then a 150 ms hitch, then two more frames.
	const p = 16_666_667
	var t []int64
	for i := range 8 {
		t = append(t, int64(i)*p)
	}
	t = append(t, t[7]+150_000_000, t[7]+150_000_000+p, t[7]+150_000_000+2*p)
	s := metrics.FrameSummarizeSurfaceFlinger(t, p)
	fmt.Printf("frames %d, jank %d (%s) at %v, big jank %d, max frame delay %d\n",
		s.Frames, s.Jank, s.JankDefinition, time.Duration(s.Janked.PerfDog[0]), s.PerfDog.BigJank, s.Chromium.MaxFrameDelay)
	// Output: frames 11, jank 1 (perfdog) at 266.666669ms, big jank 1, max frame delay 9
}

func ExampleParseGfxInfo() {
	out := "Applications Graphics Acceleration Info:\n" +
		"Uptime: 1000 Realtime: 2000\n\n" +
		"** Graphics info for pid 42 [com.example] **\n\n" +
		"Total frames rendered: 3\n" +
		"Janky frames: 1 (33.33%)\n\n" +
		"Profile data in ms:\n\n" +
		"\tcom.example/com.example.Main/android.view.ViewRootImpl@1 (visibility=0)\n" +
		"---PROFILEDATA---\n" +
		"Flags,IntendedVsync,Vsync,FrameDeadline,FrameInterval,FrameStartTime,FrameCompleted,\n" +
		"0,1000000000,1000000000,1033333334,1000100000,16666667,1010000000,\n" +
		"0,1016666667,1016666667,1050000001,1016700000,16666667,1060000000,\n" +
		"1,1033333334,1033333334,1066666668,1033400000,16666667,1040000000,\n" +
		"---PROFILEDATA---\n"
	g, err := metrics.ParseGfxInfo([]byte(out))
	if err != nil {
		fmt.Println(err)
		return
	}
	w := g.Windows()[0]
	fmt.Println(g.Processes[0].Package, g.Processes[0].Summary.TotalFrames, w.Frames.Len(), w.Frames.LabelSwapped)
	s := metrics.FrameSummarizeGfxInfo(w.Frames.Frames(), w.Frames.RefreshPeriod())
	fmt.Println(s.Frames, *s.DeadlineMissed, s.JankDefinition)
	// Output:
	// com.example 3 3 true
	// 2 1 deadline_missed
}

func ExamplePickLayer() {
	list := "com.example/com.example.Game#0\n" +
		"SurfaceView[com.example/com.example.Game]#0\n" +
		"SurfaceView[com.example/com.example.Game](BLAST)#0\n" +
		"Background for SurfaceView[com.example/com.example.Game]#0\n"
	layers, _ := metrics.ParseSurfaceFlingerList([]byte(list))
	l, err := metrics.PickLayer(layers, "com.example")
	fmt.Println(l.Name, err)
	// Output: SurfaceView[com.example/com.example.Game](BLAST)#0 <nil>
}

func ExampleLogcatSkipped() {
	log := "05-16 13:34:02.594  4036  4036 I Choreographer: Skipped 89 frames!  The application may be doing too much work on its main thread.\n" +
		"05-16 13:34:02.700  4036  4036 I Choreographer: Skipped 10 frames!  The application may be doing too much work on its main thread.\n"
	entries, err := metrics.ParseLogcat([]byte(log))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, sec := range metrics.FrameGTSmoothness(metrics.LogcatSkipped(entries), 60) {
		fmt.Println(sec.Second.Format("15:04:05"), sec.Skipped, sec.SM)
	}
	// Output: 13:34:02 99 0
}

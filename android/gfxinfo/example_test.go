package gfxinfo_test

import (
	"fmt"

	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/frames"
)

func ExampleParse() {
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
	g, err := gfxinfo.Parse([]byte(out))
	if err != nil {
		fmt.Println(err)
		return
	}
	w := g.Windows()[0]
	fmt.Println(g.Processes[0].Package, g.Processes[0].Summary.TotalFrames, w.Frames.Len(), w.Frames.LabelSwapped)
	s := frames.SummarizeGfxInfo(w.Frames.Frames(), w.Frames.RefreshPeriod())
	fmt.Println(s.Frames, *s.DeadlineMissed, s.JankDefinition)
	// Output:
	// com.example 3 3 true
	// 2 1 deadline_missed
}

package logcat_test

import (
	"fmt"

	"github.com/perfgate/perfgate/android/logcat"
	"github.com/perfgate/perfgate/frames"
)

func ExampleSkipped() {
	log := "05-16 13:34:02.594  4036  4036 I Choreographer: Skipped 89 frames!  The application may be doing too much work on its main thread.\n" +
		"05-16 13:34:02.700  4036  4036 I Choreographer: Skipped 10 frames!  The application may be doing too much work on its main thread.\n"
	entries, err := logcat.Parse([]byte(log))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, sec := range frames.GTSmoothness(logcat.Skipped(entries), 60) {
		fmt.Println(sec.Second.Format("15:04:05"), sec.Skipped, sec.SM)
	}
	// Output: 13:34:02 99 0
}

// Why did process 4242 end? Keep the log's events about it (here by pid;
// a caller also bounds them by time) and classify them.
func ExampleClassifyEnd() {
	log := `11-24 09:00:01.200  4242  4242 E AndroidRuntime: FATAL EXCEPTION: main
11-24 09:00:01.200  4242  4242 E AndroidRuntime: Process: com.example, PID: 4242
11-24 09:00:01.200  4242  4242 E AndroidRuntime: java.lang.IllegalStateException: boom
11-24 09:00:01.260  1100  1400 I ActivityManager: Process com.example (pid 4242) has died: fg  TOP
11-24 09:00:05.000  1100  1310 I ActivityManager: Killing 4400:com.example:remote/u0a123 (adj 0): stop com.example
`
	entries, err := logcat.Parse([]byte(log))
	if err != nil {
		panic(err)
	}
	var mine []logcat.ProcEvent
	for _, ev := range logcat.ProcEvents(entries) {
		if ev.PID == 4242 {
			mine = append(mine, ev)
		}
	}
	end := logcat.ClassifyEnd(mine)
	fmt.Println(end.Reason, end.Cause, end.Event.Detail)
	// Output: crash java java.lang.IllegalStateException: boom
}

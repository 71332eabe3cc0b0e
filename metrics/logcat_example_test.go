package metrics_test

import (
	"fmt"

	"github.com/perfgate/perfgate/metrics"
)

// Why did process 4242 end? Keep the log's events about it (here by pid;
// a caller also bounds them by time) and classify them.
func ExampleLogcatClassifyEnd() {
	log := `11-24 09:00:01.200  4242  4242 E AndroidRuntime: FATAL EXCEPTION: main
11-24 09:00:01.200  4242  4242 E AndroidRuntime: Process: com.example, PID: 4242
11-24 09:00:01.200  4242  4242 E AndroidRuntime: java.lang.IllegalStateException: boom
11-24 09:00:01.260  1100  1400 I ActivityManager: Process com.example (pid 4242) has died: fg  TOP
11-24 09:00:05.000  1100  1310 I ActivityManager: Killing 4400:com.example:remote/u0a123 (adj 0): stop com.example
`
	entries, err := metrics.ParseLogcat([]byte(log))
	if err != nil {
		panic(err)
	}
	var mine []metrics.LogcatProcEvent
	for _, ev := range metrics.LogcatProcEvents(entries) {
		if ev.PID == 4242 {
			mine = append(mine, ev)
		}
	}
	end := metrics.LogcatClassifyEnd(mine)
	fmt.Println(end.Reason, end.Cause, end.Event.Detail)
	// Output: crash java java.lang.IllegalStateException: boom
}

package procfs_test

import (
	"fmt"

	"github.com/perfgate/perfgate/android/procfs"
)

// Two ticks of `cat /proc/stat /proc/<pid>/stat`, one second apart on a
// 4-core device.
func ExampleCPUUsageBetween() {
	before, err := procfs.ParseCPUSnapshot([]byte(
		"cpu  1000 0 500 8000 100 0 0 0 0 0\ncpu0 250 0 125 2000 25 0 0 0 0 0\ncpu1 250 0 125 2000 25 0 0 0 0 0\n" +
			"cpu2 250 0 125 2000 25 0 0 0 0 0\ncpu3 250 0 125 2000 25 0 0 0 0 0\n" +
			"4292 (com.example.app) S 983 983 0 0 -1 0 0 0 0 0 300 100 0 0 20 0 20 0 1000 0 0\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	after, err := procfs.ParseCPUSnapshot([]byte(
		"cpu  1200 0 600 8300 100 0 0 0 0 0\ncpu0 300 0 150 2075 25 0 0 0 0 0\ncpu1 300 0 150 2075 25 0 0 0 0 0\n" +
			"cpu2 300 0 150 2075 25 0 0 0 0 0\ncpu3 300 0 150 2075 25 0 0 0 0 0\n" +
			"4292 (com.example.app) S 983 983 0 0 -1 0 0 0 0 0 380 140 0 0 20 0 20 0 1000 0 0\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	u, err := procfs.CPUUsageBetween(before, after, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("device %.1f%%, app %.1f%% of the device, %.1f%% top-style on %d cores\n", u.DevicePct, u.AppPct, u.AppCorePct, u.Cores)
	// Output: device 50.0%, app 20.0% of the device, 80.0% top-style on 4 cores
}

func ExampleParsePidStat() {
	// comm may hold spaces and parentheses; fields are read after the last ')'.
	st, err := procfs.ParsePidStat([]byte("16360 (AWCN Worker(M)1) S 372 372 0 0 -1 1077936192 70 0 3 0 12 7 0 0 20 0 35 0 58748 16236625920 43973"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d %q utime %d stime %d\n", st.PID, st.Comm, st.UTime, st.STime)
	// Output: 16360 "AWCN Worker(M)1" utime 12 stime 7
}

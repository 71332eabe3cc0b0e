package perftest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/procfs"
)

// fakeDevice is a scripted phone for the session's own unit tests: every
// call to batch advances its counters by one step, so expected figures can
// be computed by hand from the step sizes.
type fakeDevice struct {
	mu sync.Mutex

	info   procfs.DeviceFacts
	uid    int
	uidErr error
	pids   []int // pidof answer; nil = not running
	// pidofOut, when set, is what pidof prints instead, with exit 0.
	pidofOut string

	// Per batch the CPU counters move by these many ticks.
	busyStep, idleStep, appStep uint64
	busy, idle, app             uint64
	rssKB                       int64
	rxStep, txStep              uint64
	rx, tx                      uint64
	statDenied                  bool
	// The device clock runs with the host's from bootNs at t0.
	t0     time.Time
	bootNs int64
	// deaths are the processes setPIDs ended, at device ns; each logged
	// a Java crash.
	deaths []fakeDeath

	// fail, when set, decides per batch whether it fails (and how).
	fail func(ctx context.Context, cmds []string) error
	// cut, when set, decides per batch whether it fails after its first
	// n commands finished (a slow device), returning their results.
	cut func(cmds []string) (n int, err error)
	// extra answers commands the fake does not know.
	extra func(cmd string) (adbx.Result, bool)

	batches int // every batch
	ticks   int // cheap-lane batches
	cmds    [][]string
	// answered is closed, and replaced, as each batch is answered.
	answered chan struct{}
}

func newFake() *fakeDevice {
	return &fakeDevice{
		info:     procfs.DeviceFacts{Serial: "fake", Model: "Fake", API: 28, Cores: 8, ClockTicks: 100, RefreshHz: 60},
		uid:      10234,
		pids:     []int{4242},
		busyStep: 200, idleStep: 600, appStep: 40,
		rssKB:  150000,
		rxStep: 1000, txStep: 100,
		t0: time.Now(), bootNs: 11_000_000_000_000,
	}
}

// deviceNow is the fake's monotonic clock.
func (f *fakeDevice) deviceNow() int64 { return f.bootNs + int64(time.Since(f.t0)) }

func (f *fakeDevice) serial() string { return f.info.Serial }

func (f *fakeDevice) facts(ctx context.Context) (procfs.DeviceFacts, []string, error) {
	return f.info, nil, nil
}

func (f *fakeDevice) appUID(ctx context.Context, pkg string) (int, error) {
	if f.uidErr != nil {
		return 0, f.uidErr
	}
	return f.uid, nil
}

func (f *fakeDevice) appProcesses(ctx context.Context, pkg string) ([]string, []int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.pids) == 0 {
		return nil, nil, nil
	}
	return []string{pkg}, append([]int{}, f.pids...), nil
}

type fakeDeath struct {
	pid int
	at  int64
}

func (f *fakeDevice) setPIDs(p ...int) {
	f.mu.Lock()
	for _, old := range f.pids {
		if !slices.Contains(p, old) {
			f.deaths = append(f.deaths, fakeDeath{old, f.deviceNow()})
		}
	}
	f.pids = p
	f.mu.Unlock()
}

// fakeWall is the fake's wall clock at device ns: 2026-11-22 09:00 UTC at
// boot plus the uptime.
func (f *fakeDevice) fakeWall(dev int64) time.Time {
	return time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC).Add(time.Duration(dev))
}

// await waits until cond holds, trying it again each time the fake
// answers a batch; false when it still does not after a minute, a bound
// for a broken test, not a wait for time to pass.
func (f *fakeDevice) await(cond func() bool) bool {
	timeout := time.After(time.Minute)
	for {
		f.mu.Lock()
		if f.answered == nil {
			f.answered = make(chan struct{})
		}
		next := f.answered
		f.mu.Unlock()
		if cond() {
			return true
		}
		select {
		case <-next:
		case <-timeout:
			return false
		}
	}
}

// batchCount counts the cheap-lane ticks the device answered.
func (f *fakeDevice) batchCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ticks
}

func (f *fakeDevice) batch(ctx context.Context, cmds []string) ([]adbx.Result, error) {
	if f.fail != nil {
		if err := f.fail(ctx, cmds); err != nil {
			return nil, err
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	defer f.signal()
	f.batches++
	f.cmds = append(f.cmds, cmds)
	// Counters move once per cheap-lane tick (the batch that asks pidof),
	// so every tick interval shows exactly one step of each.
	if slices.ContainsFunc(cmds, func(c string) bool { return strings.HasPrefix(c, "pidof ") }) {
		f.ticks++
		f.busy += f.busyStep
		f.idle += f.idleStep
		f.app += f.appStep
		f.rx += f.rxStep
		f.tx += f.txStep
	}
	out := make([]adbx.Result, len(cmds))
	for i, c := range cmds {
		out[i] = f.run(c)
	}
	if f.cut != nil {
		if n, err := f.cut(cmds); err != nil {
			return out[:n], err
		}
	}
	return out, nil
}

// signal wakes the waiters of await; f.mu is held.
func (f *fakeDevice) signal() {
	if f.answered != nil {
		close(f.answered)
		f.answered = nil
	}
}

func (f *fakeDevice) pidLoop(format string) string {
	var b strings.Builder
	for _, p := range f.pids {
		fmt.Fprintf(&b, format, p)
	}
	return b.String()
}

func (f *fakeDevice) run(cmd string) adbx.Result {
	if f.extra != nil {
		if r, ok := f.extra(cmd); ok {
			return r
		}
	}
	ok := func(s string) adbx.Result { return adbx.Result{Stdout: []byte(s)} }
	switch {
	case cmd == "cat /proc/uptime":
		up := f.deviceNow()
		return ok(fmt.Sprintf("%d.%02d 0.00\n", up/1e9, up%1e9/1e7))
	case cmd == "cat /proc/stat":
		if f.statDenied {
			return adbx.Result{Stderr: []byte("cat: /proc/stat: Permission denied"), ExitCode: 1}
		}
		// busy is user+system; idle is idle. One cpuN line per core, as
		// the kernel prints for the online ones.
		b := fmt.Sprintf("cpu  %d 0 %d %d 0 0 0 0 0 0\n", f.busy/2, f.busy-f.busy/2, f.idle)
		for i := range f.info.Cores {
			b += fmt.Sprintf("cpu%d 1 0 1 1 0 0 0 0 0 0\n", i)
		}
		return ok(b)
	case strings.HasPrefix(cmd, "pidof "):
		if f.pidofOut != "" {
			return ok(f.pidofOut)
		}
		if len(f.pids) == 0 {
			return adbx.Result{ExitCode: 1}
		}
		return ok(strings.Trim(fmt.Sprint(f.pids), "[]") + "\n")
	case strings.HasPrefix(cmd, "for p in $(pidof") && strings.Contains(cmd, "/task/*/stat"):
		return ok(f.pidLoop("%[1]d (com.perfgate.demo) S 1 0 0 0 -1 0 0 0 0 0 "+fmt.Sprint(f.app*3/4, " ", f.app/4)+" 0 0 20 0 30 0 777 0 0\n") +
			f.pidLoop("%[1]d1 (RenderThread) S 1 0 0 0 -1 0 0 0 0 0 "+fmt.Sprint(f.app/4, " 0")+" 0 0 20 0 30 0 778 0 0\n"))
	case strings.HasPrefix(cmd, "for p in $(pidof") && strings.Contains(cmd, "/stat;"):
		return ok(f.pidLoop("%[1]d (com.perfgate.demo) S 1 0 0 0 -1 0 0 0 0 0 " + fmt.Sprint(f.app*3/4, " ", f.app-f.app*3/4) + " 0 0 20 0 30 0 777 0 0\n"))
	case strings.HasPrefix(cmd, "for p in $(pidof") && strings.Contains(cmd, "/status;"):
		return ok(f.pidLoop("Name:\tcom.perfgate.demo\nPid:\t%[1]d\nVmRSS:\t" + fmt.Sprint(f.rssKB) + " kB\n"))
	case cmd == "cat /proc/net/xt_qtaguid/stats":
		return ok("idx iface acct_tag_hex uid_tag_int cnt_set rx_bytes rx_packets tx_bytes tx_packets rx_tcp_bytes rx_tcp_packets rx_udp_bytes rx_udp_packets rx_other_bytes rx_other_packets tx_tcp_bytes tx_tcp_packets tx_udp_bytes tx_udp_packets tx_other_bytes tx_other_packets\n" +
			fmt.Sprintf("2 wlan0 0x0 %d 0 %d 10 %d 5 0 0 0 0 0 0 0 0 0 0 0 0\n", f.uid, f.rx, f.tx) +
			"3 wlan0 0x0 10999 0 555 1 66 1 0 0 0 0 0 0 0 0 0 0 0 0\n")
	case strings.HasPrefix(cmd, "dumpsys meminfo "):
		if len(f.pids) == 0 {
			return ok("No process found for: com.perfgate.demo\n")
		}
		return ok("Applications Memory Usage (in Kilobytes):\nUptime: 1 Realtime: 1\n\n** MEMINFO in pid 4242 [com.perfgate.demo] **\n" +
			" App Summary\n                       Pss(KB)\n                        ------\n           Java Heap:     1000\n         Native Heap:     2000\n                Code:     3000\n               Stack:      100\n            Graphics:      400\n       Private Other:      500\n              System:     6000\n\n               TOTAL:    13000       TOTAL SWAP PSS:       20\n")
	case strings.HasPrefix(cmd, "date "):
		w := f.fakeWall(f.deviceNow())
		return ok(fmt.Sprintf("%d.%09d %s\n", w.Unix(), w.Nanosecond(), w.Format("2006-01-02 15:04:05")))
	case strings.HasPrefix(cmd, "logcat -d -b crash"):
		// Each death's FATAL line, logged just before it.
		var b strings.Builder
		for _, d := range f.deaths {
			fmt.Fprintf(&b, "%s %5d %5d E AndroidRuntime: FATAL EXCEPTION: main\n", f.fakeWall(d.at-int64(20*time.Millisecond)).Format("01-02 15:04:05.000"), d.pid, d.pid)
		}
		return ok(b.String())
	case strings.HasPrefix(cmd, "logcat -d"):
		return ok(f.fakeWall(f.deviceNow()).Format("01-02 15:04:05.000") + "  1000  1000 I Other: unrelated\n")
	case strings.HasPrefix(cmd, "dumpsys SurfaceFlinger --list"):
		return ok("com.perfgate.demo/com.perfgate.demo.MainActivity#0\n")
	}
	return adbx.Result{Stderr: []byte("/system/bin/sh: " + strings.Fields(cmd)[0] + ": inaccessible or not found"), ExitCode: 127}
}

var errFakeGone = errors.New("device gone")

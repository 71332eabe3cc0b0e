package procfs

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/internal/fixtures"
)

func cpuNear(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestCPUTimesTotalBusy(t *testing.T) {
	tests := []struct {
		name        string
		c           CPUTimes
		total, busy uint64
	}{
		// androidgodeye capture: 4473+1068+4565+21155+559+0+29+0 = 31849; busy = 31849-21155-559.
		{"androidgodeye cpu line", CPUTimes{User: 4473, Nice: 1068, System: 4565, Idle: 21155, IOWait: 559, SoftIRQ: 29}, 31849, 10135},
		// guest and guest_nice are already inside user and nice.
		{"guest excluded, steal included", CPUTimes{User: 10, Idle: 10, Steal: 5, Guest: 100, GuestNice: 50}, 25, 15},
		{"zero", CPUTimes{}, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.c.Total() != tc.total || tc.c.Busy() != tc.busy {
				t.Errorf("total %d busy %d, want %d %d", tc.c.Total(), tc.c.Busy(), tc.total, tc.busy)
			}
		})
	}
}

func TestCPUDevicePercent(t *testing.T) {
	base := CPUTimes{User: 100, System: 50, Idle: 800, IOWait: 50}
	tests := []struct {
		name   string
		before CPUTimes
		after  CPUTimes
		want   float64
		err    error
	}{
		// Δtotal = 1400-1000 = 400; Δbusy = 250-150 = 100 → 25 %.
		{"quarter busy", base, CPUTimes{User: 160, System: 90, Idle: 1100, IOWait: 50}, 25, nil},
		// iowait is idle time: Δtotal 100, all iowait → 0 %.
		{"iowait is not busy", base, CPUTimes{User: 100, System: 50, Idle: 800, IOWait: 150}, 0, nil},
		// irq and softirq are busy: Δtotal 40 (20 irq + 20 idle) → 50 %.
		{"irq is busy", base, CPUTimes{User: 100, System: 50, Idle: 820, IOWait: 50, IRQ: 10, SoftIRQ: 10}, 50, nil},
		{"fully busy", base, CPUTimes{User: 200, System: 50, Idle: 800, IOWait: 50}, 100, nil},
		{"no ticks", base, base, 0, ErrCPUNoElapsed},
		{"reboot", base, CPUTimes{User: 5, System: 5, Idle: 900, IOWait: 60}, 0, ErrCPUCounterReset},
		{"swapped samples", CPUTimes{User: 160, System: 90, Idle: 1100, IOWait: 50}, base, 0, ErrCPUCounterReset},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CPUDevicePercent(tc.before, tc.after)
			if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if !cpuNear(got, tc.want) || math.IsNaN(got) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCPUAppPercent(t *testing.T) {
	before := CPUTimes{User: 100, System: 50, Idle: 800, IOWait: 50}
	after := CPUTimes{User: 160, System: 90, Idle: 1100, IOWait: 50} // Δtotal 400
	main0 := PidStat{PID: 1, UTime: 10, STime: 5, StartTime: 7}
	main1 := PidStat{PID: 1, UTime: 40, STime: 15, StartTime: 7} // +40
	remote := PidStat{PID: 2, UTime: 10, STime: 10, StartTime: 90}
	tests := []struct {
		name          string
		pb, pa        []PidStat
		cores         int
		want, wantCor float64
	}{
		{"one process", []PidStat{main0}, []PidStat{main1}, 8, 10, 80},                         // 40/400
		{"new process counts in full", []PidStat{main0}, []PidStat{main1, remote}, 8, 15, 120}, // (40+20)/400
		{"ended process not counted", []PidStat{main0, remote}, []PidStat{main1}, 4, 10, 40},
		// Same pid, other start time: a new process, all 5 ticks count.
		{"pid reused", []PidStat{main0}, []PidStat{{PID: 1, UTime: 3, STime: 2, StartTime: 500}}, 2, 1.25, 2.5},
		{"no processes", nil, nil, 8, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CPUAppPercent(before, after, tc.pb, tc.pa)
			if err != nil || !cpuNear(got, tc.want) {
				t.Errorf("app %% = %v, %v; want %v", got, err, tc.want)
			}
			core, err := CPUAppCorePercent(before, after, tc.pb, tc.pa, tc.cores)
			if err != nil || !cpuNear(core, tc.wantCor) {
				t.Errorf("per-core %% = %v, %v; want %v", core, err, tc.wantCor)
			}
		})
	}
	if _, err := CPUAppPercent(before, before, nil, nil); !errors.Is(err, ErrCPUNoElapsed) {
		t.Errorf("Δtotal 0: err = %v", err)
	}
	if _, err := CPUAppCorePercent(before, after, nil, nil, 0); err == nil {
		t.Error("0 cores: no error")
	}
}

func TestCPUTopThreadsFlashlightPolls(t *testing.T) {
	p1, err := ParsePidStats(fixtures.Read(t, "proc/flashlight_task_stats_poll1.txt"))
	if err != nil {
		t.Fatal(err)
	}
	p2, err := ParsePidStats(fixtures.Read(t, "proc/flashlight_task_stats_poll2.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// The captures carry no /proc/stat; take Δtotal = 1000 ticks.
	before, after := CPUTimes{}, CPUTimes{User: 400, Idle: 600}
	got, err := CPUTopThreads(before, after, p1, p2, 8, 4)
	if err != nil {
		t.Fatal(err)
	}
	// By hand: mqt_js 903+98 → 1215+98 (312); com.example 3089+1079 → 3106+1086 (24);
	// RenderThread 312+135 → 314+136 (3); OkHttp Dispatch 23099 91+41 → 92+42 (2).
	want := []CPUThreadPercent{
		{21637, "mqt_js", 312, 31.2, 249.6},
		{21455, "com.example", 24, 2.4, 19.2},
		{21598, "RenderThread", 3, 0.3, 2.4},
		{23099, "OkHttp Dispatch", 2, 0.2, 1.6},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d threads, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.TID != w.TID || g.Name != w.Name || g.Ticks != w.Ticks || !cpuNear(g.Percent, w.Percent) || !cpuNear(g.CorePct, w.CorePct) {
			t.Errorf("#%d = %+v, want %+v", i, g, w)
		}
	}
	all, err := CPUTopThreads(before, after, p1, p2, 8, 0)
	if err != nil || len(all) != 43 {
		t.Fatalf("all threads: %d, %v; want 43", len(all), err)
	}
	// JITWorker appeared in poll2 with 0+0 ticks.
	for _, th := range all {
		if th.TID == 23961 && th.Ticks != 0 {
			t.Errorf("JITWorker ticks %d, want 0", th.Ticks)
		}
	}
	if _, err := CPUTopThreads(after, before, p1, p2, 8, 3); !errors.Is(err, ErrCPUCounterReset) {
		t.Errorf("reversed samples: err = %v", err)
	}
}

func TestParseCPUSnapshotAndUsage(t *testing.T) {
	stat := fixtures.Read(t, "proc/goclever_insignia5_api17_proc_stat.txt")
	pid := fixtures.Read(t, "proc/androidgodeye_pid_stat_comm_tail_truncated.txt")
	snap, err := ParseCPUSnapshot(append(append(append([]byte{}, stat...), '\n'), pid...))
	if err != nil {
		t.Fatal(err)
	}
	if snap.Stat.CPU.User != 19107 || len(snap.Stat.Cores) != 1 || len(snap.Procs) != 1 || snap.Procs[0].PID != 3238 {
		t.Fatalf("snapshot = %+v", snap)
	}
	// Pid line first works too.
	snap2, err := ParseCPUSnapshot(append(append(append([]byte{}, pid...), '\n'), stat...))
	if err != nil || snap2.Stat.CPU != snap.Stat.CPU || len(snap2.Procs) != 1 {
		t.Fatalf("pid-first snapshot = %+v, %v", snap2, err)
	}
	// A later sample, made by hand: +100 user, +300 idle on the cpu line
	// (Δtotal 400, Δbusy 100) and +30 utime +10 stime for pid 3238.
	later := snap
	later.Stat.CPU.User += 100
	later.Stat.CPU.Idle += 300
	p := snap.Procs[0]
	p.UTime += 30
	p.STime += 10
	later.Procs = []PidStat{p}
	u, err := CPUUsageBetween(snap, later, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !cpuNear(u.DevicePct, 25) || !cpuNear(u.AppPct, 10) || !cpuNear(u.AppCorePct, 10) || u.Cores != 1 || !u.HasApp {
		t.Errorf("usage = %+v, want device 25, app 10, per-core 10 on 1 core", u)
	}
	u, err = CPUUsageBetween(snap, later, 4)
	if err != nil || !cpuNear(u.AppCorePct, 40) || u.Cores != 4 {
		t.Errorf("with 4 cores: %+v, %v", u, err)
	}
	for name, in := range map[string]string{
		"no cpu line":  "1 (a) S 1 1 0 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 5 6 7\n",
		"bad pid line": "cpu 1 2 3 4\n1 (a) S 1\n",
	} {
		var pe *devtext.ParseError
		if _, err := ParseCPUSnapshot([]byte(in)); !errors.As(err, &pe) {
			t.Errorf("%s: err = %v, want *ParseError", name, err)
		}
	}
}

// Two reads of /proc/stat in one file (`cat /proc/stat` twice, a capture
// appended to) are refused, quoting the second read's cpu line: counted as
// one, their cpuN lines made a phone of 8 cores one of 16.
func TestParseStatTwoReadsInOneFile(t *testing.T) {
	stat := fixtures.Read(t, "proc/goclever_insignia5_api17_proc_stat.txt")
	one, err := ParseStat(stat)
	if err != nil {
		t.Fatal(err)
	}
	two := append(append(append([]byte{}, stat...), '\n'), stat...)
	_, err = ParseStat(two)
	var pe *devtext.ParseError
	if !errors.As(err, &pe) || !strings.HasPrefix(pe.Text, "cpu ") || pe.Line <= len(one.Cores)+1 ||
		!strings.Contains(err.Error(), "more than one read of /proc/stat") {
		t.Errorf("two reads in one file (%d cores each): %v", len(one.Cores), err)
	}
}

// A process that ended between listing and sampling makes cat print an
// error line into the merged output; the snapshot simply lacks it.
func TestParseCPUSnapshotEndedProcess(t *testing.T) {
	in := "cpu 1 2 3 4\ncat: /proc/999/stat: No such file or directory\n7 (com.a) S 1 1 0 0 -1 0 0 0 0 0 11 22 0 0 20 0 1 0 5 6 7\n"
	snap, err := ParseCPUSnapshot([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Procs) != 1 || snap.Procs[0].PID != 7 || snap.Procs[0].UTime != 11 || snap.Stat.CPU.Idle != 4 {
		t.Errorf("got %+v", snap)
	}
}

func TestCPUUsageBetweenNeedsCores(t *testing.T) {
	line := fixtures.Read(t, "proc/androidgodeye_proc_stat_cpu_line.txt") // the cpu line alone, no cpuN
	before, err := ParseCPUSnapshot(line)
	if err != nil {
		t.Fatal(err)
	}
	after := before
	after.Stat.CPU.User += 50
	after.Stat.CPU.Idle += 150
	if _, err := CPUUsageBetween(before, after, 0); err == nil {
		t.Error("no cpuN lines and no core count: no error")
	}
	u, err := CPUUsageBetween(before, after, 4)
	if err != nil || !cpuNear(u.DevicePct, 25) || u.HasApp || u.Cores != 4 {
		t.Errorf("got %+v, %v; want device 25 %% on 4 cores, no app", u, err)
	}
}

func TestCPUAppTicksBetween(t *testing.T) {
	p := func(pid int, start, ticks uint64) PidStat {
		return PidStat{PID: pid, StartTime: start, UTime: ticks * 3 / 4, STime: ticks - ticks*3/4}
	}
	before := []PidStat{p(100, 500, 40), p(200, 600, 10)}
	tests := []struct {
		name  string
		after []PidStat
		since uint64
		want  uint64
	}{
		{"both alive", []PidStat{p(100, 500, 52), p(200, 600, 11)}, 900, 12 + 1},
		{"one died in the interval", []PidStat{p(100, 500, 52)}, 900, 12},
		{"all died", nil, 900, 0},
		{"restarted under a new pid inside the interval", []PidStat{p(300, 905, 7)}, 900, 7},
		{"pid reused inside the interval", []PidStat{p(100, 950, 3)}, 900, 3},
		{"a process the earlier sample missed", []PidStat{p(100, 500, 52), p(400, 700, 90)}, 900, 12},
		{"since unknown", []PidStat{p(400, 700, 90)}, 0, 90},
	}
	for _, tc := range tests {
		if got := CPUAppTicksBetween(before, tc.after, tc.since); got != tc.want {
			t.Errorf("%s: %d ticks, want %d", tc.name, got, tc.want)
		}
	}
	b := CPUTimes{User: 100, System: 50, Idle: 800, IOWait: 50}
	a := CPUTimes{User: 130, System: 60, Idle: 850, IOWait: 60}
	if total, busy, err := CPUDelta(b, a); err != nil || total != 100 || busy != 40 {
		t.Errorf("CPUDelta = %d, %d, %v; want 100, 40", total, busy, err)
	}
	if _, _, err := CPUDelta(a, b); err != ErrCPUCounterReset {
		t.Errorf("CPUDelta backwards: %v", err)
	}
}

package procfs

import (
	"errors"
	"fmt"
	"github.com/perfgate/perfgate/android/devtext"
	"sort"
	"strings"
)

// ErrCPUNoElapsed is returned when the aggregate cpu line did not advance
// between two samples (Δtotal = 0): no percentage can be computed.
var ErrCPUNoElapsed = errors.New("cpu: no ticks elapsed between samples")

// ErrCPUCounterReset is returned when a /proc/stat counter went backwards
// between two samples: the device rebooted, or the samples are swapped.
var ErrCPUCounterReset = errors.New("cpu: counter went backwards (device rebooted or samples out of order)")

// cpuDeltaTotal returns Δtotal, failing on a counter reset or no elapsed time.
func cpuDeltaTotal(before, after CPUTimes) (uint64, error) {
	b := [...]uint64{before.User, before.Nice, before.System, before.Idle, before.IOWait, before.IRQ, before.SoftIRQ, before.Steal}
	a := [...]uint64{after.User, after.Nice, after.System, after.Idle, after.IOWait, after.IRQ, after.SoftIRQ, after.Steal}
	for i := range a {
		if a[i] < b[i] {
			return 0, ErrCPUCounterReset
		}
	}
	d := after.Total() - before.Total()
	if d == 0 {
		return 0, ErrCPUNoElapsed
	}
	return d, nil
}

// CPUDelta returns Δtotal and Δbusy of the metrics.CPU metric definition between
// two aggregate `cpu` lines, failing on a counter reset or no elapsed time.
func CPUDelta(before, after CPUTimes) (total, busy uint64, err error) {
	total, err = cpuDeltaTotal(before, after)
	if err != nil {
		return 0, 0, err
	}
	b, a := before.Busy(), after.Busy()
	if a < b {
		return 0, 0, ErrCPUCounterReset
	}
	return total, a - b, nil
}

// CPUAppTicksBetween is Δ(utime+stime) summed over an app's processes
// between two samples. A process in both (same pid and start time) counts
// its difference. A process only in after, or whose pid was reused, counts
// all of its ticks when it started at or after since (the earlier sample's
// time in clock ticks since boot: it started inside the interval), and none
// when it started earlier, since how much of its time fell inside the
// interval is unknown; since 0 counts every such process in full. A process
// only in before ended inside the interval: its last ticks are lost, as in
// every /proc sampler.
func CPUAppTicksBetween(procsBefore, procsAfter []PidStat, since uint64) uint64 {
	old := cpuByPID(procsBefore)
	var ticks uint64
	for _, p := range procsAfter {
		if o, ok := old[p.PID]; (!ok || o.StartTime != p.StartTime) && p.StartTime < since {
			continue
		}
		ticks += cpuProcTicks(old, p)
	}
	return ticks
}

// CPUDevicePercent is device metrics.CPU % per the metrics.CPU metric definition:
// Δbusy / Δtotal × 100 between two aggregate `cpu` lines of /proc/stat.
func CPUDevicePercent(before, after CPUTimes) (float64, error) {
	dt, err := cpuDeltaTotal(before, after)
	if err != nil {
		return 0, err
	}
	return float64(after.Busy()-before.Busy()) / float64(dt) * 100, nil
}

// cpuProcTicks returns Δ(utime+stime) of one process between two samples.
// A pid absent from before, or whose start time changed (the pid was
// reused), started inside the window: all of its ticks count.
func cpuProcTicks(before map[int]PidStat, p PidStat) uint64 {
	now := p.UTime + p.STime
	old, ok := before[p.PID]
	if !ok || old.StartTime != p.StartTime {
		return now
	}
	was := old.UTime + old.STime
	if now < was {
		return 0 // cannot happen for one process; never count negative time
	}
	return now - was
}

func cpuByPID(ps []PidStat) map[int]PidStat {
	m := make(map[int]PidStat, len(ps))
	for _, p := range ps {
		m[p.PID] = p
	}
	return m
}

// CPUAppPercent is app metrics.CPU % per the metrics.CPU metric definition:
// Δ(utime+stime) summed over every process of the package, divided by Δtotal
// of the aggregate `cpu` line, × 100 — the app's share of the whole device
// (0..100). Processes are matched by pid (and start time); a process that
// exists only in after started inside the window and counts in full, one
// that exists only in before ended and is not counted (its last ticks are
// lost, as in every /proc sampler). Multiply by the core count for the
// `top`-style per-core figure (CPUAppCorePercent).
func CPUAppPercent(before, after CPUTimes, procsBefore, procsAfter []PidStat) (float64, error) {
	dt, err := cpuDeltaTotal(before, after)
	if err != nil {
		return 0, err
	}
	old := cpuByPID(procsBefore)
	var ticks uint64
	for _, p := range procsAfter {
		ticks += cpuProcTicks(old, p)
	}
	return float64(ticks) / float64(dt) * 100, nil
}

// CPUAppCorePercent is the `top`-style app metrics.CPU % of the metrics.CPU metric
// definition: CPUAppPercent × cores (so 100 means one core fully busy).
func CPUAppCorePercent(before, after CPUTimes, procsBefore, procsAfter []PidStat, cores int) (float64, error) {
	if cores <= 0 {
		return 0, fmt.Errorf("cpu: core count %d, want > 0", cores)
	}
	p, err := CPUAppPercent(before, after, procsBefore, procsAfter)
	return p * float64(cores), err
}

// CPUThreadPercent is one thread's metrics.CPU use between two task-stat samples.
type CPUThreadPercent struct {
	TID     int
	Name    string  // comm
	Ticks   uint64  // Δ(utime+stime)
	Percent float64 // share of the device, as CPUAppPercent
	CorePct float64 // Percent × cores, as `top -H`
}

// CPUTopThreads ranks threads by metrics.CPU use between two samples of
// /proc/<pid>/task/*/stat, with the percentages of the metrics.CPU metric definition
// (Δ(utime+stime) / Δtotal × 100, and × cores for the per-core figure). It
// returns the n busiest (all when n <= 0), busiest first, ties by tid.
func CPUTopThreads(before, after CPUTimes, tasksBefore, tasksAfter []PidStat, cores, n int) ([]CPUThreadPercent, error) {
	if cores <= 0 {
		return nil, fmt.Errorf("cpu: core count %d, want > 0", cores)
	}
	dt, err := cpuDeltaTotal(before, after)
	if err != nil {
		return nil, err
	}
	old := cpuByPID(tasksBefore)
	out := make([]CPUThreadPercent, 0, len(tasksAfter))
	for _, t := range tasksAfter {
		ticks := cpuProcTicks(old, t)
		pct := float64(ticks) / float64(dt) * 100
		out = append(out, CPUThreadPercent{TID: t.PID, Name: t.Comm, Ticks: ticks, Percent: pct, CorePct: pct * float64(cores)})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Ticks != out[j].Ticks {
			return out[i].Ticks > out[j].Ticks
		}
		return out[i].TID < out[j].TID
	})
	if n > 0 && n < len(out) {
		out = out[:n]
	}
	return out, nil
}

// CPUSnapshot is one sampling tick's metrics.CPU text: /proc/stat followed by the
// /proc/<pid>/stat lines of the app's processes, as one
// `cat /proc/stat /proc/<pid1>/stat /proc/<pid2>/stat` prints them.
type CPUSnapshot struct {
	Stat  Stat
	Procs []PidStat
}

// ParseCPUSnapshot splits concatenated /proc/stat and /proc/<pid>/stat text.
// A line starting with a number followed by " (" is a pid stat line; every
// other line belongs to /proc/stat. The two may come in any order; there
// may be no pid lines.
func ParseCPUSnapshot(b []byte) (CPUSnapshot, error) {
	text := string(devtext.Normalize(b))
	var stat, pids strings.Builder
	for i, ln := range strings.Split(text, "\n") {
		if cpuIsPidStatLine(ln) {
			// Keep line numbers meaningful in errors by parsing each line alone.
			if _, err := procParsePidStatLine(ln, i+1); err != nil {
				return CPUSnapshot{}, err
			}
			pids.WriteString(ln)
			pids.WriteByte('\n')
			continue
		}
		stat.WriteString(ln)
		stat.WriteByte('\n')
	}
	ps, err := ParseStat([]byte(stat.String()))
	if err != nil {
		return CPUSnapshot{}, err
	}
	procs, err := ParsePidStats([]byte(pids.String()))
	if err != nil {
		return CPUSnapshot{}, err
	}
	return CPUSnapshot{Stat: ps, Procs: procs}, nil
}

func cpuIsPidStatLine(ln string) bool {
	ln = strings.TrimLeft(ln, " ")
	i := 0
	for i < len(ln) && ln[i] >= '0' && ln[i] <= '9' {
		i++
	}
	return i > 0 && strings.HasPrefix(ln[i:], " (")
}

// CPUUsage is the metrics.CPU part of a report between two snapshots.
type CPUUsage struct {
	DevicePct  float64 // Δbusy/Δtotal × 100
	AppPct     float64 // Δ(utime+stime) over the app's processes / Δtotal × 100
	AppCorePct float64 // AppPct × Cores (top-style)
	Cores      int
	HasApp     bool // false when neither snapshot named a process
}

// CPUUsageBetween applies the metrics.CPU metric definition to two snapshots. cores
// is the device's core count for the per-core figure; 0 means the number of
// cpuN lines in after (which undercounts when cores are offline).
func CPUUsageBetween(before, after CPUSnapshot, cores int) (CPUUsage, error) {
	if cores == 0 {
		cores = len(after.Stat.Cores)
	}
	if cores <= 0 {
		return CPUUsage{}, errors.New("cpu: no cpuN lines to count cores; give the core count")
	}
	u := CPUUsage{Cores: cores}
	var err error
	if u.DevicePct, err = CPUDevicePercent(before.Stat.CPU, after.Stat.CPU); err != nil {
		return CPUUsage{}, err
	}
	if len(before.Procs) == 0 && len(after.Procs) == 0 {
		return u, nil
	}
	u.HasApp = true
	if u.AppPct, err = CPUAppPercent(before.Stat.CPU, after.Stat.CPU, before.Procs, after.Procs); err != nil {
		return CPUUsage{}, err
	}
	u.AppCorePct = u.AppPct * float64(cores)
	return u, nil
}

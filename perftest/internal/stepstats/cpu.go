package stepstats

import (
	"time"

	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/result"
)

// ProcsRead says whether a sample holds the app's process times: the app
// ran no process, or their stat files were read.
func ProcsRead(s result.Sample) bool { return len(s.PIDs) == 0 || len(s.Procs) > 0 }

// UptimeTicks is a sample's device time in clock ticks since boot, less
// one tick for the two clocks' resolutions, the bound a process that
// started after the sample passes (procfs.CPUAppTicksBetween); 0 when the
// sample has no device time. hz is the device's clock ticks per second.
func UptimeTicks(s result.Sample, hz int) uint64 {
	if s.UptimeNs <= 0 || hz <= 0 {
		return 0
	}
	return uint64(max(0, s.UptimeNs*int64(hz)/int64(time.Second)-1))
}

// CPU follows DESIGN.md "CPU" over every tick interval of the step: the
// app's share is Σ app Δ / Σ Δtotal, each interval counting the processes
// present at both of its ends and those that started inside it
// (procfs.CPUAppTicksBetween), so an app that dies in the step keeps its
// time up to the last tick that saw it. The top-style per-core figure sets
// each interval's Δtotal against the cores online in it (the cpuN lines
// of /proc/stat). Without /proc/stat (procStat false), wall time × the
// core count stands in for Δtotal: the device's, from the /proc/uptime
// each tick reads right after the app's counters, or the host's between
// the ticks' round trips where a tick has no clock read.
func CPU(r *result.Result, st *result.Step, procStat bool) result.CPUStats {
	out := result.CPUStats{Unit: "%", Source: "/proc/stat, /proc/<pid>/stat, /proc/<pid>/task/*/stat"}
	if !procStat {
		out.Source = "/proc/<pid>/stat over wall time (/proc/stat unreadable)"
	}
	usable := func(i int) bool {
		s := r.Samples[i]
		return (s.CPU != nil || !procStat) && ProcsRead(s)
	}
	a, b, ok := Bracket(len(r.Samples), func(i int) int64 { return r.Samples[i].HostNs }, usable, st.HostStartNs, st.HostEndNs)
	if !ok {
		return out
	}
	var sum cpuTicks
	var ticks []float64
	hostClock := false // an interval timed on the host
	prev := a
	for i := a + 1; i <= b; i++ {
		if !usable(i) {
			continue
		}
		p, q := r.Samples[prev], r.Samples[i]
		prev = i
		iv, ok := interval(r.Device, p, q, procStat)
		if !ok {
			continue
		}
		hostClock = hostClock || iv.hostClock
		sum.app, sum.total, sum.core, sum.busy = sum.app+iv.app, sum.total+iv.total, sum.core+iv.core, sum.busy+iv.busy
		out.Intervals++
		if iv.total > 0 {
			pct := iv.app / iv.total * 100
			out.Max = max(out.Max, pct)
			ticks = append(ticks, pct)
			out.DeviceMax = max(out.DeviceMax, iv.busy/iv.total*100)
		}
	}
	if !procStat {
		out.Source = "/proc/<pid>/stat over wall time on the device's /proc/uptime (/proc/stat unreadable)"
		if hostClock {
			out.Source = "/proc/<pid>/stat over wall time, on the host's clock where a tick had no /proc/uptime (/proc/stat unreadable)"
		}
	}
	if sum.total > 0 {
		out.Mean = sum.app / sum.total * 100
		out.ResolutionPct = 100 / sum.total
		out.DeviceMean = sum.busy / sum.total * 100
	}
	if sum.core > 0 {
		out.MeanPerCore = sum.app / sum.core * 100
	}
	out.P90 = frames.NearestRank(ticks, 90)
	if procStat {
		out.Threads = topThreads(r.Samples[a], r.Samples[b], r.Device.Cores)
	}
	return out
}

// cpuTicks are the clock ticks elapsed over a span: the app's, the whole
// device's (total), one core's, and the device's busy ones; hostClock says
// the span was timed on the host's clock.
type cpuTicks struct {
	app, total, core, busy float64
	hostClock              bool
}

// interval is the ticks elapsed between samples p and q, false when
// /proc/stat went backwards between them.
func interval(dev procfs.DeviceFacts, p, q result.Sample, procStat bool) (cpuTicks, bool) {
	var iv cpuTicks
	if procStat {
		t, bz, err := procfs.CPUDelta(*p.CPU, *q.CPU)
		if err != nil {
			return iv, false
		}
		online := q.OnlineCores
		if online <= 0 {
			online = dev.Cores
		}
		iv.total, iv.busy = float64(t), float64(bz)
		if online > 0 {
			iv.core = iv.total / float64(online)
		}
	} else {
		elapsed, onDevice := elapsedBetween(p.HostNs, q.HostNs, p.UptimeNs, q.UptimeNs)
		iv.hostClock = !onDevice
		iv.core = float64(dev.ClockTicks) * float64(elapsed) / 1e9
		iv.total = iv.core * float64(dev.Cores)
	}
	iv.app = float64(procfs.CPUAppTicksBetween(p.Procs, q.Procs, UptimeTicks(p, dev.ClockTicks)))
	return iv, true
}

// topThreads are the app's five busiest threads between samples a and b,
// against the cores online at b (else cores).
func topThreads(a, b result.Sample, cores int) []result.ThreadCPU {
	online := b.OnlineCores
	if online <= 0 {
		online = cores
	}
	if len(b.Threads) == 0 || online <= 0 {
		return nil
	}
	th, err := procfs.CPUTopThreads(*a.CPU, *b.CPU, a.Threads, b.Threads, online, 5)
	if err != nil {
		return nil
	}
	var out []result.ThreadCPU
	for _, t := range th {
		out = append(out, result.ThreadCPU{TID: t.TID, Name: t.Name, Pct: t.Percent, CorePct: t.CorePct})
	}
	return out
}

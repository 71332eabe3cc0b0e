package samples

import (
	"fmt"
	"time"

	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest/internal/readlog"
	"github.com/perfgate/perfgate/result"
)

// Absent gives the reasons for the step's CPU, memory, traffic, battery
// and crash figures without a value, the most specific known: a source
// unreadable, the app not running (notRunning says why), before what the
// figures show. They go to why and whyMetric, over what Summarise put
// there.
func (s *Source) Absent(st *result.Step, why map[metrics.Family]string, whyMetric map[metrics.Name]string, notRunning string) {
	s.cpuWhy(st, why, whyMetric, notRunning)
	s.memoryWhy(st, why, notRunning)
	if !s.cfg.Traffic {
		why[metrics.FamilyTraffic] = NotCollected("traffic")
	}
	if w := s.batteryWhyOf(st); w != "" {
		why[metrics.FamilyBattery] = w
	}
	if w := s.crashesWhy(st); w != "" {
		why[metrics.FamilyCrashes] = w
	}
	if why[metrics.FamilyAppCPU] != "" && why[metrics.FamilyDeviceCPU] != "" {
		why[metrics.FamilyCPUTicks] = why[metrics.FamilyAppCPU]
	}
}

func (s *Source) cpuWhy(st *result.Step, why map[metrics.Family]string, whyMetric map[metrics.Name]string, notRunning string) {
	if !s.cfg.CPU {
		why[metrics.FamilyAppCPU], why[metrics.FamilyDeviceCPU] = NotCollected("cpu"), NotCollected("cpu")
		return
	}
	start, end := st.HostStartNs, st.HostEndNs
	stat := readlog.Unreadable(srcStat, s.reads(srcStat, "cheap", start, end))
	procs := readlog.Unreadable(srcProcs, s.reads(srcProcs, "cheap", start, end))
	few := "cpu: fewer than two ticks around the step (" + span(st, s.cfg.Interval) + ")"
	switch {
	case !s.ranAround(start, end):
		why[metrics.FamilyAppCPU] = "cpu: " + notRunning
	case procs != "":
		why[metrics.FamilyAppCPU] = "cpu: " + procs
	case st.CPUStats.Intervals > 0:
	case s.found.CPU && stat != "":
		why[metrics.FamilyAppCPU] = "cpu: " + stat
	default:
		why[metrics.FamilyAppCPU] = few
	}
	switch {
	case !s.found.CPU:
		why[metrics.FamilyDeviceCPU] = fmt.Sprintf("cpu: device CPU needs /proc/stat, unreadable on this device (%s); app CPU is set against wall time × cores", s.statWhy)
		whyMetric[metrics.CPUP90] = "cpu: no per-tick percentile against wall time (/proc/stat unreadable)"
	case st.CPUStats.Intervals > 0:
	case stat != "":
		why[metrics.FamilyDeviceCPU] = "cpu: " + stat
	default:
		why[metrics.FamilyDeviceCPU] = few
	}
}

func (s *Source) memoryWhy(st *result.Step, why map[metrics.Family]string, notRunning string) {
	if !s.cfg.Memory {
		why[metrics.FamilyPSS], why[metrics.FamilyRSS] = NotCollected("memory"), NotCollected("memory")
		return
	}
	start, end := st.HostStartNs, st.HostEndNs
	running := s.RanDuring(start, end)
	// memory is the reason for a figure with no sample from src.
	memory := func(src, what, lane string, every time.Duration) string {
		failed := readlog.Unreadable(what, s.reads(src, lane, start, end))
		switch {
		case !running:
			return "memory: " + notRunning
		case failed != "":
			return "memory: " + failed
		}
		return "memory: no " + what + " read in the step (" + span(st, every) + ")"
	}
	if st.MemoryStats.PSSSamples == 0 {
		why[metrics.FamilyPSS] = memory(srcMeminfo, "dumpsys meminfo "+s.cfg.Package, "slow", s.cfg.SlowInterval)
	}
	if st.MemoryStats.RSSSamples == 0 {
		why[metrics.FamilyRSS] = memory(srcStatus, srcStatus, "cheap", s.cfg.Interval)
	}
}

// batteryWhyOf is why the step has no battery figures, "" when it has them.
func (s *Source) batteryWhyOf(st *result.Step) string {
	switch {
	case !s.cfg.Battery:
		return NotCollected("battery")
	case !s.found.Battery:
		return "battery: " + s.batteryWhy
	case st.BatteryStats == nil:
		rs := s.reads(srcBattery, "cheap", st.HostStartNs, st.HostEndNs)
		if w := readlog.Unreadable(batteryPath, rs); w != "" {
			return "battery: " + w
		}
		return "battery: fewer than two battery reads around the step (" + span(st, 10*s.cfg.Interval) + ")"
	}
	return ""
}

// crashesWhy is why nothing watched the app's processes in the step, ""
// when a tick did. Crashes are seen by comparing pids tick by tick: a
// step whose every tick failed watched nothing.
func (s *Source) crashesWhy(st *result.Step) string {
	start, end := st.HostStartNs, st.HostEndNs
	inside, after := false, false
	if i := s.FirstSample(start); i < len(s.env.Result.Samples) {
		inside = s.env.Result.Samples[i].HostNs <= end
		after = !inside
	}
	if inside {
		return ""
	}
	failed := readlog.Within(s.reads("", "cheap", start, end), end) // no source: the failed ticks alone
	switch {
	case len(failed) > 0:
		return fmt.Sprintf("crashes: every tick in the step failed (%d; last: %s): nothing watched the app's processes", len(failed), failed[len(failed)-1].Err)
	case !after:
		return "crashes: no tick after the step began: nothing watched the app's processes"
	}
	return ""
}

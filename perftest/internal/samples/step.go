package samples

import (
	"fmt"
	"sort"
	"time"

	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest/internal/readlog"
	"github.com/perfgate/perfgate/perftest/internal/stepstats"
	"github.com/perfgate/perfgate/result"
)

// Summarise sets the step's CPU, memory, traffic, battery and thermal
// figures, its crashes, failed ticks and tick statistics; why and
// whyMetric take the reasons found on the way, by family or by metric
// name.
func (s *Source) Summarise(st *result.Step, why map[metrics.Family]string, whyMetric map[metrics.Name]string) {
	r := s.env.Result
	if s.cfg.CPU {
		st.CPUStats = stepstats.CPU(r, st, s.found.CPU)
	}
	if s.cfg.Memory {
		st.MemoryStats = stepstats.Memory(r, st, s.cfg.Interval, s.cfg.SlowInterval)
	}
	if s.found.Traffic != "" {
		st.TrafficStats = s.trafficStats(st, why)
	}
	if s.found.Battery {
		var tempWhy string
		if st.BatteryStats, tempWhy = stepstats.Battery(r.Samples, st); tempWhy != "" {
			whyMetric[metrics.BatteryTempMax] = tempWhy
		}
	}
	if s.found.Thermal {
		st.ThermalStats = stepstats.Thermal(r.Samples, st)
	}
	for _, cr := range r.Crashes {
		if cr.Step == st.Name {
			st.Crashes = append(st.Crashes, cr)
		}
	}
	for _, g := range r.Gaps {
		if g.Step == st.Name {
			st.Gaps++
		}
	}
	st.Ticks = stepstats.Ticks(r.Samples, s.cfg.Interval, st.HostStartNs, st.HostEndNs)
}

// trafficStats is the step's traffic, or nil when it has no byte count:
// fewer than two reads around it, reads that failed at its edges (the
// count would reach outside it), or counters that went backwards. The
// reason goes to why.
func (s *Source) trafficStats(st *result.Step, why map[metrics.Family]string) *result.TrafficStats {
	r, mode := s.env.Result, s.found.Traffic
	a, b, ok := stepstats.Bracket(len(r.Traffic), func(i int) int64 { return r.Traffic[i].HostNs }, func(int) bool { return true }, st.HostStartNs, st.HostEndNs)
	reads := s.trafficReads(st.HostStartNs, st.HostEndNs)
	if !ok {
		switch {
		case mode == TrafficNetDev && !s.RanDuring(st.HostStartNs, st.HostEndNs):
			why[metrics.FamilyTraffic] = "traffic: " + mode + " needs the app's process; " + s.NotRunningWhy(st.HostStartNs, st.HostEndNs)
		case readlog.Unreadable(mode, reads) != "":
			why[metrics.FamilyTraffic] = "traffic: " + readlog.Unreadable(mode, reads)
		default:
			why[metrics.FamilyTraffic] = fmt.Sprintf("traffic: fewer than two reads of %s around the step", mode)
		}
		return nil
	}
	if w := readlog.Unreadable(mode, readlog.Within(reads, st.HostEndNs)); w != "" {
		why[metrics.FamilyTraffic] = "traffic: " + w
		return nil
	}
	ta, tb := r.Traffic[a], r.Traffic[b]
	// Normally the two reads lie within a tick of the step's edges. Where
	// reads failed between an edge and its read, the byte count would take
	// in traffic from outside the step, or miss some of it.
	failed, last := 0, ""
	for _, e := range [][2]int64{{ta.HostNs, st.HostStartNs}, {st.HostEndNs, tb.HostNs}} {
		lo, hi := min(e[0], e[1]), max(e[0], e[1])
		for _, x := range s.trafficReads(lo, hi) {
			if x.Err != "" && x.HostNs > lo && x.HostNs < hi {
				failed, last = failed+1, x.Err
			}
		}
	}
	if failed > 0 {
		why[metrics.FamilyTraffic] = fmt.Sprintf("traffic: %s unreadable at the step's edge (%d failed reads; last: %s): the nearest good reads would count bytes from outside the step or miss some of it", mode, failed, last)
		return nil
	}
	out, back := stepstats.Traffic(r.Traffic, a, b)
	if back != nil {
		s.env.Note("traffic: step %s: %v", st.Name, back.Err)
		why[metrics.FamilyTraffic] = back.Why(mode)
		return nil
	}
	out.Source, out.Unit, out.Scope = mode, "bytes", s.trafficScope()
	return out
}

// trafficReads are the traffic reads of [start, end] (readlog.Log.Window).
func (s *Source) trafficReads(start, end int64) []readlog.Read {
	lane := "cheap"
	if s.found.Traffic == TrafficNetstats {
		lane = "slow"
	}
	return s.reads(srcTraffic, lane, start, end)
}

func (s *Source) reads(src, lane string, start, end int64) []readlog.Read {
	return s.env.Log.Window(src, lane, s.env.Result.Gaps, start, end)
}

// RanDuring reports whether pidof found the app in a tick inside [start,
// end] or in the first tick after it.
func (s *Source) RanDuring(start, end int64) bool {
	ss := s.env.Result.Samples
	for i := s.FirstSample(start); i < len(ss); i++ {
		if len(ss[i].PIDs) > 0 {
			return true
		}
		if ss[i].HostNs > end {
			break
		}
	}
	return false
}

// NotRunningWhy says why the app counts as not running in [start, end]
// (RanDuring is false): pidof found no process, or no tick succeeded from
// the step's start on, so nothing looked for one. That is not the app
// stopping: a host or phone too busy to answer, or a phone that went away.
func (s *Source) NotRunningWhy(start, end int64) string {
	if s.FirstSample(start) < len(s.env.Result.Samples) {
		return fmt.Sprintf("the app was not running during the step (pidof %s found no process)", s.cfg.Package)
	}
	why := "no tick succeeded from the step's start on, so nothing looked for the app's process"
	if failed := readlog.Within(s.reads("", "cheap", start, end), end); len(failed) > 0 {
		why += fmt.Sprintf(" (%d failed in the step; last: %s)", len(failed), failed[len(failed)-1].Err)
	}
	return why
}

// FirstSample is the index of the first sample at or after host time ns.
func (s *Source) FirstSample(ns int64) int {
	ss := s.env.Result.Samples
	return sort.Search(len(ss), func(i int) bool { return ss[i].HostNs >= ns })
}

// ranAround reports whether pidof found the app in a tick of the step's
// CPU bracket: from the last tick at or before start to the first at or
// after end.
func (s *Source) ranAround(start, end int64) bool {
	r := s.env.Result
	a, b, ok := stepstats.Bracket(len(r.Samples), func(i int) int64 { return r.Samples[i].HostNs }, func(int) bool { return true }, start, end)
	if !ok {
		return s.RanDuring(start, end)
	}
	for i := a; i <= b; i++ {
		if len(r.Samples[i].PIDs) > 0 {
			return true
		}
	}
	return false
}

// span says how long the step lasted against the reads' period.
func span(st *result.Step, every time.Duration) string {
	return fmt.Sprintf("the step lasted %v; reads come every %v", time.Duration(st.HostEndNs-st.HostStartNs).Round(time.Millisecond), every)
}

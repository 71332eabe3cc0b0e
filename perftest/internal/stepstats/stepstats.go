// Package stepstats summarises a step from a Result's samples: CPU,
// memory, traffic, battery, thermal and tick statistics, each a pure
// function of the samples and the step's host-time window.
//
//	st.CPUStats = stepstats.CPU(r, st, procStat)
//	st.MemoryStats = stepstats.Memory(r, st, interval, slowInterval)
//	st.Ticks = stepstats.Ticks(r.Samples, interval, st.HostStartNs, st.HostEndNs)
//
// Why a figure is missing where the device could not be read is the
// session's to say: it keeps the reads; these functions see only what the
// reads gave.
package stepstats

import (
	"time"

	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/result"
)

// Bracket returns the indexes of the last sample at or before start and
// the first at or after end among those ok accepts, so the pair covers the
// whole step; where no sample lies outside an edge, the nearest one inside
// stands in. n is the number of samples, host(i) the host time of sample i.
func Bracket(n int, host func(int) int64, ok func(int) bool, start, end int64) (int, int, bool) {
	a, b := -1, -1
	for i := 0; i < n; i++ {
		if ok(i) && host(i) <= start {
			a = i
		}
	}
	if a < 0 {
		for i := 0; i < n; i++ {
			if ok(i) && host(i) < end {
				a = i
				break
			}
		}
	}
	for i := 0; i < n; i++ {
		if ok(i) && host(i) >= end {
			b = i
			break
		}
	}
	if b < 0 {
		for i := n - 1; i >= 0; i-- {
			if ok(i) && host(i) > start {
				b = i
				break
			}
		}
	}
	return a, b, a >= 0 && b > a
}

// elapsedBetween is the time between two reads: on the device's clock
// (/proc/uptime read next to them) where both reads have it, which onDevice
// reports, else between their hosts' stamps. A host stamp is off by up to
// half its round trip, which a busy host makes long; the device's clock is
// not.
func elapsedBetween(hostA, hostB, upA, upB int64) (d time.Duration, onDevice bool) {
	if upA > 0 && upB > upA {
		return time.Duration(upB - upA), true
	}
	return time.Duration(hostB - hostA), false
}

// Ticks describes the ticks whose samples fall in [start, end] (host ns);
// a tick's spacing is from the request of the tick before it, inside the
// window or not. A tick is late when it started over half the interval
// behind its schedule.
func Ticks(samples []result.Sample, interval time.Duration, start, end int64) result.TickStats {
	var ts result.TickStats
	var spacing []float64
	prev := int64(-1)
	for _, smp := range samples {
		sent := smp.HostNs - smp.RTTNs/2
		if smp.HostNs >= start && smp.HostNs <= end {
			ts.Ticks++
			if smp.LateNs > int64(interval)/2 {
				ts.Late++
			}
			ts.MaxLateMs = max(ts.MaxLateMs, float64(smp.LateNs)/1e6)
			ts.MaxRTTMs = max(ts.MaxRTTMs, float64(smp.RTTNs)/1e6)
			if prev >= 0 {
				spacing = append(spacing, float64(sent-prev)/1e6)
			}
		}
		prev = sent
	}
	for _, v := range spacing {
		ts.MaxSpacingMs = max(ts.MaxSpacingMs, v)
	}
	ts.P95SpacingMs = frames.NearestRank(spacing, 95)
	return ts
}

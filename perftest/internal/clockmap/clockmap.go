// Package clockmap maps a session's host time onto a device clock, from
// the round trips that read the device's clock.
package clockmap

import (
	"math"
	"sort"

	"github.com/perfgate/perfgate/result"
)

// Map maps host time to the device's monotonic clock.
//
// Each round trip that reads the device clock gives an interval for the
// offset (device − host): the read happened after the host sent the request
// and before it got the answer, and the device printed its clock truncated to
// its resolution. So offset ∈ [dev − recv, dev + res − send]. Intervals of
// all round trips must overlap when neither clock drifts; their intersection
// is the tightest bound, and its midpoint the estimate. Where they do not
// overlap (drift, a clock step) the narrowest interval alone is used, which is
// the "midpoint of the smallest round trip" estimate.
type Map struct {
	source string
	// best holds the narrowest intervals seen, narrowest first.
	best    []offsetInterval
	samples int
	lo, hi  int64 // running intersection
	overlap bool
}

type offsetInterval struct {
	lo, hi int64
	rtt    int64
}

const clockKeep = 16

// Observe adds one round trip: the host sent at sendNs and received at
// recvNs (host ns since session start); the device said devNs with the given
// resolution.
func (c *Map) Observe(source string, sendNs, recvNs, devNs, resNs int64) {
	if recvNs < sendNs {
		return
	}
	// Mixing clocks would break the intersection: /proc/uptime counts
	// suspend time since boot, the gfxinfo Uptime line does not.
	if c.source == "" {
		c.source = source
	} else if c.source != source {
		return
	}
	iv := offsetInterval{lo: devNs - recvNs, hi: devNs + resNs - sendNs, rtt: recvNs - sendNs}
	if c.samples == 0 {
		c.lo, c.hi, c.overlap = iv.lo, iv.hi, true
	} else if c.overlap {
		lo, hi := max(c.lo, iv.lo), min(c.hi, iv.hi)
		if lo <= hi {
			c.lo, c.hi = lo, hi
		} else {
			c.overlap = false
		}
	}
	c.samples++
	i := sort.Search(len(c.best), func(i int) bool { return c.best[i].hi-c.best[i].lo > iv.hi-iv.lo })
	c.best = append(c.best, offsetInterval{})
	copy(c.best[i+1:], c.best[i:])
	c.best[i] = iv
	if len(c.best) > clockKeep {
		c.best = c.best[:clockKeep]
	}
}

// OK reports whether the map has any observation.
func (c *Map) OK() bool { return c.samples > 0 }

// Interval returns the offset bounds the map currently trusts.
func (c *Map) Interval() (lo, hi int64) {
	if c.samples == 0 {
		return 0, 0
	}
	if c.overlap {
		return c.lo, c.hi
	}
	return c.best[0].lo, c.best[0].hi
}

// Offset is the estimated device − host offset in ns.
func (c *Map) Offset() int64 {
	lo, hi := c.Interval()
	return lo + (hi-lo)/2
}

// ToDevice maps a host time (ns since session start) to device ns.
func (c *Map) ToDevice(hostNs int64) int64 { return hostNs + c.Offset() }

// Sync describes the mapping for the Result.
func (c *Map) Sync() result.ClockSync {
	if c.samples == 0 {
		return result.ClockSync{Source: "none", UncertaintyMs: math.MaxFloat32}
	}
	lo, hi := c.Interval()
	return result.ClockSync{
		Source:        c.source,
		OffsetNs:      c.Offset(),
		UncertaintyMs: float64(hi-lo) / 2 / 1e6,
		BestRTTMs:     float64(c.minRTT()) / 1e6,
		Samples:       c.samples,
	}
}

func (c *Map) minRTT() int64 {
	m := int64(math.MaxInt64)
	for _, b := range c.best {
		m = min(m, b.rtt)
	}
	return m
}

// Source names the clock the map was fed from, "" before its first
// observation.
func (c *Map) Source() string { return c.source }

// Latest is the latest device time host time hostNs may map to; ok is
// false while the map has no observation.
func (c *Map) Latest(hostNs int64) (int64, bool) {
	if !c.OK() {
		return 0, false
	}
	_, hi := c.Interval()
	return hostNs + hi, true
}

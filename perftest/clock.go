package perftest

import (
	"math"
	"sort"

	"github.com/perfgate/perfgate/result"
)

// clockMap maps host time to the device's monotonic clock.
//
// Each round trip that reads the device clock gives an interval for the
// offset (device − host): the read happened after the host sent the request
// and before it got the answer, and the device printed its clock truncated to
// its resolution. So offset ∈ [dev − recv, dev + res − send]. Intervals of
// all round trips must overlap when neither clock drifts; their intersection
// is the tightest bound, and its midpoint the estimate. Where they do not
// overlap (drift, a clock step) the narrowest interval alone is used, which is
// the "midpoint of the smallest round trip" estimate.
type clockMap struct {
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

// observe adds one round trip: the host sent at sendNs and received at
// recvNs (host ns since session start); the device said devNs with the given
// resolution.
func (c *clockMap) observe(source string, sendNs, recvNs, devNs, resNs int64) {
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

// ok reports whether the map has any observation.
func (c *clockMap) ok() bool { return c.samples > 0 }

// interval returns the offset bounds the map currently trusts.
func (c *clockMap) interval() (lo, hi int64) {
	if c.samples == 0 {
		return 0, 0
	}
	if c.overlap {
		return c.lo, c.hi
	}
	return c.best[0].lo, c.best[0].hi
}

// offset is the estimated device − host offset in ns.
func (c *clockMap) offset() int64 {
	lo, hi := c.interval()
	return lo + (hi-lo)/2
}

// toDevice maps a host time (ns since session start) to device ns.
func (c *clockMap) toDevice(hostNs int64) int64 { return hostNs + c.offset() }

// sync describes the mapping for the Result.
func (c *clockMap) sync() result.ClockSync {
	if c.samples == 0 {
		return result.ClockSync{Source: "none", UncertaintyMs: math.MaxFloat32}
	}
	lo, hi := c.interval()
	return result.ClockSync{
		Source:        c.source,
		OffsetNs:      c.offset(),
		UncertaintyMs: float64(hi-lo) / 2 / 1e6,
		BestRTTMs:     float64(c.minRTT()) / 1e6,
		Samples:       c.samples,
	}
}

func (c *clockMap) minRTT() int64 {
	m := int64(math.MaxInt64)
	for _, b := range c.best {
		m = min(m, b.rtt)
	}
	return m
}

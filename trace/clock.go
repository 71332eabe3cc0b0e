package trace

// stamp is a time on one clock, as a packet or event gave it.
type stamp struct {
	clock Clock
	ns    int64
}

// clockTable converts between the builtin clocks with the trace's
// ClockSnapshots: a time on clock A becomes clock B by the offset B − A of
// the latest snapshot, holding both, taken at or before it on A (the first
// snapshot for a time before them all), as trace_processor does.
type clockTable struct {
	snaps []map[Clock]int64
}

func (c *clockTable) add(s map[Clock]int64) { c.snaps = append(c.snaps, s) }

// convert returns ns (on from) on to; false when no snapshot holds both.
func (c *clockTable) convert(ns int64, from, to Clock) (int64, bool) {
	if from == to {
		return ns, true
	}
	var le, first map[Clock]int64
	var leAt, firstAt int64
	for _, s := range c.snaps {
		a, okA := s[from]
		_, okB := s[to]
		if !okA || !okB {
			continue
		}
		if a <= ns && (le == nil || a >= leAt) {
			le, leAt = s, a
		}
		if first == nil || a < firstAt {
			first, firstAt = s, a
		}
	}
	best := le
	if best == nil {
		best = first
	}
	if best == nil {
		return 0, false
	}
	return ns - best[from] + best[to], true
}

// has tells whether any snapshot holds both clocks.
func (c *clockTable) has(a, b Clock) bool {
	_, ok := c.convert(0, a, b)
	return ok
}

// seqClock is a clock a packet sequence defines for itself (ids 64–127),
// usually incremental: each packet's timestamp is a delta on the last.
type seqClock struct {
	incremental bool
	unit        int64 // ns per unit
	last        int64 // the last value, in units
	snapValue   int64 // the value in the snapshot that defined it, in units
	ref         stamp // the builtin clock's value in that snapshot
}

// resolve turns a timestamp on the clock into a builtin-clock stamp.
func (s *seqClock) resolve(ts uint64) stamp {
	v := int64(ts)
	if s.incremental {
		v = s.last + int64(ts)
		s.last = v
	}
	return stamp{clock: s.ref.clock, ns: s.ref.ns + (v-s.snapValue)*s.unit}
}

package clockmap

import (
	"testing"
	"time"
)

func TestClockMapIntersection(t *testing.T) {
	ms := int64(time.Millisecond)
	for _, tc := range []struct {
		name    string
		obs     [][3]int64 // send, recv, device (res 1 ms); true offset 1000 ms
		wantLo  int64
		wantHi  int64
		wantSrc string
	}{
		{
			name:   "one round trip",
			obs:    [][3]int64{{0, 4 * ms, 1002 * ms}},
			wantLo: 998 * ms, wantHi: 1003 * ms,
		},
		{
			name: "two overlap",
			obs:  [][3]int64{{0, 4 * ms, 1002 * ms}, {100 * ms, 102 * ms, 1101 * ms}},
			// [998,1003] ∩ [999,1002]
			wantLo: 999 * ms, wantHi: 1002 * ms,
		},
		{
			name: "disjoint falls back to the narrowest",
			obs:  [][3]int64{{0, 4 * ms, 1002 * ms}, {100 * ms, 101 * ms, 1200 * ms}},
			// second: [1099, 1101], narrower than the first (5 ms)
			wantLo: 1099 * ms, wantHi: 1101 * ms,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c Map
			for _, o := range tc.obs {
				c.Observe("test", o[0], o[1], o[2], ms)
			}
			lo, hi := c.Interval()
			if lo != tc.wantLo || hi != tc.wantHi {
				t.Errorf("interval [%d, %d] ms, want [%d, %d] ms", lo/ms, hi/ms, tc.wantLo/ms, tc.wantHi/ms)
			}
			if got, want := c.Offset(), tc.wantLo+(tc.wantHi-tc.wantLo)/2; got != want {
				t.Errorf("offset %d, want %d", got, want)
			}
		})
	}
}

func TestClockMapIgnoresOtherSource(t *testing.T) {
	var c Map
	ms := int64(time.Millisecond)
	c.Observe("gfxinfo Uptime", 0, 2*ms, 500*ms, ms)
	c.Observe("/proc/uptime", 0, 2*ms, 90000*ms, 10*ms)
	if c.samples != 1 || c.Offset() > 500*ms {
		t.Errorf("second source mixed in: samples %d offset %d", c.samples, c.Offset())
	}
}

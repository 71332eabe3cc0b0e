package surfaceflinger

import (
	"maps"
	"math"
	"testing"

	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/internal/fixtures"
)

func TestSurfaceFlingerRowReject(t *testing.T) {
	tests := []struct {
		name         string
		f            LatencyFrame
		prev, clock  int64
		want         gfxinfo.Reject
		wantNoClockB gfxinfo.Reject
	}{
		{"a frame", LatencyFrame{1, 100, 90}, 50, 1000, "", ""},
		{"Honor 9: A and C INT64_MAX", LatencyFrame{math.MaxInt64, 100, math.MaxInt64}, 50, 1000, "", ""},
		{"empty slot", LatencyFrame{}, 50, 1000, gfxinfo.RejectEmpty, gfxinfo.RejectEmpty},
		{"pending fence", LatencyFrame{1, math.MaxInt64, 90}, 50, 1000, gfxinfo.RejectPendingFence, gfxinfo.RejectPendingFence},
		{"negative", LatencyFrame{1, -2, 90}, 50, 1000, gfxinfo.RejectSentinel, gfxinfo.RejectSentinel},
		{"backwards", LatencyFrame{1, 40, 30}, 50, 1000, gfxinfo.RejectBackwards, gfxinfo.RejectBackwards},
		{"same present", LatencyFrame{1, 50, 30}, 50, 1000, gfxinfo.RejectBackwards, gfxinfo.RejectBackwards},
		{"beyond the clock", LatencyFrame{1, 1000 + int64(gfxinfo.ClockSlack) + 1, 30}, 50, 1000, gfxinfo.RejectBeyondClock, ""},
	}
	for _, tc := range tests {
		if got := RowReject(tc.f, tc.prev, tc.clock); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		if got := RowReject(tc.f, tc.prev, 0); got != tc.wantNoClockB {
			t.Errorf("%s without a clock: %q, want %q", tc.name, got, tc.wantNoClockB)
		}
	}
}

func TestSurfaceFlingerLatencyRejects(t *testing.T) {
	l, err := ParseLatency([]byte("16666667\n0\t0\t0\n1\t100\t90\n2\t90\t95\n3\t9223372036854775807\t99\n4\t120\t110\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := gfxinfo.Rejects{gfxinfo.RejectEmpty: 1, gfxinfo.RejectBackwards: 1, gfxinfo.RejectPendingFence: 1}
	if len(l.Rows) != 5 || len(l.Frames) != 2 || !maps.Equal(l.Rejected, want) || l.Dropped != 3 {
		t.Errorf("rows %d frames %v rejected %v dropped %d", len(l.Rows), l.Frames, l.Rejected, l.Dropped)
	}
	zeros, err := ParseLatency(fixtures.Read(t, "sf_latency/mobileperf_pixel2_android8_zeros_excerpt.txt"))
	if err != nil || !maps.Equal(zeros.Rejected, gfxinfo.Rejects{gfxinfo.RejectEmpty: 4}) {
		t.Errorf("zeros: %v %v", zeros.Rejected, err)
	}
}

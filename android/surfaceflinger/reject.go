package surfaceflinger

import (
	"github.com/perfgate/perfgate/android/gfxinfo"
	"math"
)

// frameInt64Max is the sentinel the platform prints for "no value" (a pending
// fence in SurfaceFlinger, a frame without a vsync id in hwui).
const frameInt64Max = math.MaxInt64

// SurfaceFlingerRowReject applies the rule to one --latency row: B = 0 is an
// empty slot, B = INT64_MAX a pending fence, another B ≤ 0 a sentinel, a B
// not after prevB (the previous frame's, 0 for none) goes backwards, and
// with clockNs > 0 (the device clock read with the output) a B later than
// clockNs + FrameClockSlack is beyond the clock. A and C do not decide: phones
// print INT64_MAX there (Android 8 Honor 9 capture) for frames B shows.
func RowReject(f LatencyFrame, prevB, clockNs int64) gfxinfo.Reject {
	b := f.ActualPresent
	switch {
	case b == 0:
		return gfxinfo.RejectEmpty
	case b == frameInt64Max:
		return gfxinfo.RejectPendingFence
	case b < 0:
		return gfxinfo.RejectSentinel
	case clockNs > 0 && b > clockNs+int64(gfxinfo.ClockSlack):
		return gfxinfo.RejectBeyondClock
	case b <= prevB:
		return gfxinfo.RejectBackwards
	}
	return ""
}

package framesrc

import (
	"testing"

	"github.com/perfgate/perfgate/frames"
)

// TestAutoSource: the frame source chosen where none was given. The
// SurfaceFlinger dump is read a round trip after the gfxinfo one; a host
// stalled between them (seen with two suites at once on a 2-core machine)
// used to hand the layer a second of frames gfxinfo could not yet show and
// pick SurfaceFlinger for an app drawing in its own window.
func TestAutoSource(t *testing.T) {
	const ms = int64(1e6)
	// every is the times of frames every 16 ms in [from, to] ms.
	every := func(from, to int64) []int64 {
		var out []int64
		for v := from; v <= to; v += 16 {
			out = append(out, v*ms)
		}
		return out
	}
	for _, tc := range []struct {
		name       string
		gfx, sf    []int64
		clockMs    int64
		want       string
		wantGfx    int
		wantLayers int
	}{
		// UI frames to 10 000 ms, the dump at 10 010 ms; the layer's
		// presents read 1.2 s later.
		{"stall between the dumps", every(5000, 10000), every(5030, 11230), 10010, frames.SourceGfxInfo, 31, 32},
		// A SurfaceView app: its window drew at launch only.
		{"surface view", every(5000, 6000), every(5030, 10030), 10040, frames.SourceSurfaceFlinger, 0, 32},
		// Both idle since 8 000 ms: the half second before the last frame.
		{"idle app", every(5000, 8000), every(5030, 8030), 10000, frames.SourceGfxInfo, 30, 32},
		// No Uptime line in the gfxinfo dump: the newest frame of either.
		{"no dump clock", every(5000, 10000), every(5030, 10030), 0, frames.SourceGfxInfo, 30, 32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kind, gfxN, sfN := autoSource(tc.gfx, tc.sf, tc.clockMs*ms)
			if kind != tc.want || gfxN != tc.wantGfx || sfN != tc.wantLayers {
				t.Errorf("source %s (gfxinfo %d, layer %d), want %s (%d, %d)", kind, gfxN, sfN, tc.want, tc.wantGfx, tc.wantLayers)
			}
		})
	}
}

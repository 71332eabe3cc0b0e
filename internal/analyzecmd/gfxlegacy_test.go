package analyzecmd

import (
	"math"
	"testing"

	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/metrics"
)

// Whatever gfxinfo text legacyOf is given, a figure it gives is a number
// (no NaN, no negative time or count) and a metric is either measured or
// not measured with a reason, never both.
func FuzzLegacy(f *testing.F) {
	f.Add([]byte("    Draw\tProcess\tExecute\n    0.95\t0.93\t0.72\n    1.32\t2.15\t1.14\n"))
	f.Add([]byte("Profile data in ms:\n\n\tcom.a/com.a.A/android.view.ViewRootImpl@1 (visibility=0)\n\tDraw\tPrepare\tProcess\tExecute\n\t50.00\t0.5\t1\t2\n"))
	f.Add([]byte("** Graphics info for pid 1 [com.a] **\n\nStats since: 1ns\nTotal frames rendered: 43\nJanky frames: 7 (16.28%)\n90th percentile: 69ms\n"))
	f.Add([]byte("Total frames rendered: -1\n50th percentile: 1e400ms\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := gfxinfo.Parse(b)
		if err != nil {
			return
		}
		out, ok := legacyOf(g, "f", "")
		if !ok {
			return
		}
		for n, v := range out.Metrics {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				t.Errorf("%s = %v", n, v)
			}
			if out.NotMeasured[n] != "" {
				t.Errorf("%s both measured (%v) and not (%q)", n, v, out.NotMeasured[n])
			}
		}
		if _, ok := out.Metrics[metrics.Frames]; !ok {
			t.Errorf("no frame count: %+v", out)
		}
	})
}

package frames

import (
	"math"
	"testing"

	"github.com/perfgate/perfgate/android/surfaceflinger"
	"github.com/perfgate/perfgate/internal/fixtures"
)

func FuzzParseSurfaceFlingerLatency(f *testing.F) {
	for _, name := range []string{
		"sf_latency/mobileperf_honor9_android8_int64max_excerpt.txt",
		"sf_latency/solox249_blast_surfaceview_real_timestamps_excerpt.txt",
		"sf_latency/solox249_nonblast_surfaceview_zeros_excerpt.txt",
		"sf_latency/tecno_camon20_5g_refresh_period_only_utf16le.txt",
	} {
		f.Add(fixtures.Read(f, name))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		l, err := surfaceflinger.ParseLatency(in)
		if err != nil {
			return
		}
		for _, fr := range l.Frames {
			if fr.ActualPresent == 0 || fr.ActualPresent == math.MaxInt64 {
				t.Fatalf("kept a dropped row %+v", fr)
			}
		}
		kept, _ := DedupSurfaceFlinger(0, l.Frames)
		s := SummarizeSurfaceFlinger(surfaceflinger.PresentTimes(kept), l.RefreshPeriod)
		if math.IsNaN(s.FPS) || math.IsNaN(s.PerfDog.Stutter) || math.IsNaN(s.RefreshPeriodMS) {
			t.Fatalf("NaN in %+v", s)
		}
	})
}

package result

import (
	"github.com/perfgate/perfgate/frames"
)

// Summarise sets the figures from the launches in Iterations: time to
// initial display and to full display, each the nearest-rank median of
// the launches (DESIGN.md percentiles), full display only when every
// launch reported it.
func (st *StartupStats) Summarise() {
	var total, full []float64
	for _, it := range st.Iterations {
		total = append(total, float64(it.TotalTimeMs))
		if it.FullyDrawnMs > 0 {
			full = append(full, float64(it.FullyDrawnMs))
		}
	}
	st.InitialDisplayMs = frames.NearestRank(total, 50)
	st.FullDisplayMs = 0
	if len(full) == len(st.Iterations) {
		st.FullDisplayMs = frames.NearestRank(full, 50)
	}
}

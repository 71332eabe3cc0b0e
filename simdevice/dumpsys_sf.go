package simdevice

import (
	"io"
	"strings"

	"github.com/perfgate/perfgate/simdevice/internal/format"
)

// sfLayersLocked lists SurfaceFlinger's layers; the app's are there while
// it has a window.
func (w *World) sfLayersLocked() []string {
	return format.Layers(w.cfg.API, w.wl.component(), w.wl.shortComponent(), w.app != nil && w.fg != fgNone)
}

// latencySlotsLocked is what `--latency layer` prints of each slot of the
// layer's frame tracker: the app layer's frames as FrameQuirks make it
// print them (every slot 0 0 0, or none at all), the empty slots of the
// non-BLAST SurfaceView layer, and nothing for a layer SurfaceFlinger does
// not track.
func (w *World) latencySlotsLocked(layer string) [][3]int64 {
	if w.app == nil {
		return nil
	}
	empty := make([][3]int64, sfRingFrames)
	switch {
	case layer == w.appLayer() && w.wl.FrameQuirks.SFRows == "period_only":
		return nil
	case layer == w.appLayer() && w.wl.FrameQuirks.SFRows == "zeros":
		return empty
	case layer == w.appLayer():
		// Slots not yet written print as zeros, oldest first, as
		// FrameTracker dumps its whole ring.
		ring := ringTail(w.sf, sfRingFrames)
		slots := empty[:sfRingFrames-len(ring)]
		for _, f := range ring {
			a, b, c := w.sfRow(f)
			slots = append(slots, [3]int64{a, b, c})
		}
		return slots
	case w.cfg.API >= 31 && layer == format.SurfaceViewLayer(w.wl.component()):
		return empty
	}
	return nil
}

// dumpsysSurfaceFlinger is `dumpsys SurfaceFlinger [--list | --latency
// [layer] | --latency-clear [layer]]`.
func (w *World) dumpsysSurfaceFlinger(args []string, stdout io.Writer) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	switch {
	case len(args) > 0 && args[0] == "--list":
		var b strings.Builder
		for _, l := range w.sfLayersLocked() {
			b.WriteString(l)
			b.WriteByte('\n')
		}
		io.WriteString(stdout, b.String())
	case len(args) > 0 && args[0] == "--latency":
		// An unknown layer (or none) gets only the period line, as on
		// Android 11+.
		var slots [][3]int64
		if len(args) > 1 {
			slots = w.latencySlotsLocked(strings.Join(args[1:], " "))
		}
		format.WriteLatency(stdout, w.period, slots)
	case len(args) > 0 && args[0] == "--latency-clear":
		if len(args) < 2 || strings.Join(args[1:], " ") == w.appLayer() {
			w.sf = w.sf[:0]
		}
	default:
		format.WriteSurfaceFlinger(stdout, w.period, len(w.sfLayersLocked()))
	}
	return 0
}

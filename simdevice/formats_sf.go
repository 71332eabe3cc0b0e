package simdevice

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// sfLayers lists SurfaceFlinger's layers in the style of the API's era:
// Android 9/11 names with #0, Android 13/14 names with layer ids and the
// app's SurfaceView and BLAST layers (tecno_camon20 and solox249 captures).
func (w *World) sfLayersLocked() []string {
	comp := w.wl.component()
	short := w.wl.shortComponent()
	running := w.app != nil && w.fg != fgNone
	var l []string
	switch {
	case w.cfg.API >= 31:
		l = []string{`Display 0 name="Built-in Screen"#3`, "WindowedMagnification:0:31#4", "HideDisplayCutout:0:14#5",
			"OneHanded:0:14#6", "FullscreenMagnification:0:12#7", "Leaf:0:1#8",
			"WallpaperWindowToken{62ddc11 token=android.os.Binder@bdc1438}#72",
			"a8290d7 com.android.systemui.wallpapers.ImageWallpaper#74", "DefaultTaskDisplayArea#9", "Task=1#46"}
		if running {
			l = append(l, "Task=191#20376",
				fmt.Sprintf("ActivityRecord{5706436 u0 %s t191}#20377", short),
				fmt.Sprintf("bc036f6 %s#20384", comp),
				"Background for SurfaceView["+comp+"]#0",
				"SurfaceView["+comp+"]#0",
				w.appLayer(),
				"Bounds for - "+comp+"#0")
		}
		l = append(l, "StatusBar#87", "NavigationBar0#92", "ScreenDecorOverlay#95", "ScreenDecorOverlayBottom#97")
	case w.cfg.API >= 30:
		l = []string{"Display Root#0", "Display Overlays#0", "WindowedMagnification:0:31#0", "DefaultTaskDisplayArea#0",
			"com.android.systemui.ImageWallpaper#0"}
		if running {
			l = append(l, "Task=12#0", fmt.Sprintf("ActivityRecord{5706436 u0 %s t12}#0", short), w.appLayer())
		}
		l = append(l, "StatusBar#0", "NavigationBar0#0", "ScreenDecorOverlay#0", "ScreenDecorOverlayBottom#0")
	default:
		l = []string{"Display Root#0", "Display Overlays#0", "mAboveAppWindowsContainers#0", "com.android.server.wm.DisplayContent$TaskStackContainers@c3e4f51#0",
			"com.android.systemui.ImageWallpaper#0"}
		if running {
			l = append(l, "Task=12#0", "AppWindowToken{5706436 token=Token{3a4b9d1 ActivityRecord{8f1e3c8 u0 "+short+" t12}}}#0", w.appLayer())
		}
		l = append(l, "StatusBar#0", "NavigationBar#0", "ScreenDecorOverlay#0", "ScreenDecorOverlayBottom#0")
	}
	return l
}

// dumpsysSurfaceFlinger is `dumpsys SurfaceFlinger [--list | --latency
// [layer] | --latency-clear [layer]]`.
func (w *World) dumpsysSurfaceFlinger(args []string, stdout io.Writer) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	var b strings.Builder
	switch {
	case len(args) > 0 && args[0] == "--list":
		for _, l := range w.sfLayersLocked() {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	case len(args) > 0 && args[0] == "--latency":
		// The first line is the refresh period; an unknown layer (or none)
		// gets only that line, as on Android 11+.
		fmt.Fprintf(&b, "%d\n", w.period)
		if len(args) < 2 {
			break
		}
		layer := strings.Join(args[1:], " ")
		switch {
		case layer == w.appLayer() && w.app != nil && w.wl.FrameQuirks.SFRows == "period_only":
		case layer == w.appLayer() && w.app != nil && w.wl.FrameQuirks.SFRows == "zeros":
			for range sfRingFrames {
				b.WriteString("0\t0\t0\n")
			}
		case layer == w.appLayer() && w.app != nil:
			// Slots not yet written print as zeros, oldest first, as
			// FrameTracker dumps its whole ring.
			ring := ringTail(w.sf, sfRingFrames)
			for i := len(ring); i < sfRingFrames; i++ {
				b.WriteString("0\t0\t0\n")
			}
			var buf [64]byte
			for _, f := range ring {
				a, bb, c := w.sfRow(f)
				out := strconv.AppendInt(buf[:0], a, 10)
				out = append(out, '\t')
				out = strconv.AppendInt(out, bb, 10)
				out = append(out, '\t')
				out = strconv.AppendInt(out, c, 10)
				out = append(out, '\n')
				b.Write(out)
			}
		case w.cfg.API >= 31 && layer == "SurfaceView["+w.wl.component()+"]#0" && w.app != nil:
			// The non-BLAST SurfaceView layer has no buffers of its own.
			for range sfRingFrames {
				b.WriteString("0\t0\t0\n")
			}
		}
	case len(args) > 0 && args[0] == "--latency-clear":
		if len(args) < 2 || strings.Join(args[1:], " ") == w.appLayer() {
			w.sf = w.sf[:0]
		}
	default:
		fmt.Fprintf(&b, "Build configuration: [sf PRESENT_TIME_OFFSET=0 FORCE_HWC_FOR_RBG_TO_YUV=1 MAX_VIRT_DISPLAY_DIM=0 RUNNING_WITHOUT_SYNC_FRAMEWORK=0 NUM_FRAMEBUFFER_SURFACE_BUFFERS=3]\n\n")
		fmt.Fprintf(&b, "Display 4619827535830457088 (active) HWC layers:\n")
		fmt.Fprintf(&b, "refresh-rate              : %.6f fps\n", 1e9/float64(w.period))
		fmt.Fprintf(&b, "Total missed frame count: 0\nHWC missed frame count: 0\nGPU missed frame count: 0\n")
		fmt.Fprintf(&b, "Visible layers (count = %d)\n", len(w.sfLayersLocked()))
	}
	io.WriteString(stdout, b.String())
	return 0
}

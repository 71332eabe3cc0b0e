package format

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// AppLayer is the SurfaceFlinger layer that carries the frames of an
// app's activity component ("pkg/pkg.Main"): the window's own layer up to
// API 30, the BLAST SurfaceView layer from API 31 as real Android 12+
// phones list it.
func AppLayer(api int, component string) string {
	if api >= 31 {
		return "SurfaceView[" + component + "](BLAST)#0"
	}
	return component + "#0"
}

// SurfaceViewLayer is the non-BLAST SurfaceView layer API 31+ lists beside
// the app's BLAST layer; it has no buffers of its own.
func SurfaceViewLayer(component string) string { return "SurfaceView[" + component + "]#0" }

// Layers lists SurfaceFlinger's layers (`dumpsys SurfaceFlinger --list`)
// in the style of the API's era: Android 9/11 names with #0, Android 13/14
// names with layer ids and the app's SurfaceView and BLAST layers
// (tecno_camon20 and solox249 captures). The app's layers are listed while
// it has a window (shown is true); short is its component's short form
// ("pkg/.Main").
func Layers(api int, component, short string, shown bool) []string {
	var l []string
	switch {
	case api >= 31:
		l = []string{`Display 0 name="Built-in Screen"#3`, "WindowedMagnification:0:31#4", "HideDisplayCutout:0:14#5",
			"OneHanded:0:14#6", "FullscreenMagnification:0:12#7", "Leaf:0:1#8",
			"WallpaperWindowToken{62ddc11 token=android.os.Binder@bdc1438}#72",
			"a8290d7 com.android.systemui.wallpapers.ImageWallpaper#74", "DefaultTaskDisplayArea#9", "Task=1#46"}
		if shown {
			l = append(l, "Task=191#20376",
				ActivityRecord("5706436", short, 191)+"#20377",
				fmt.Sprintf("bc036f6 %s#20384", component),
				"Background for SurfaceView["+component+"]#0",
				SurfaceViewLayer(component),
				AppLayer(api, component),
				"Bounds for - "+component+"#0")
		}
		l = append(l, "StatusBar#87", "NavigationBar0#92", "ScreenDecorOverlay#95", "ScreenDecorOverlayBottom#97")
	case api >= 30:
		l = []string{"Display Root#0", "Display Overlays#0", "WindowedMagnification:0:31#0", "DefaultTaskDisplayArea#0",
			"com.android.systemui.ImageWallpaper#0"}
		if shown {
			l = append(l, "Task=12#0", ActivityRecord("5706436", short, 12)+"#0", AppLayer(api, component))
		}
		l = append(l, "StatusBar#0", "NavigationBar0#0", "ScreenDecorOverlay#0", "ScreenDecorOverlayBottom#0")
	default:
		l = []string{"Display Root#0", "Display Overlays#0", "mAboveAppWindowsContainers#0", "com.android.server.wm.DisplayContent$TaskStackContainers@c3e4f51#0",
			"com.android.systemui.ImageWallpaper#0"}
		if shown {
			l = append(l, "Task=12#0", "AppWindowToken{5706436 token=Token{3a4b9d1 "+ActivityRecord("8f1e3c8", short, 12)+"}}#0", AppLayer(api, component))
		}
		l = append(l, "StatusBar#0", "NavigationBar#0", "ScreenDecorOverlay#0", "ScreenDecorOverlayBottom#0")
	}
	return l
}

// WriteLatency writes `dumpsys SurfaceFlinger --latency <layer>`: the
// refresh period in ns, then one line per slot of the layer's frame
// tracker, each desired-present, actual-present and frame-ready time
// (A B C), oldest first; a slot never written is 0 0 0.
func WriteLatency(w io.Writer, period int64, slots [][3]int64) {
	var b strings.Builder
	fmt.Fprintf(&b, "%d\n", period)
	var buf [64]byte
	for _, s := range slots {
		out := strconv.AppendInt(buf[:0], s[0], 10)
		out = append(out, '\t')
		out = strconv.AppendInt(out, s[1], 10)
		out = append(out, '\t')
		out = strconv.AppendInt(out, s[2], 10)
		out = append(out, '\n')
		b.Write(out)
	}
	io.WriteString(w, b.String())
}

// WriteSurfaceFlinger writes the start of a bare `dumpsys SurfaceFlinger`:
// the build configuration, the display's refresh rate and how many layers
// are visible.
func WriteSurfaceFlinger(w io.Writer, period int64, layers int) {
	var b strings.Builder
	fmt.Fprintf(&b, "Build configuration: [sf PRESENT_TIME_OFFSET=0 FORCE_HWC_FOR_RBG_TO_YUV=1 MAX_VIRT_DISPLAY_DIM=0 RUNNING_WITHOUT_SYNC_FRAMEWORK=0 NUM_FRAMEBUFFER_SURFACE_BUFFERS=3]\n\n")
	fmt.Fprintf(&b, "Display 4619827535830457088 (active) HWC layers:\n")
	fmt.Fprintf(&b, "refresh-rate              : %.6f fps\n", 1e9/float64(period))
	fmt.Fprintf(&b, "Total missed frame count: 0\nHWC missed frame count: 0\nGPU missed frame count: 0\n")
	fmt.Fprintf(&b, "Visible layers (count = %d)\n", layers)
	io.WriteString(w, b.String())
}

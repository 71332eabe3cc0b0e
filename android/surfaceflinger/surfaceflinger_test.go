package surfaceflinger

import (
	"errors"
	"math"
	"testing"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/internal/fixtures"
)

func TestParseSurfaceFlingerLatency(t *testing.T) {
	tests := []struct {
		file      string
		period    int64
		frames    int
		dropped   int
		truncated bool
		first     LatencyFrame
		last      LatencyFrame
	}{
		{"sf_latency/mobileperf_honor9_android8_int64max_excerpt.txt", 16666666, 3, 0, false,
			LatencyFrame{math.MaxInt64, 3618832932780, math.MaxInt64},
			LatencyFrame{math.MaxInt64, 3618866251530, math.MaxInt64}},
		{"sf_latency/mobileperf_pixel2_android8_zeros_excerpt.txt", 16666666, 0, 4, false, LatencyFrame{}, LatencyFrame{}},
		{"sf_latency/solox249_blast_surfaceview_real_timestamps_excerpt.txt", 16666667, 25, 0, true,
			LatencyFrame{495498343153455, 495498379510686, 495498371345532},
			LatencyFrame{495499331650994, 495499372982686, 495499360158378}},
		{"sf_latency/solox249_nonblast_surfaceview_zeros_excerpt.txt", 16666667, 0, 12, true, LatencyFrame{}, LatencyFrame{}},
		{"sf_latency/tecno_camon20_5g_refresh_period_only_utf16le.txt", 16666667, 0, 0, false, LatencyFrame{}, LatencyFrame{}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			l, err := ParseLatency(fixtures.Read(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if l.RefreshPeriod != tc.period || len(l.Frames) != tc.frames || l.Dropped != tc.dropped || l.Truncated != tc.truncated {
				t.Fatalf("period %d frames %d dropped %d truncated %v", l.RefreshPeriod, len(l.Frames), l.Dropped, l.Truncated)
			}
			if tc.frames > 0 && (l.Frames[0] != tc.first || l.Frames[tc.frames-1] != tc.last) {
				t.Errorf("first %+v last %+v", l.Frames[0], l.Frames[tc.frames-1])
			}
			if p := l.PresentTimes(); len(p) != tc.frames || tc.frames > 0 && p[0] != tc.first.ActualPresent {
				t.Errorf("present times %v", p)
			}
		})
	}
}

func TestParseSurfaceFlingerLatencyErrors(t *testing.T) {
	tests := []struct {
		name, in string
		line     int
	}{
		{"empty", "", 0},
		{"no period", "abc\n", 1},
		{"two fields mid-output", "16666667\n1 2\n1 2 3\n", 2},
		{"four fields", "16666667\n1 2 3 4\n", 2},
		{"text row", "16666667\n1 x 3\n", 2},
		{"text after rows", "16666667\n1 2 3\nPermission denied\n", 3},
	}
	for _, tc := range tests {
		_, err := ParseLatency([]byte(tc.in))
		var pe *devtext.ParseError
		if !errors.As(err, &pe) || pe.Line != tc.line || pe.Source != LatencySource {
			t.Errorf("%s: err = %v, want ParseError at line %d", tc.name, err, tc.line)
		}
	}
}

func TestParseSurfaceFlingerList(t *testing.T) {
	tests := []struct {
		file   string
		pkg    string
		layers int
		want   string // PickLayer's choice, "" for ErrNoLayer
		kinds  map[string]LayerKind
	}{
		{"sf_list/solox249_android12plus_blast_findstr.txt", "com.KST.CS4Like_development", 7,
			"SurfaceView[com.KST.CS4Like_development/com.easy.game.GamePlayerActivity](BLAST)#0",
			map[string]LayerKind{
				"ActivityRecord{a6723a9 u0 com.KST.CS4Like_development/com.easy.game.GamePlayerActivity#0":   WindowContainer,
				"56d18fd com.KST.CS4Like_development/com.easy.game.GamePlayerActivity#0":                     WindowContainer,
				"Background for SurfaceView[com.KST.CS4Like_development/com.easy.game.GamePlayerActivity]#0": WindowContainer,
				"SurfaceView[com.KST.CS4Like_development/com.easy.game.GamePlayerActivity]#0":                SurfaceView,
				"com.KST.CS4Like_development/com.easy.game.GamePlayerActivity#0":                             Activity,
				"Bounds for - com.KST.CS4Like_development/com.easy.game.GamePlayerActivity#0":                WindowContainer,
				"SurfaceView[com.KST.CS4Like_development/com.easy.game.GamePlayerActivity](BLAST)#0":         SurfaceViewBLAST,
			}},
		{"sf_list/solox303_android15_requestedlayerstate_grep_excerpt.txt", "ctrip.android.view", 4,
			"ctrip.android.view/ctrip.android.publicproduct.home.business.activity.CtripHomeActivity#29149",
			map[string]LayerKind{
				"ff5d6b3 ActivityRecordInputSink ctrip.android.view/ctrip.android.publicproduct.home.business.activity.CtripHomeActivity#28994": WindowContainer,
				"54dfae7 ctrip.android.view/ctrip.android.publicproduct.home.business.activity.CtripHomeActivity#28989":                         WindowContainer,
			}},
		// Two BLAST SurfaceViews: the newer (#21673) wins.
		{"sf_list/tecno_camon20_5g_android13_list_blast_utf16le.txt", "org.videolan.vlc", 139,
			"SurfaceView[org.videolan.vlc/org.videolan.vlc.gui.video.VideoPlayerActivity](BLAST)#21673",
			map[string]LayerKind{
				"Display 0 name=\"鍐呯疆灞忓箷\"#3":                                                                  Other,
				"ActivityRecord{5706436 u0 com.android.chrome/com.google.android.apps.chrome.Main t191}#20377": WindowContainer,
			}},
		// Settings is in the background: only WindowManager containers
		// ("62bf40 pkg/Act#N") remain, which never carry buffers.
		{"sf_list/tecno_camon20_5g_android13_list_blast_utf16le.txt", "com.android.settings", 139, "",
			map[string]LayerKind{"62bf40 com.android.settings/com.android.settings.SubSettings#21279": WindowContainer}},
		{"sf_list/tecno_camon20_5g_android13_list_blast_utf16le.txt", "com.not.there", 139, "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.file+"/"+tc.pkg, func(t *testing.T) {
			layers, err := ParseList(fixtures.Read(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(layers) != tc.layers {
				t.Errorf("layers = %d, want %d", len(layers), tc.layers)
			}
			byName := map[string]Layer{}
			for _, l := range layers {
				byName[l.Name] = l
			}
			for name, k := range tc.kinds {
				if l, ok := byName[name]; !ok || l.Kind != k {
					t.Errorf("layer %q: %+v (present %v), want kind %d", name, l, ok, k)
				}
			}
			got, err := PickLayer(layers, tc.pkg)
			if tc.want == "" {
				if !errors.Is(err, ErrNoLayer) {
					t.Errorf("PickLayer = %+v, %v; want ErrSurfaceFlingerNoLayer", got, err)
				}
				return
			}
			if err != nil || got.Name != tc.want {
				t.Errorf("PickLayer = %q, %v; want %q", got.Name, err, tc.want)
			}
		})
	}
}

func TestPickLayerOlderNames(t *testing.T) {
	// Android 7–10 names (no capture of these exists in the corpus; the forms
	// follow the timestats capture's "SurfaceView - pkg/Act#0" layer name).
	list := "com.mxtech.videoplayer.ad/com.mxtech.videoplayer.ad.ActivityScreen#0\n" +
		"SurfaceView - com.mxtech.videoplayer.ad/com.mxtech.videoplayer.ad.ActivityScreen#0\n" +
		"com.android.systemui.ImageWallpaper#0\n"
	layers, err := ParseList([]byte(list))
	if err != nil {
		t.Fatal(err)
	}
	got, err := PickLayer(layers, "com.mxtech.videoplayer.ad")
	if err != nil || got.Name != "SurfaceView - com.mxtech.videoplayer.ad/com.mxtech.videoplayer.ad.ActivityScreen#0" || got.Kind != SurfaceView {
		t.Errorf("PickLayer = %+v, %v", got, err)
	}
	if _, err := ParseList([]byte("Can't find service: SurfaceFlinger\n")); err == nil {
		t.Error("a missing service must be an error")
	}
}

func TestParseSurfaceFlingerFrameCounter(t *testing.T) {
	// The reply shape documented in SOURCES.md ("Result: Parcel(000d1b3a    '....')");
	// no real capture exists.
	tests := []struct {
		in   string
		want uint32
		ok   bool
	}{
		{"Result: Parcel(000d1b3a    '....')\n", 0x000d1b3a, true},
		{"Result: Parcel(\n  0x00000000: 0001e240                            '@...            ')\n", 123456, true},
		{"\xff\xfeR\x00e\x00s\x00u\x00l\x00t\x00:\x00 \x00P\x00a\x00r\x00c\x00e\x00l\x00(\x000\x000\x000\x000\x000\x000\x000\x00a\x00 \x00'\x00.\x00.\x00.\x00.\x00'\x00)\x00\r\x00\n\x00", 10, true},
		{"Result: Parcel(Error: 0xffffffffffffffb6 \"Not a data message\")\n", 0, false},
		{"service: Service SurfaceFlinger does not exist\n", 0, false},
		{"Result: Parcel(00d1b3a '...')\n", 0, false},
	}
	for _, tc := range tests {
		got, err := ParseFrameCounter([]byte(tc.in))
		var pe *devtext.ParseError
		if tc.ok && (err != nil || got != tc.want) || !tc.ok && !errors.As(err, &pe) {
			t.Errorf("%q: %d, %v; want %d ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestParseSurfaceFlingerTimeStats(t *testing.T) {
	ts, err := ParseTimeStats(fixtures.Read(t, "sf_timestats/aosp_platform_testing_sfstats_test_dump_pixel4_edited.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if ts.TotalFrames != 5791 || ts.MissedFrames != 82 || ts.Fields["statsStart"] != "1566336030" || ts.Fields["displayOnTime"] != "2485421 ms" {
		t.Errorf("globals: %d %d %v", ts.TotalFrames, ts.MissedFrames, ts.Fields)
	}
	if ts.DisplayConfigStats["90fps"] != 3700 || ts.DisplayConfigStats["60fps"] != 297492 {
		t.Errorf("display config stats %v", ts.DisplayConfigStats)
	}
	if h := ts.Histograms["presentToPresent"]; len(h) != 10 || h[8] != (gfxinfo.HistogramBucket{Millis: 8, Count: 5791}) {
		t.Errorf("presentToPresent %v", h)
	}
	if h := ts.Histograms["frameDuration"]; len(h) != 10 || h[5] != (gfxinfo.HistogramBucket{Millis: 5, Count: 50}) {
		t.Errorf("frameDuration %v", h)
	}
	if len(ts.Layers) != 4 {
		t.Fatalf("layers = %d, want 4", len(ts.Layers))
	}
	l := ts.Layers[1]
	if l.Name != "com.google.android.nexuslauncher.NexusLauncherActivity#0" || l.Package != "com.google.android.nexuslauncher" ||
		l.TotalFrames != 264 || l.DroppedFrames != 7 || l.AverageFPS != 84.318 || len(l.Histograms) != 6 ||
		l.Histograms["post2acquire"][8] != (gfxinfo.HistogramBucket{Millis: 8, Count: 264}) {
		t.Errorf("launcher layer %+v", l)
	}
	if l := ts.Layers[2]; l.Name != "SurfaceView - com.mxtech.videoplayer.ad/com.mxtech.videoplayer.ad.ActivityScreen#0" || l.Package != "" || l.AverageFPS != 59.999 {
		t.Errorf("SurfaceView layer %+v", l)
	}
	if l := ts.Layers[3]; !math.IsInf(l.AverageFPS, 1) || l.Fields["lateAcquireFrames"] != "0" || l.TotalFrames != 1 {
		t.Errorf("ScreenDecorOverlayBottom %+v", l)
	}
	if _, err := ParseTimeStats([]byte("layerName = a\ntotalFrames = x\n")); err == nil {
		t.Error("a non-numeric totalFrames must be an error")
	}
}

func FuzzParseSurfaceFlingerList(f *testing.F) {
	for _, name := range []string{
		"sf_list/solox249_android12plus_blast_findstr.txt",
		"sf_list/solox303_android15_requestedlayerstate_grep_excerpt.txt",
		"sf_list/tecno_camon20_5g_android13_list_blast_utf16le.txt",
	} {
		f.Add(fixtures.Read(f, name), "org.videolan.vlc")
	}
	f.Fuzz(func(t *testing.T, in []byte, pkg string) {
		layers, err := ParseList(in)
		if err != nil {
			return
		}
		if l, err := PickLayer(layers, pkg); err == nil && l.Package() != pkg {
			t.Fatalf("picked %+v for %q", l, pkg)
		}
	})
}

func FuzzParseSurfaceFlingerFrameCounter(f *testing.F) {
	f.Add([]byte("Result: Parcel(000d1b3a    '....')\n"))
	f.Add([]byte("Result: Parcel(\n  0x00000000: 0001e240 '@...')\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		_, _ = ParseFrameCounter(in)
	})
}

func FuzzParseSurfaceFlingerTimeStats(f *testing.F) {
	f.Add(fixtures.Read(f, "sf_timestats/aosp_platform_testing_sfstats_test_dump_pixel4_edited.txt"))
	f.Fuzz(func(t *testing.T, in []byte) {
		_, _ = ParseTimeStats(in)
	})
}

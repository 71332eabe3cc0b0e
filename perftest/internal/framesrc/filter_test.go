package framesrc

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"testing"

	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/internal/fixtures"
)

func TestIntAbove(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3000; i++ {
		th := rng.Int64N(1 << uint(rng.IntN(60)+1))
		re := regexp.MustCompile("^(" + intAbove(th) + ")$")
		for _, n := range []int64{0, th - 1, th, th + 1, th + rng.Int64N(1000), max(0, th-rng.Int64N(1000)), th * 10, th / 10} {
			if n < 0 {
				continue
			}
			if got := re.MatchString(strconv.FormatInt(n, 10)); got != (n > th) {
				t.Fatalf("intAbove(%d) on %d: %v", th, n, got)
			}
		}
	}
}

// grepLines is the device's `grep -E pattern` over text.
func grepLines(t *testing.T, text []byte, pattern string) []byte {
	t.Helper()
	re := regexp.MustCompile(pattern)
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		if re.Match(sc.Bytes()) {
			out.Write(sc.Bytes())
			out.WriteByte('\n')
		}
	}
	return out.Bytes()
}

// TestGfxFilterOfRealCaptures: a dump filtered as the source asks keeps
// every row of IntendedVsync ≥ the bound, every row of the vsyncs still
// drawing it names, and what the parser needs to place them, on real
// phones' dumps.
func TestGfxFilterOfRealCaptures(t *testing.T) {
	for _, name := range []string{
		"gfxinfo_framestats/soundvis_120hz_android13plus_scroll.txt",
		"gfxinfo_framestats/anavmode_all_processes_topicon_t865_60hz.txt",
	} {
		t.Run(name, func(t *testing.T) {
			text := fixtures.Read(t, name)
			full, err := gfxinfo.Parse(text)
			if err != nil {
				t.Fatal(err)
			}
			var all []gfxinfo.FrameStats
			col := 0
			for _, w := range full.Windows() {
				if w.Frames != nil {
					all = append(all, w.Frames.Frames()...)
					src := bareSource(frames.SourceGfxInfo)
					src.learnGfxColumns(w.Frames)
					col = src.gfxVsyncCol
				}
			}
			if col < 1 || len(all) < 4 {
				t.Fatalf("column %d, %d rows", col, len(all))
			}
			from := all[len(all)/2].IntendedVsync
			var pending []int64
			for _, f := range all {
				if f.Flags == 0 && f.IntendedVsync < from && (f.FrameCompleted == 0 || f.FrameCompleted < f.IntendedVsync) {
					pending = append(pending, f.IntendedVsync)
				}
			}
			if len(pending) == 0 {
				pending = []int64{all[1].IntendedVsync}
			}
			got, err := gfxinfo.Parse(grepLines(t, text, gfxFilterPattern(col, from, pending)))
			if err != nil {
				t.Fatal(err)
			}
			if got.UptimeMillis != full.UptimeMillis || len(got.Windows()) != len(full.Windows()) {
				t.Fatalf("uptime %d, %d windows; want %d, %d", got.UptimeMillis, len(got.Windows()), full.UptimeMillis, len(full.Windows()))
			}
			for i, w := range full.Windows() {
				gw := got.Windows()[i]
				if gw.Label() != w.Label() {
					t.Errorf("window %d: %q, want %q", i, gw.Label(), w.Label())
				}
				if w.Frames == nil {
					continue
				}
				var want []gfxinfo.FrameStats
				for _, f := range w.Frames.Frames() {
					if f.IntendedVsync >= from || containsInt64(pending, f.IntendedVsync) {
						want = append(want, f)
					}
				}
				if gw.Frames == nil && len(want) > 0 || gw.Frames != nil && !equalFrames(gw.Frames.Frames(), want) {
					t.Errorf("window %q: filtered rows differ from the %d expected", w.Label(), len(want))
				}
			}
		})
	}
}

func containsInt64(xs []int64, x int64) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func equalFrames(a, b []gfxinfo.FrameStats) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestGfxFilterKeepsAnimationRows: the animation row (Flags ≠ 0) of a vsync
// whose frame was still drawing at the last poll, or of the newest frame
// taken, can first show a poll later; the filtered poll still carries it,
// so the Result counts it as a rejected row as a whole dump would. Before,
// the filter kept only Flags-0 rows of the vsyncs still drawing and rows
// past the newest frame taken, and such a row went uncounted.
func TestGfxFilterKeepsAnimationRows(t *testing.T) {
	src := bareSource(frames.SourceGfxInfo)
	src.cfg.RefreshHz = 60
	const cmd = "dumpsys gfxinfo com.x.y framestats"
	poll := func(uptimeMs int64, rows ...[3]int64) {
		t.Helper()
		text := gfxDump(uptimeMs, rows...)
		filtered := false
		if pat := src.gfxFilter(); pat != "" {
			text, filtered = grepLines(t, text, pat), true
		}
		absorb(src, text, cmd, filtered, uptimeMs*1e6, uptimeMs*1e6, 0)
	}
	// Poll 1: 100 done, 116 still drawing.
	poll(130, frame(0, 100, 110), frame(0, 116, 0))
	if src.gfxFilter() == "" {
		t.Fatal("the second poll is not filtered")
	}
	// Poll 2: 116 done, with its RenderThread row printed before it; 132
	// done, its animation row not printed yet.
	poll(150, frame(0, 100, 110), frame(2, 116, 120), frame(0, 116, 125), frame(0, 132, 140))
	// Poll 3: 132's animation row shows.
	poll(170, frame(0, 100, 110), frame(2, 116, 120), frame(0, 116, 125), frame(2, 132, 135), frame(0, 132, 140), frame(0, 148, 160))
	if got := keptVsyncsMs(src.res); fmt.Sprint(got) != "[100 116 132 148]" {
		t.Errorf("frames %v, want [100 116 132 148]", got)
	}
	if got := src.res.FramesRejected[gfxinfo.RejectFlags]; got != 2 {
		t.Errorf("%d rows rejected for flags, want the 2 animation rows (rejects %v)", got, src.res.FramesRejected)
	}
}

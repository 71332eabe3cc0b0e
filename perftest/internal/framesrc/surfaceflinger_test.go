package framesrc

import (
	"fmt"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/frames"
)

// A SurfaceFlinger layer whose whole ring (127 frames) is newer than the
// last frame kept lost the frames presented between the two polls.
func TestAbsorbSurfaceFlingerDetectsWrappedBuffer(t *testing.T) {
	src := bareSource(frames.SourceSurfaceFlinger)
	src.cfg.Layer = "L"
	ring := func(from int) []byte {
		var b strings.Builder
		b.WriteString("16666666\n")
		for i := from; i < from+127; i++ {
			b.WriteString(fmt.Sprintf("%d\t%d\t%d\n", 1e9+i*16666666, 1e9+i*16666666+1e6, 1e9+i*16666666-2e6))
		}
		return []byte(b.String())
	}
	absorb(src, ring(0), "sf", false, 0, 1, 10e9)
	absorb(src, ring(100), "sf", false, 2, 3, 10e9)
	if len(src.res.Gaps) != 0 || len(src.res.Frames) != 227 {
		t.Fatalf("%d frames, gaps %+v; want 227 and no gap", len(src.res.Frames), src.res.Gaps)
	}
	absorb(src, ring(300), "sf", false, 4, 5, 10e9)
	if len(src.res.Gaps) != 1 {
		t.Fatalf("gaps %+v, want the wrap", src.res.Gaps)
	}
	// From the last present kept to the new ring's oldest, half a period
	// in at each end: a frame lost is a vsync from both.
	const half = 16666666 / 2
	if g := src.res.Gaps[0]; g.LostFromNs != 1e9+226*16666666+1e6+half-1 || g.LostToNs != 1e9+300*16666666+1e6-half+1 {
		t.Errorf("lost span (%d, %d), want the last present kept to the new ring's oldest, half a period in", g.LostFromNs, g.LostToNs)
	}
	// A ring that turned short of once between polls, its oldest frame
	// less than a period after the last kept (a frame presented early),
	// lost nothing: no frame fits between.
	src = bareSource(frames.SourceSurfaceFlinger)
	src.cfg.Layer = "L"
	absorb(src, ring(0), "sf", false, 0, 1, 10e9)
	oldest := int64(1e9 + 127*16666666 + 1e6)
	early := strings.Replace(string(ring(127)), fmt.Sprintf("\t%d\t", oldest), fmt.Sprintf("\t%d\t", oldest-2e6), 1)
	absorb(src, []byte(early), "sf", false, 2, 3, 10e9)
	if len(src.res.Gaps) != 0 || len(src.res.Frames) != 254 {
		t.Errorf("%d frames, gaps %+v; want 254 and no gap", len(src.res.Frames), src.res.Gaps)
	}
}

func TestAbsorbSurfaceFlingerCapture(t *testing.T) {
	src := bareSource(frames.SourceSurfaceFlinger)
	src.cfg.Layer = "SurfaceView[com.x.y/com.x.y.Main](BLAST)#0"
	// Hand-made --latency output: refresh line, a pending-fence row
	// (B = INT64_MAX) that must be dropped, three frames.
	poll1 := "8333333\n100\t200\t150\n300\t9223372036854775807\t250\n400\t500\t450\n"
	poll2 := "8333333\n400\t500\t450\n600\t700\t650\n"
	if n := absorb(src, []byte(poll1), "sf", false, 0, 1, 0); n != 2 {
		t.Fatalf("poll 1 kept %d, want 2", n)
	}
	if n := absorb(src, []byte(poll2), "sf", false, 0, 1, 0); n != 1 {
		t.Fatalf("poll 2 kept %d, want 1 (the 500 row was kept already)", n)
	}
	var bs []int64
	for _, f := range src.res.Frames {
		bs = append(bs, f.ActualPresent)
	}
	if len(bs) != 3 || bs[0] != 200 || bs[1] != 500 || bs[2] != 700 || src.PeriodNs() != 8333333 {
		t.Errorf("kept B %v period %d", bs, src.PeriodNs())
	}
}

func TestAbsorbSurfaceFlingerRejects(t *testing.T) {
	src := bareSource(frames.SourceSurfaceFlinger)
	src.cfg.Layer = "L"
	polls := []string{
		// Empty slots, two frames, the newest fence pending.
		"8333333\n0\t0\t0\n0\t0\t0\n100\t200\t150\n300\t400\t350\n500\t9223372036854775807\t450\n",
		// The fence signalled; a row going backwards.
		"8333333\n0\t0\t0\n100\t200\t150\n300\t400\t350\n500\t600\t450\n700\t550\t650\n",
		// The same again, then a row past the device clock and a frame.
		"8333333\n100\t200\t150\n300\t400\t350\n500\t600\t450\n700\t550\t650\n800\t99000000000000\t750\n900\t950\t920\n",
	}
	for i, p := range polls {
		absorb(src, []byte(p), "sf", false, int64(i), int64(i)+1, 1_000_000_000)
	}
	var bs []int64
	for _, f := range src.res.Frames {
		bs = append(bs, f.ActualPresent)
	}
	if fmt.Sprint(bs) != "[200 400 600 950]" {
		t.Errorf("kept %v", bs)
	}
	if got := fmt.Sprint(src.res.FramesRejected); got != "map[backwards:1 beyond_clock:1]" {
		t.Errorf("rejected %s", got)
	}
}

// TestFinishNotesEmptyLayer: a layer that showed no frame in any poll gets
// a note at Stop saying what it showed.
func TestFinishNotesEmptyLayer(t *testing.T) {
	for _, tc := range []struct{ poll, what string }{
		{"16666666\n", "only the refresh period line"},
		{"16666666\n0\t0\t0\n0\t0\t0\n", "only empty rows"},
	} {
		s := bareSource(frames.SourceSurfaceFlinger)
		s.cfg.Layer = "L"
		absorb(s, []byte(tc.poll), "sf", false, 0, 1, 1e9)
		absorb(s, []byte(tc.poll), "sf", false, 2, 3, 1e9)
		s.Finish(4)
		want := "frames: dumpsys SurfaceFlinger --latency L showed " + tc.what + " in every poll"
		if len(s.res.Notes) != 1 || !strings.HasPrefix(s.res.Notes[0], want) {
			t.Errorf("notes %q, want one starting %q", s.res.Notes, want)
		}
	}
}

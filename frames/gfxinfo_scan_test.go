package frames

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/android/surfaceflinger"
	"github.com/perfgate/perfgate/internal/capturegen"
)

// TestSummarizeGfxInfoTimesMatches: the summary of the streamed frames
// is the summary of the parsed ones. (Frames read in parts equal the
// streamed ones: TestScanGfxInfoMatchesParse.)
func TestSummarizeGfxInfoTimesMatches(t *testing.T) {
	for name, text := range capturegen.GfxInfoInputs(t) {
		t.Run(name, func(t *testing.T) { summaryMatchesParse(t, text) })
	}
}

// summaryMatchesParse: FrameSummarizeGfxInfoTimes of each window ScanGfxInfo
// reads in text is FrameSummarizeGfxInfo of the window's frames as parsed.
func summaryMatchesParse(t *testing.T, text []byte) {
	g, err := gfxinfo.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := gfxinfo.Scan(bytes.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	var tables []*gfxinfo.Window
	for _, w := range g.Windows() {
		if w.Frames != nil {
			tables = append(tables, w)
		}
	}
	if len(sc.Windows) != len(tables) {
		t.Fatalf("%d windows, want %d", len(sc.Windows), len(tables))
	}
	for i, w := range tables {
		s := sc.Windows[i]
		frames, _ := gfxinfo.FramesOf(w.Frames, g.ClockNs())
		period := max(s.RefreshPeriod, 16_666_667)
		if got, exp := SummarizeGfxInfoTimes(s.Frames, period), SummarizeGfxInfo(frames, period); !reflect.DeepEqual(got, exp) {
			t.Errorf("window %q: summary\n got %+v\nwant %+v", w.Label(), got, exp)
		}
	}
}

// FuzzScanSurfaceFlingerLatency: the streamed reading agrees with
// ParseSurfaceFlingerLatency on any input.
func FuzzScanSurfaceFlingerLatency(f *testing.F) {
	var gen bytes.Buffer
	if err := (capturegen.Capture{Frames: 40, Hz: 60, JankEvery: 7}).SurfaceFlinger(&gen); err != nil {
		f.Fatal(err)
	}
	f.Add(gen.Bytes())
	f.Add([]byte("16666666\n1 2 3\n0 0 0\n4 9223372036854775807 5\n6 7"))
	f.Add([]byte("16666666\r\n1\t2\t3\r\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		l, perr := surfaceflinger.ParseLatency(text)
		s, present, serr := surfaceflinger.ScanLatency(bytes.NewReader(text))
		if (perr == nil) != (serr == nil) || perr != nil && perr.Error() != serr.Error() {
			t.Fatalf("Parse error %v, Scan error %v", perr, serr)
		}
		if perr != nil {
			return
		}
		if !slices.Equal(present, l.PresentTimes()) || s.RefreshPeriod != l.RefreshPeriod || s.Truncated != l.Truncated ||
			s.Dropped != l.Dropped || !reflect.DeepEqual(s.Rejected, l.Rejected) {
			t.Fatalf("scan %+v %v, parse %+v", s, present, l)
		}
		// Held as surfaceflinger.Times, the same times and summary.
		_, st, err := surfaceflinger.ScanTimes(bytes.NewReader(text))
		if err != nil || !slices.Equal(st.Present(), present) {
			t.Fatalf("ScanSurfaceFlingerTimes: %v, %v; want %v", err, st.Present(), present)
		}
		if got, want := SummarizeSurfaceFlingerTimes(st, s.RefreshPeriod), SummarizeSurfaceFlinger(present, s.RefreshPeriod); !equalSummaries(got, want) {
			t.Fatalf("summary\n got %+v\nwant %+v", got, want)
		}
	})
}

// BenchmarkScanHour is the streaming parsers alone on an hour at 120 Hz
// held in memory, with ParseGfxInfo and ParseSurfaceFlingerLatency (the
// whole-text parsers) beside them.
func BenchmarkScanHour(b *testing.B) {
	var gfx, sf bytes.Buffer
	if err := capturegen.Hour.GfxInfo(&gfx); err != nil {
		b.Fatal(err)
	}
	if err := capturegen.Hour.SurfaceFlinger(&sf); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		text []byte
		run  func([]byte) error
	}{
		{"parser=ScanGfxInfo", gfx.Bytes(), func(t []byte) error { _, err := gfxinfo.Scan(bytes.NewReader(t)); return err }},
		{"parser=ParseGfxInfo", gfx.Bytes(), func(t []byte) error { _, err := gfxinfo.Parse(t); return err }},
		{"parser=ScanSurfaceFlingerLatency", sf.Bytes(), func(t []byte) error {
			_, _, err := surfaceflinger.ScanLatency(bytes.NewReader(t))
			return err
		}},
		{"parser=ParseSurfaceFlingerLatency", sf.Bytes(), func(t []byte) error { _, err := surfaceflinger.ParseLatency(t); return err }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.text)))
			b.ReportAllocs()
			for range b.N {
				if err := bc.run(bc.text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestFramePercentilesSelect: the percentiles by selection are those of a
// sort, on random values with and without runs of equal ones.
func TestFramePercentilesSelect(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for n := 1; n < 3000; n += 1 + n/3 {
		for _, spread := range []int64{1, 3, 1_000_000_000} {
			v := make([]int64, n)
			for i := range v {
				v[i] = 8_000_000 + rng.Int64N(spread)
			}
			s := slices.Clone(v)
			slices.Sort(s)
			at := func(p int) float64 { return float64(s[rankIndex(p, n)]) / 1e6 }
			want := Percentiles{P50: at(50), P90: at(90), P95: at(95), P99: at(99)}
			if got := PercentilesOf(v); got != want {
				t.Fatalf("%d values (spread %d): %+v, want %+v", n, spread, got, want)
			}
		}
	}
}

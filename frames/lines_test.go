package frames

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/android/dumpsys"
	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/android/surfaceflinger"
	"github.com/perfgate/perfgate/internal/capturegen"
	"github.com/perfgate/perfgate/internal/excerpt"
	"github.com/perfgate/perfgate/internal/memwatch"
)

// A 1 GiB line, at the start or after real lines, in UTF-8, UTF-16 or
// with carriage returns, stops every streaming reader once it passes
// MaxLine: an ErrLineTooLong naming the source and the line, quoting a
// bounded start of it, having read and held a few MiB of the GiB.
func TestLongLineStopsStreams(t *testing.T) {
	const gib = 1 << 30
	readers := []struct {
		name, source string
		read         func(io.Reader) error
	}{
		{"ScanGfxInfo", gfxinfo.Source, func(r io.Reader) error { _, err := gfxinfo.Scan(r); return err }},
		{"ScanSurfaceFlingerLatency", surfaceflinger.LatencySource, func(r io.Reader) error { _, _, err := surfaceflinger.ScanLatency(r); return err }},
		{"ReadText", dumpsys.MeminfoSource, func(r io.Reader) error { _, err := devtext.ReadText(r, dumpsys.MeminfoSource, 0); return err }},
	}
	lines := []struct {
		name string
		gen  *capturegen.Repeat
		line int
	}{
		{"first line", capturegen.OneLine("", gib), 1},
		{"third line", capturegen.OneLine("16666666\n1 2 3\n", gib), 3},
		{"CRLF", capturegen.OneLine("16666666\r\n1 2 3\r\n", gib), 3},
		{"lone CR", capturegen.OneLine("16666666\r\r1 2 3\r", gib), 3},
		{"UTF-16LE", &capturegen.Repeat{Head: capturegen.UTF16("16666666\r\n", binary.LittleEndian), Body: []byte("7\x00"), Len: gib}, 2},
		{"UTF-16BE", &capturegen.Repeat{Head: capturegen.UTF16("16666666\n", binary.BigEndian), Body: []byte("\x008"), Len: gib}, 2},
	}
	for _, rd := range readers {
		for _, ln := range lines {
			t.Run(rd.name+"/"+ln.name, func(t *testing.T) {
				g := *ln.gen
				var err error
				alloc := memwatch.Allocated(func() { err = rd.read(&g) })
				var pe *devtext.ParseError
				if !errors.Is(err, devtext.ErrLineTooLong) || !errors.As(err, &pe) || pe.Line != ln.line || pe.Source != rd.source {
					t.Fatalf("err %v, want a line-too-long *ParseError at line %d of %s", err, ln.line, rd.source)
				}
				if cerr := excerpt.Check(err.Error()); cerr != nil || !strings.Contains(err.Error(), "longer than 1048576 bytes") {
					t.Errorf("%v: %s", cerr, err)
				}
				if g.Given() > 8<<20 || alloc > 32<<20 {
					t.Errorf("read %d MiB and allocated %d MiB of a 1 GiB line", g.Given()>>20, alloc>>20)
				}
			})
		}
	}
}

// A line of exactly MaxLine bytes is read; one byte more is not; the
// whole-text parsers agree with the streams.
func TestMaxLineEdge(t *testing.T) {
	for _, n := range []int{devtext.MaxLine, devtext.MaxLine + 1} {
		text := []byte("16666666\n" + strings.Repeat(" ", n-5) + "1 2 3\n")
		_, perr := surfaceflinger.ParseLatency(text)
		_, _, serr := surfaceflinger.ScanLatency(bytes.NewReader(text))
		_, rerr := devtext.ReadText(bytes.NewReader(text), surfaceflinger.LatencySource, 0)
		g := []byte("---PROFILEDATA---\nFlags,IntendedVsync,FrameCompleted,\n" + strings.Repeat(" ", n-6) + "0,1,2,\n---PROFILEDATA---\n")
		_, gperr := gfxinfo.Parse(g)
		_, gserr := gfxinfo.Scan(bytes.NewReader(g))
		for name, err := range map[string]error{"Parse": perr, "Scan": serr, "ReadText": rerr, "ParseGfxInfo": gperr, "ScanGfxInfo": gserr} {
			if long := errors.Is(err, devtext.ErrLineTooLong); long != (n > devtext.MaxLine) || !long && err != nil {
				t.Errorf("%s, a line of %d bytes: %v", name, n, err)
			}
		}
		if perr != nil && serr != nil && perr.Error() != serr.Error() {
			t.Errorf("Parse and Scan differ:\n%v\n%v", perr, serr)
		}
	}
}

// A capture saved with CRLF or as UTF-16 (Windows) is read as a stream,
// as the plain one: the same frames, in the plain one's memory and a few
// buffers (it was read whole and normalised into a second copy).
func TestScanCRLFAndUTF16Stream(t *testing.T) {
	var gen bytes.Buffer
	if err := (capturegen.Capture{Frames: 40_000, Hz: 120, JankEvery: 7, FlaggedEvery: 11}).GfxInfo(&gen); err != nil {
		t.Fatal(err)
	}
	plain := gen.Bytes()
	crlf := bytes.ReplaceAll(plain, []byte("\n"), []byte("\r\n"))
	wide := capturegen.UTF16(string(crlf), binary.LittleEndian)
	var want *gfxinfo.ScanResult
	var err error
	plainAlloc := memwatch.Allocated(func() { want, err = gfxinfo.Scan(bytes.NewReader(plain)) })
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string][]byte{"CRLF": crlf, "UTF-16LE": wide} {
		var sc *gfxinfo.ScanResult
		alloc := memwatch.Allocated(func() { sc, err = gfxinfo.Scan(bytes.NewReader(text)) })
		if err != nil || len(sc.Windows) != 1 || !slices.Equal(sc.Windows[0].Frames, want.Windows[0].Frames) {
			t.Fatalf("%s: %v", name, err)
		}
		if alloc > plainAlloc+4<<20 {
			t.Errorf("%s: %d KiB allocated to read %d KiB (plain: %d KiB)", name, alloc>>10, len(text)>>10, plainAlloc>>10)
		}
	}
	// The same for SurfaceFlinger.
	gen.Reset()
	if err := (capturegen.Capture{Frames: 200_000, Hz: 60, JankEvery: 7}).SurfaceFlinger(&gen); err != nil {
		t.Fatal(err)
	}
	var present []int64
	plainAlloc = memwatch.Allocated(func() { _, present, err = surfaceflinger.ScanLatency(bytes.NewReader(gen.Bytes())) })
	if err != nil {
		t.Fatal(err)
	}
	sfCRLF := bytes.ReplaceAll(gen.Bytes(), []byte("\n"), []byte("\r\n"))
	var got []int64
	alloc := memwatch.Allocated(func() { _, got, err = surfaceflinger.ScanLatency(bytes.NewReader(sfCRLF)) })
	if err != nil || !slices.Equal(got, present) {
		t.Fatalf("CRLF: %d frames, %v; want %d", len(got), err, len(present))
	}
	if alloc > plainAlloc+4<<20 {
		t.Errorf("SurfaceFlinger CRLF: %d KiB allocated to read %d KiB (plain: %d KiB)", alloc>>10, len(sfCRLF)>>10, plainAlloc>>10)
	}
}

// SurfaceFlingerTimes hold the times exactly and summarize them as
// FrameSummarizeSurfaceFlinger does, read back in chunks of any size, on
// frames of every spacing: runs under half a period (which Chromium
// skips), janks, and pauses past the 4.29 s a frame time holds in 32 bits.
func TestSurfaceFlingerTimes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for n := 0; n < 3000; n += 1 + n/2 {
		for _, period := range []int64{8_333_333, 16_666_667, 0, -1} {
			present := make([]int64, n)
			v := int64(314_846_275_541_194)
			for i := range present {
				switch rng.IntN(40) {
				case 0:
					v += 5_000_000_000 + rng.Int64N(1<<40) // a pause
				case 1, 2:
					v += 1 + rng.Int64N(4_000_000) // under half a period
				case 3:
					v += 1<<32 - 1 // the first frame time kept whole
				default:
					v += 8_333_333 + rng.Int64N(5)*rng.Int64N(30_000_000)
				}
				present[i] = v
			}
			want := SummarizeSurfaceFlinger(present, period)
			for _, chunk := range []int{1, 2, 3, 5, 64, 1 << 16} {
				var st surfaceflinger.Times
				for _, p := range present {
					st.Add(p)
				}
				if got := st.Present(); !slices.Equal(got, present) && n > 0 {
					t.Fatalf("%d frames: Present differs", n)
				}
				if got := frameSummarizeTimes(&st, period, chunk); !equalSummaries(got, want) || got.Source != want.Source || got.JankDefinition != want.JankDefinition || got.RefreshPeriodMS != want.RefreshPeriodMS {
					t.Fatalf("%d frames, period %d, chunks of %d:\n got %+v\nwant %+v", n, period, chunk, got, want)
				}
			}
		}
	}
}

// ScanSurfaceFlingerTimes reads what ScanSurfaceFlingerLatency reads, in
// half its memory.
func TestScanSurfaceFlingerTimes(t *testing.T) {
	var gen bytes.Buffer
	if err := (capturegen.Capture{Frames: 300_000, Hz: 120, JankEvery: 97}).SurfaceFlinger(&gen); err != nil {
		t.Fatal(err)
	}
	var present []int64
	var err error
	plain := memwatch.Allocated(func() { _, present, err = surfaceflinger.ScanLatency(bytes.NewReader(gen.Bytes())) })
	if err != nil {
		t.Fatal(err)
	}
	var st *surfaceflinger.Times
	compact := memwatch.Allocated(func() { _, st, err = surfaceflinger.ScanTimes(bytes.NewReader(gen.Bytes())) })
	if err != nil || !slices.Equal(st.Present(), present) {
		t.Fatalf("%v", err)
	}
	if got, want := SummarizeSurfaceFlingerTimes(st, 8_333_333), SummarizeSurfaceFlinger(present, 8_333_333); !equalSummaries(got, want) {
		t.Errorf("summary\n got %+v\nwant %+v", got, want)
	}
	if compact > plain*2/3 {
		t.Errorf("%d KiB allocated, %d KiB for []int64", compact>>10, plain>>10)
	}
}

func equalSummaries(a, b Summary) bool {
	return a.Frames == b.Frames && a.FPS == b.FPS && a.FrameTimeMS == b.FrameTimeMS && a.PerfDog == b.PerfDog &&
		a.Chromium == b.Chromium && slices.Equal(a.Janked.PerfDog, b.Janked.PerfDog) && slices.Equal(a.Janked.Chromium, b.Janked.Chromium) &&
		a.Jank == b.Jank && a.DurationS == b.DurationS
}

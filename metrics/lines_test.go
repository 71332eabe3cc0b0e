package metrics

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf16"

	"github.com/perfgate/perfgate/internal/capturegen"
	"github.com/perfgate/perfgate/internal/excerpt"
)

// genReader reads head, then body repeated up to size bytes in all,
// without holding them: a capture of any size for a test or benchmark.
// It counts what it gave and, like a file, tells its size.
type genReader struct {
	head, body []byte
	size, off  int64
}

func (g *genReader) Size() int64 { return g.size }

func (g *genReader) Read(p []byte) (int, error) {
	if g.off >= g.size {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && g.off < g.size {
		var src []byte
		if h := int64(len(g.head)); g.off < h {
			src = g.head[g.off:]
		} else {
			k := (g.off - h) % int64(len(g.body))
			src = g.body[k:]
		}
		m := copy(p[n:], src[:min(int64(len(src)), g.size-g.off)])
		n += m
		g.off += int64(m)
	}
	return n, nil
}

// oneLine is a single line of size bytes after head: digits, as the issue's
// 1 GB capture.
func oneLine(head string, size int64) *genReader {
	return &genReader{head: []byte(head), body: []byte("0123456789"), size: size}
}

// utf16Of is s as UTF-16 with a byte-order mark, as PowerShell saves it.
func utf16Of(s string, order binary.AppendByteOrder) []byte {
	b := []byte{0xFF, 0xFE}
	if order == binary.AppendByteOrder(binary.BigEndian) {
		b = []byte{0xFE, 0xFF}
	}
	for _, u := range utf16.Encode([]rune(s)) {
		b = order.AppendUint16(b, u)
	}
	return b
}

// allocated is what fn allocates, in bytes.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

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
		{"ScanGfxInfo", GfxInfoSource, func(r io.Reader) error { _, err := ScanGfxInfo(r); return err }},
		{"ScanSurfaceFlingerLatency", SurfaceFlingerLatencySource, func(r io.Reader) error { _, _, err := ScanSurfaceFlingerLatency(r); return err }},
		{"ReadText", MeminfoSource, func(r io.Reader) error { _, err := ReadText(r, MeminfoSource, 0); return err }},
	}
	lines := []struct {
		name string
		gen  *genReader
		line int
	}{
		{"first line", oneLine("", gib), 1},
		{"third line", oneLine("16666666\n1 2 3\n", gib), 3},
		{"CRLF", oneLine("16666666\r\n1 2 3\r\n", gib), 3},
		{"lone CR", oneLine("16666666\r\r1 2 3\r", gib), 3},
		{"UTF-16LE", &genReader{head: utf16Of("16666666\r\n", binary.LittleEndian), body: []byte("7\x00"), size: gib}, 2},
		{"UTF-16BE", &genReader{head: utf16Of("16666666\n", binary.BigEndian), body: []byte("\x008"), size: gib}, 2},
	}
	for _, rd := range readers {
		for _, ln := range lines {
			t.Run(rd.name+"/"+ln.name, func(t *testing.T) {
				g := *ln.gen
				var err error
				alloc := allocated(func() { err = rd.read(&g) })
				var pe *ParseError
				if !errors.Is(err, ErrLineTooLong) || !errors.As(err, &pe) || pe.Line != ln.line || pe.Source != rd.source {
					t.Fatalf("err %v, want a line-too-long *ParseError at line %d of %s", err, ln.line, rd.source)
				}
				if cerr := excerpt.Check(err.Error()); cerr != nil || !strings.Contains(err.Error(), "longer than 1048576 bytes") {
					t.Errorf("%v: %s", cerr, err)
				}
				if g.off > 8<<20 || alloc > 32<<20 {
					t.Errorf("read %d MiB and allocated %d MiB of a 1 GiB line", g.off>>20, alloc>>20)
				}
			})
		}
	}
}

// A line of exactly MaxLine bytes is read; one byte more is not; the
// whole-text parsers agree with the streams.
func TestMaxLineEdge(t *testing.T) {
	for _, n := range []int{MaxLine, MaxLine + 1} {
		text := []byte("16666666\n" + strings.Repeat(" ", n-5) + "1 2 3\n")
		_, perr := ParseSurfaceFlingerLatency(text)
		_, _, serr := ScanSurfaceFlingerLatency(bytes.NewReader(text))
		_, rerr := ReadText(bytes.NewReader(text), SurfaceFlingerLatencySource, 0)
		g := []byte("---PROFILEDATA---\nFlags,IntendedVsync,FrameCompleted,\n" + strings.Repeat(" ", n-6) + "0,1,2,\n---PROFILEDATA---\n")
		_, gperr := ParseGfxInfo(g)
		_, gserr := ScanGfxInfo(bytes.NewReader(g))
		for name, err := range map[string]error{"Parse": perr, "Scan": serr, "ReadText": rerr, "ParseGfxInfo": gperr, "ScanGfxInfo": gserr} {
			if long := errors.Is(err, ErrLineTooLong); long != (n > MaxLine) || !long && err != nil {
				t.Errorf("%s, a line of %d bytes: %v", name, n, err)
			}
		}
		if perr != nil && serr != nil && perr.Error() != serr.Error() {
			t.Errorf("Parse and Scan differ:\n%v\n%v", perr, serr)
		}
	}
}

// ReadText stops at its limit, having held no more than it, whatever the
// length of the text: a GiB of ordinary lines is refused at 16 MiB.
func TestReadTextLimit(t *testing.T) {
	g := &genReader{body: []byte("  unrelated line of ordinary device text 12345 67890\n"), size: 1 << 30}
	var err error
	alloc := allocated(func() { _, err = ReadText(g, MeminfoSource, 16<<20) })
	if !errors.Is(err, ErrTextTooLong) || !strings.HasPrefix(err.Error(), "dumpsys meminfo: more than 16777216 bytes") {
		t.Errorf("err %v", err)
	}
	if g.off > 20<<20 || alloc > 48<<20 {
		t.Errorf("read %d MiB, allocated %d MiB of a 1 GiB text with a 16 MiB limit", g.off>>20, alloc>>20)
	}
	if b, err := ReadText(strings.NewReader("a\nb"), "x", 3); err != nil || string(b) != "a\nb" {
		t.Errorf("a text of the limit: %q, %v", b, err)
	}
}

// normSamples are texts with every turn Normalize makes, and the bytes
// around them that a stream can cut.
var normSamples = []string{
	"", "a", "\r", "\n", "\r\n", "\r\r\n", "\r\r\r", "a\rb\r\nc\r\r\nd\n\re", "\xEF\xBB\xBFx\r\n", "\xEF\xBB", "\xFF", "\xFF\xFE",
	string(utf16Of("héllo 😀\r\nwörld\r", binary.LittleEndian)), string(utf16Of("x\r\r\ny😀", binary.BigEndian)),
	"\xFF\xFEa", "\xFF\xFE\x00\xD8a\x00", "\xFF\xFE\x00\xD8", "\xFF\xFE\x00\xDCa\x00", "\xFE\xFF\xD8\x00\xDC\x00\x00a",
	"\xFF\xFE\x00\xD8\x00\xD8\x00\xDC", string(utf16Of("\xEF\xBB\xBF\ufeffx", binary.LittleEndian)),
}

// readAll reads r through a reader that returns at most a few bytes at a
// time, so every turn of the text meets a cut.
func normStream(b []byte, chunk func(io.Reader) io.Reader) ([]byte, error) {
	return io.ReadAll(newNormReader(chunk(bytes.NewReader(b))))
}

// TestNormReaderMatchesNormalize: the stream turns text exactly as
// Normalize does, however its reads are cut.
func TestNormReaderMatchesNormalize(t *testing.T) {
	chunks := map[string]func(io.Reader) io.Reader{
		"whole":    func(r io.Reader) io.Reader { return r },
		"one byte": iotest.OneByteReader,
		"halves":   iotest.HalfReader,
	}
	for _, s := range normSamples {
		want := Normalize([]byte(s))
		for name, chunk := range chunks {
			got, err := normStream([]byte(s), chunk)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s: %q → %q, %v; Normalize %q", name, s, got, err, want)
			}
		}
	}
}

func FuzzNormReader(f *testing.F) {
	for _, s := range normSamples {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, b []byte, cut uint8) {
		want := Normalize(slices.Clone(b))
		got, err := normStream(b, func(r io.Reader) io.Reader { return &cutReader{r: r, n: int(cut%7) + 1} })
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%q → %q, %v; Normalize %q", b, got, err, want)
		}
		if rt, err := ReadText(bytes.NewReader(b), "fuzz", 0); err != nil || !bytes.Equal(rt, want) {
			t.Fatalf("ReadText %q → %q, %v; Normalize %q", b, rt, err, want)
		}
	})
}

// cutReader returns at most n bytes a read.
type cutReader struct {
	r io.Reader
	n int
}

func (c *cutReader) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

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
	wide := utf16Of(string(crlf), binary.LittleEndian)
	var want *GfxInfoScan
	var err error
	plainAlloc := allocated(func() { want, err = ScanGfxInfo(bytes.NewReader(plain)) })
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string][]byte{"CRLF": crlf, "UTF-16LE": wide} {
		scanMatchesParse(t, text, func(t []byte) (*GfxInfoScan, error) { return ScanGfxInfo(bytes.NewReader(t)) })
		var sc *GfxInfoScan
		alloc := allocated(func() { sc, err = ScanGfxInfo(bytes.NewReader(text)) })
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
	plainAlloc = allocated(func() { _, present, err = ScanSurfaceFlingerLatency(bytes.NewReader(gen.Bytes())) })
	if err != nil {
		t.Fatal(err)
	}
	sfCRLF := bytes.ReplaceAll(gen.Bytes(), []byte("\n"), []byte("\r\n"))
	var got []int64
	alloc := allocated(func() { _, got, err = ScanSurfaceFlingerLatency(bytes.NewReader(sfCRLF)) })
	if err != nil || !slices.Equal(got, present) {
		t.Fatalf("CRLF: %d frames, %v; want %d", len(got), err, len(present))
	}
	if alloc > plainAlloc+4<<20 {
		t.Errorf("SurfaceFlinger CRLF: %d KiB allocated to read %d KiB (plain: %d KiB)", alloc>>10, len(sfCRLF)>>10, plainAlloc>>10)
	}
}

// A wrapped histogram, and processes and windows, are kept: each is
// bounded, so repeating them does not grow the parse without end.
func TestGfxInfoRepeatsBounded(t *testing.T) {
	hist := "HISTOGRAM: 5ms=1\n" + strings.Repeat(" 6ms=2 7ms=3 8ms=4 9ms=5\n", MaxLine/24+1)
	for name, text := range map[string]string{
		"wrapped histogram": hist,
		"processes":         strings.Repeat("** Graphics info for pid 1 [com.x] **\n", gfxMaxSections+1),
		"windows":           strings.Repeat("---PROFILEDATA---\n", 2*gfxMaxSections+4),
	} {
		_, perr := ParseGfxInfo([]byte(text))
		_, serr := ScanGfxInfo(strings.NewReader(text))
		if perr == nil || serr == nil || perr.Error() != serr.Error() || excerpt.Check(perr.Error()) != nil {
			t.Errorf("%s: Parse %v, Scan %v", name, perr, serr)
		}
	}
	if _, err := ParseGfxInfo([]byte(hist)); !errors.Is(err, ErrLineTooLong) || !strings.Contains(err.Error(), "line 1:") {
		t.Errorf("wrapped histogram: %v", err)
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
			want := FrameSummarizeSurfaceFlinger(present, period)
			for _, chunk := range []int{1, 2, 3, 5, 64, 1 << 16} {
				var st SurfaceFlingerTimes
				for _, p := range present {
					st.add(p)
				}
				if got := st.Present(); !slices.Equal(got, present) && n > 0 {
					t.Fatalf("%d frames: Present differs", n)
				}
				if got := st.summarize(period, chunk); !equalSummaries(got, want) || got.Source != want.Source || got.JankDefinition != want.JankDefinition || got.RefreshPeriodMS != want.RefreshPeriodMS {
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
	plain := allocated(func() { _, present, err = ScanSurfaceFlingerLatency(bytes.NewReader(gen.Bytes())) })
	if err != nil {
		t.Fatal(err)
	}
	var st *SurfaceFlingerTimes
	compact := allocated(func() { _, st, err = ScanSurfaceFlingerTimes(bytes.NewReader(gen.Bytes())) })
	if err != nil || !slices.Equal(st.Present(), present) {
		t.Fatalf("%v", err)
	}
	if got, want := st.Summarize(8_333_333), FrameSummarizeSurfaceFlinger(present, 8_333_333); !equalSummaries(got, want) {
		t.Errorf("summary\n got %+v\nwant %+v", got, want)
	}
	if compact > plain*2/3 {
		t.Errorf("%d KiB allocated, %d KiB for []int64", compact>>10, plain>>10)
	}
}

func equalSummaries(a, b FrameSummary) bool {
	return a.Frames == b.Frames && a.FPS == b.FPS && a.FrameTimeMS == b.FrameTimeMS && a.PerfDog == b.PerfDog &&
		a.Chromium == b.Chromium && slices.Equal(a.Janked.PerfDog, b.Janked.PerfDog) && slices.Equal(a.Janked.Chromium, b.Janked.Chromium) &&
		a.Jank == b.Jank && a.DurationS == b.DurationS
}

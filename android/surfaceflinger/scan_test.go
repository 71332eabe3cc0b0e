package surfaceflinger

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/internal/capturegen"
	"github.com/perfgate/perfgate/internal/fixtures"
)

// scanChunks are the ways a capture is handed to ScanLatency: whole, and
// cut so that the buffer ends inside rows at every place.
var scanChunks = map[string]func(io.Reader) io.Reader{
	"whole":  func(r io.Reader) io.Reader { return r },
	"halves": iotest.HalfReader,
	"4099":   func(r io.Reader) io.Reader { return &cutReader{r: r, n: 4099} },
}

// cutReader returns at most n bytes a read.
type cutReader struct {
	r io.Reader
	n int
}

func (c *cutReader) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

// checkScan compares ScanLatency and ScanTimes on text, cut every way of
// scanChunks, with ParseLatency, the plain reading a line at a time.
func checkScan(t *testing.T, name string, text []byte) {
	t.Helper()
	want, perr := ParseLatency(text)
	for cut, chunk := range scanChunks {
		got, present, serr := ScanLatency(chunk(bytes.NewReader(text)))
		if (perr == nil) != (serr == nil) || perr != nil && perr.Error() != serr.Error() {
			t.Fatalf("%s (%s): ParseLatency error %v, ScanLatency error %v", name, cut, perr, serr)
		}
		if perr != nil {
			continue
		}
		if !slices.Equal(present, want.PresentTimes()) || got.RefreshPeriod != want.RefreshPeriod ||
			got.Truncated != want.Truncated || got.Dropped != want.Dropped || !reflect.DeepEqual(got.Rejected, want.Rejected) {
			t.Fatalf("%s (%s): scan %d frames, period %d, dropped %d %v, truncated %v; parse %d, %d, %d %v, %v", name, cut,
				len(present), got.RefreshPeriod, got.Dropped, got.Rejected, got.Truncated,
				len(want.Frames), want.RefreshPeriod, want.Dropped, want.Rejected, want.Truncated)
		}
		_, st, err := ScanTimes(chunk(bytes.NewReader(text)))
		if err != nil || !slices.Equal(st.Present(), present) {
			t.Fatalf("%s (%s): ScanTimes %v, %d frames; want %d", name, cut, err, st.Len(), len(present))
		}
	}
}

// TestScanMatchesParseOnShapes: on every shape of capturegen.HourShapes
// (a tenth of an hour each), the fast scan reads what ParseLatency reads.
func TestScanMatchesParseOnShapes(t *testing.T) {
	for _, s := range capturegen.HourShapes() {
		s.Frames /= 10
		text := s.Bytes("surfaceflinger")
		checkScan(t, s.Name, text)
		if l, _ := ParseLatency(text); len(l.Frames) < s.Frames/2 {
			t.Fatalf("%s: %d frames of %d: the shape is not a capture of rows", s.Name, len(l.Frames), s.Frames)
		}
	}
}

// TestScanMatchesParseOnFixtures: on every real capture (any kind: one
// that is not --latency must fail alike), the fast scan reads what
// ParseLatency reads.
func TestScanMatchesParseOnFixtures(t *testing.T) {
	dir := fixtures.Dir(t)
	n := 0
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".md") {
			return err
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checkScan(t, path, text)
		if strings.Contains(path, "sf_latency") {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatalf("no sf_latency capture in %s", dir)
	}
}

// FuzzSfRowAt: a line sfRowAt takes is three integers, as the general
// path reads them, and its B is theirs.
func FuzzSfRowAt(f *testing.F) {
	for _, s := range []string{"1\t2\t3\n", "16666667 9223372036854775807 5\n", "9223372036854775808\t1\t2\n",
		" 12345678  123456789\t1 \n", "1 2\n", "1 2 3 4\n", "1a 2 3\n", "1 00000000000000000001 3\n", "1 2 3", "1 2 3\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		present, n := sfRowAt(b)
		if n == 0 {
			return // the general path decides
		}
		ln := b[:n]
		if bytes.IndexByte(ln, '\n') != n-1 {
			t.Fatalf("sfRowAt(%q) took %q, not one line", b, ln)
		}
		var want [3]int64
		k := 0
		for fld := range bytes.FieldsSeq(ln) {
			v, good := devtext.ParseInt(fld)
			if !good || k == 3 || fld[0] == '+' || fld[0] == '-' || len(fld) > 19 {
				t.Fatalf("sfRowAt(%q) = %d, but field %q", b, present, fld)
			}
			want[k] = v
			k++
		}
		if k != 3 || present != want[1] {
			t.Fatalf("sfRowAt(%q) = %d, want %v (%d fields)", b, present, want, k)
		}
	})
}

// BenchmarkScanTimesShapes is ScanTimes alone on every shape of
// capturegen.HourShapes held in memory.
func BenchmarkScanTimesShapes(b *testing.B) {
	for _, s := range capturegen.HourShapes() {
		text := s.Bytes("surfaceflinger")
		b.Run(s.Name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for range b.N {
				if _, _, err := ScanTimes(bytes.NewReader(text)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestScanMatchesParseLineEnds: captures whose lines end every way
// Normalize turns ("\n", "\r\n", "\r\r\n", a lone "\r"), mixed at random
// from fixed seeds, with rows cut short, pending fences and lines that are
// not rows, are read by the fast scan as ParseLatency reads them, errors
// and their line numbers included.
func TestScanMatchesParseLineEnds(t *testing.T) {
	ends := []string{"\n", "\r\n", "\r\r\n", "\r", " \r\n", "\t\r"}
	for seed := range uint64(100) {
		rng := rand.New(rand.NewPCG(seed, 35))
		var b strings.Builder
		b.WriteString("16666666" + ends[rng.IntN(len(ends))])
		t0 := int64(1_000_000_000)
		for range 50 + rng.IntN(400) {
			t0 += int64(8_000_000 + rng.IntN(30_000_000))
			switch r := rng.IntN(100); {
			case r < 2 && seed%3 == 0:
				b.WriteString("garbage here") // an error, at some line
			case r < 4:
				fmt.Fprintf(&b, "%d %d", t0, t0) // a row cut short
			case r < 6:
				fmt.Fprintf(&b, "%d\t9223372036854775807\t%d", t0, t0)
			case r < 8:
				b.WriteString("")
			default:
				fmt.Fprintf(&b, "%d\t%d\t%d", t0-4_000_000, t0, t0-2_000_000)
			}
			b.WriteString(ends[rng.IntN(len(ends))])
		}
		checkScan(t, fmt.Sprintf("seed %d", seed), []byte(b.String()))
	}
}

// FuzzScanMatchesParse: on any text the fast scan reads what
// ParseLatency reads, or fails with its error.
func FuzzScanMatchesParse(f *testing.F) {
	for _, s := range []string{
		"16666666\n1 2 3\n4 5 6\n",
		"16666666\r\n1 2 3\r\n4 5 6\r\n",
		"16666666\r1 2 3\r\r\n4 5 6\r",
		"16666666\n1 2 3\r4 5\r\n",
		"16666666\n1 2\r3\n",
		"\xef\xbb\xbf16666666\r\n1 2 3\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkScan(t, "fuzz", b)
	})
}

// TestScanMatchesParseLongLines: lines at devtext.MaxLine and one byte
// over, ended by "\r\n", and text over a megabyte with no "\n" whose lines
// lone "\r"s end, are read by the fast scan as ParseLatency reads them.
func TestScanMatchesParseLongLines(t *testing.T) {
	rows := strings.Repeat("1 2 3\r", devtext.MaxLine/6+100)
	for name, text := range map[string]string{
		"CRLF at MaxLine":     "16666666\r\n" + strings.Repeat(" ", devtext.MaxLine-5) + "1 2 3\r\n4 5 6\r\n",
		"CRLF over MaxLine":   "16666666\r\n" + strings.Repeat(" ", devtext.MaxLine-4) + "1 2 3\r\n",
		"CRCRLF at MaxLine":   "16666666\r\r\n" + strings.Repeat(" ", devtext.MaxLine-5) + "1 2 3\r\r\n",
		"lone CRs, no LF":     "16666666\r" + rows,
		"lone CRs, then long": "16666666\r" + rows + strings.Repeat("7", devtext.MaxLine+1) + "\n",
		"lone CR rows and LF": "16666666\n" + rows + "\r\n4 5 6\n",
	} {
		checkScan(t, name, []byte(text))
	}
}

package surfaceflinger

import (
	"bytes"
	"io"
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

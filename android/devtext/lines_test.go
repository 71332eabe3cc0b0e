package devtext

import (
	"bytes"
	"encoding/binary"
	"io"
	"runtime"
	"slices"
	"testing"
	"testing/iotest"
	"unicode/utf16"
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
	return io.ReadAll(NewNormReader(chunk(bytes.NewReader(b))))
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

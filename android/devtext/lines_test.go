package devtext

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"github.com/perfgate/perfgate/internal/capturegen"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf16"
)

// normSamples are texts with every turn Normalize makes, and the bytes
// around them that a stream can cut.
var normSamples = []string{
	"", "a", "\r", "\n", "\r\n", "\r\r\n", "\r\r\r", "a\rb\r\nc\r\r\nd\n\re", "\xEF\xBB\xBFx\r\n", "\xEF\xBB", "\xFF", "\xFF\xFE",
	string(capturegen.UTF16("héllo 😀\r\nwörld\r", binary.LittleEndian)), string(capturegen.UTF16("x\r\r\ny😀", binary.BigEndian)),
	"\xFF\xFEa", "\xFF\xFE\x00\xD8a\x00", "\xFF\xFE\x00\xD8", "\xFF\xFE\x00\xDCa\x00", "\xFE\xFF\xD8\x00\xDC\x00\x00a",
	"\xFF\xFE\x00\xD8\x00\xD8\x00\xDC", string(capturegen.UTF16("\xEF\xBB\xBF\ufeffx", binary.LittleEndian)),
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

// TestUnbuffered: what a bufio.Reader holds and the rest of its reader,
// in order, after a peek and a discard, whole and cut in reads.
func TestUnbuffered(t *testing.T) {
	text := bytes.Repeat([]byte("0123456789abcdef\r\n"), 10_000)
	for _, cut := range []int{1, 7, 4096, len(text)} {
		r := &cutReader{r: bytes.NewReader(text), n: cut}
		br := bufio.NewReaderSize(r, 64<<10)
		br.Peek(min(1000, cut))
		br.Discard(3)
		got, err := io.ReadAll(Unbuffered(br, r))
		if err != nil || !bytes.Equal(got, text[3:]) {
			t.Fatalf("reads of %d: %d bytes, %v; want %d", cut, len(got), err, len(text)-3)
		}
	}
}

// BenchmarkNormReaderUTF16 is NormReader on the utf16-crlf shape of
// capturegen.HourShapes (an hour of SurfaceFlinger rows, UTF-16LE, CRLF).
func BenchmarkNormReaderUTF16(b *testing.B) {
	for _, s := range capturegen.HourShapes() {
		if !s.UTF16 {
			continue
		}
		text := s.Bytes("surfaceflinger")
		buf := make([]byte, 1<<20)
		for name, open := range map[string]func(io.Reader) *NormReader{"norm": NewNormReader, "decode": NewDecoder} {
			b.Run(name, func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				for range b.N {
					nr := open(bytes.NewReader(text))
					for {
						if _, err := nr.Read(buf); err != nil {
							break
						}
					}
				}
			})
		}
	}
}

// TestDecoderKeepsLineEnds: NewDecoder returns the text decoded as
// Normalize decodes it, with every "\r" left, wherever a read ends: UTF-16
// in both byte orders with every line end, surrogate pairs and unpaired
// halves, and UTF-8 with and without its byte-order mark.
func TestDecoderKeepsLineEnds(t *testing.T) {
	body := "16666666\r\n1 2 3\r\r\n\r4 5 6\r😀\r\n\n7\r"
	texts := map[string][]byte{
		"utf8":     []byte(body),
		"utf8-bom": append([]byte{0xEF, 0xBB, 0xBF}, body...),
	}
	want := map[string]string{"utf8": body, "utf8-bom": body}
	for name, order := range map[string]binary.AppendByteOrder{"le": binary.LittleEndian, "be": binary.BigEndian} {
		bom := order.AppendUint16(nil, 0xFEFF)
		var units []byte
		for _, u := range utf16.Encode([]rune(body)) {
			units = order.AppendUint16(units, u)
		}
		texts["utf16"+name] = append(bom, units...)
		want["utf16"+name] = body
		unpaired := order.AppendUint16(order.AppendUint16(append([]byte(nil), bom...), 0xD800), '\r')
		texts["unpaired"+name], want["unpaired"+name] = unpaired, "\uFFFD\r"
	}
	// Long ASCII runs, read many units at a time, with a wider character
	// at every place among them.
	for at := range 40 {
		long := strings.Repeat("1234567 89\r\n", 8)
		long = long[:at] + "é" + long[at:]
		for _, order := range []binary.AppendByteOrder{binary.LittleEndian, binary.BigEndian} {
			text := order.AppendUint16(nil, 0xFEFF)
			for _, u := range utf16.Encode([]rune(long)) {
				text = order.AppendUint16(text, u)
			}
			name := fmt.Sprintf("long %v é at %d", order, at)
			texts[name], want[name] = text, long
		}
	}
	for name, text := range texts {
		for _, cut := range []int{1, 2, 3, 5, 16, 17, 31, 33, 64, 1 << 20} {
			got, err := io.ReadAll(NewDecoder(&chunkReader{b: text, n: cut}))
			if err != nil || string(got) != want[name] {
				t.Fatalf("%s, reads of %d bytes: %q, %v; want %q", name, cut, got, err, want[name])
			}
		}
	}
}

// chunkReader returns b n bytes at a time.
type chunkReader struct {
	b []byte
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.b)
	c.b = c.b[k:]
	return k, nil
}

// TestNormReaderUTF16LineEndsAtCuts: UTF-16 text turned in one pass keeps
// its line ends exactly as Normalize turns them wherever a read ends: a
// "\r" and its "\n", or the "\r"s after a turned "\r", in two reads, a "\r"
// at every place among the eight code units decoded at once, and a "\r"
// next to a surrogate pair or an unpaired one.
func TestNormReaderUTF16LineEndsAtCuts(t *testing.T) {
	ends := []string{"\r\n", "\r", "\r\r\n", "\r\r", "\n\r", "\r\n\r\n", "\r😀", "😀\r\n"}
	for _, order := range []binary.AppendByteOrder{binary.LittleEndian, binary.BigEndian} {
		for i := range 2 * len(ends) {
			end, unpaired := ends[i%len(ends)], i >= len(ends)
			for at := range 20 {
				text := strings.Repeat("a", at) + end + strings.Repeat("b", 19-at) + end + "tail"
				b := capturegen.UTF16(text, order)
				if unpaired { // a high surrogate with no low half before the end
					b = slices.Concat(b[:2+2*at], order.AppendUint16(nil, 0xD800), b[2+2*at:])
				}
				want := Normalize(slices.Clone(b))
				for cut := 1; cut < len(b); cut++ {
					got, err := io.ReadAll(NewNormReader(io.MultiReader(bytes.NewReader(b[:cut]), bytes.NewReader(b[cut:]))))
					if err != nil || !bytes.Equal(got, want) {
						t.Fatalf("%v %q cut at %d: %q, %v; Normalize %q", order, text, cut, got, err, want)
					}
				}
			}
		}
	}
}

// FuzzDecoder: NewDecoder returns what Normalize decodes, before it turns
// line ends, however the reads are cut.
func FuzzDecoder(f *testing.F) {
	for _, s := range normSamples {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, b []byte, cut uint8) {
		want := b
		switch {
		case len(b) >= 2 && b[0] == 0xFF && b[1] == 0xFE:
			want = decodeUTF16(b[2:], binary.LittleEndian)
		case len(b) >= 2 && b[0] == 0xFE && b[1] == 0xFF:
			want = decodeUTF16(b[2:], binary.BigEndian)
		case len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF:
			want = b[3:]
		}
		got, err := io.ReadAll(NewDecoder(&chunkReader{b: b, n: int(cut%9) + 1}))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%q → %q, %v; want %q", b, got, err, want)
		}
	})
}

package devtext

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"unicode/utf16"
	"unicode/utf8"
)

// gfxParseInt parses a decimal int64 with an optional sign, without
// allocating; it rejects overflow.
func ParseInt(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	neg := false
	if b[0] == '-' || b[0] == '+' {
		neg = b[0] == '-'
		b = b[1:]
		if len(b) == 0 {
			return 0, false
		}
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		if v > (1<<63)/10 {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
		if v > 1<<63 {
			return 0, false
		}
	}
	if neg {
		return -int64(v), true // 1<<63 wraps to MinInt64, which is exact
	}
	if v > 1<<63-1 {
		return 0, false
	}
	return int64(v), true
}

// readerSize is the size of what r reads, when r can tell (a regular file
// read from its start, a bytes or strings reader), else 0.
func ReaderSize(r io.Reader) int64 {
	switch r := r.(type) {
	case interface{ Size() int64 }:
		return r.Size()
	case *os.File:
		st, err := r.Stat()
		if err != nil || !st.Mode().IsRegular() {
			return 0
		}
		if off, err := r.Seek(0, io.SeekCurrent); err == nil && off < st.Size() {
			return st.Size() - off
		}
	}
	return 0
}

// scanBuffer is the read buffer of the streaming parsers: large reads
// keep a long capture's system calls few.
const ScanBuffer = 1 << 20

// MaxLine is the longest line, in bytes without its end, a parser of this
// package reads; a longer one is an error (ErrLineTooLong) that quotes only
// its start, so a capture of one 1 GB line is neither held nor quoted.
//
// The longest lines of the real captures (../shared/fixtures, after
// Normalize), by format: a display dump 2,531 bytes, gfxinfo 1,363 (a
// PROFILEDATA row of 23 columns is under 400), an logcat.ANR trace 1,196,
// /proc/stat 901 (its intr line on 8 cores; on a phone's ~1,000 interrupts
// some 11 KB), logcat 710, am start 615, battery 403, meminfo 136,
// SurfaceFlinger --latency 59 (three int64s are at most 60). 1 MiB leaves
// room for 400 times the longest, and for 90 times an intr line of 1,000
// interrupts, while a streaming parser's memory stays a few MiB.
const MaxLine = 1 << 20

// ErrLineTooLong is matched (errors.Is) by the *ParseError of a line longer
// than MaxLine.
var ErrLineTooLong = errors.New("line too long")

// ErrTextTooLong is matched (errors.Is) by the *ParseError of ReadText for
// a text longer than its limit.
var ErrTextTooLong = errors.New("text too long")

// LineStartKept is how much of a line too long to read its *ParseError
// keeps: more than its quote shows.
const LineStartKept = 512

// LineTooLong is the error of line lineNo of source, of which start holds
// the first bytes, for being longer than MaxLine.
func LineTooLong(source string, lineNo int, start []byte) *ParseError {
	return &ParseError{
		Source: source, Line: lineNo, Text: string(start[:min(len(start), LineStartKept)]),
		Reason: fmt.Sprintf("longer than %d bytes, far longer than any real line of this output", MaxLine),
		Err:    ErrLineTooLong,
	}
}

// ReadText reads all of r and returns it as Normalize would turn it,
// decoding as it reads, so no text is held twice. It stops with a
// *ParseError naming source (the command the text came from) at the first
// line longer than MaxLine (ErrLineTooLong, with the line's number), or
// once the text passes limit bytes (ErrTextTooLong): a file of one 1 GB
// line, or of a billion short ones, is refused having read at most a MiB,
// or limit bytes, of it. A limit ≤ 0 is none.
func ReadText(r io.Reader, source string, limit int64) ([]byte, error) {
	nr := NewNormReader(r)
	var out []byte
	if size := ReaderSize(r); size > 0 {
		// Room for a file's text at once, up to a few MiB: a file that is
		// one long line is refused after its first MiB, and a larger text
		// grows by doubling.
		out = make([]byte, 0, min(size+1, readTextReserve))
	}
	buf := make([]byte, 64<<10)
	lineNo, lineAt := 1, 0 // the line being read: its number, where it starts in out
	for {
		n, err := nr.Read(buf)
		if limit > 0 && int64(len(out)+n) > limit {
			return nil, &ParseError{Source: source, Err: ErrTextTooLong,
				Reason: fmt.Sprintf("more than %d bytes, far more than any real output of it", limit)}
		}
		from := len(out)
		if len(out)+n > cap(out) {
			// Doubled, but never past the limit: a text refused at its
			// limit has held no more than the limit.
			c := max(2*cap(out), len(out)+n, 4096)
			if limit > 0 {
				c = int(min(int64(c), limit))
			}
			out = append(make([]byte, 0, c), out...)
		}
		out = append(out, buf[:n]...)
		for {
			i := bytes.IndexByte(out[from:], '\n')
			if i < 0 {
				break
			}
			end := from + i
			if end-lineAt > MaxLine {
				return nil, LineTooLong(source, lineNo, out[lineAt:end])
			}
			lineNo, lineAt, from = lineNo+1, end+1, end+1
		}
		if len(out)-lineAt > MaxLine {
			return nil, LineTooLong(source, lineNo, out[lineAt:])
		}
		switch {
		case errors.Is(err, io.EOF):
			return out, nil
		case err != nil:
			return nil, err
		}
	}
}

// readTextReserve is the most ReadText reserves before it reads.
const readTextReserve = 4 << 20

// NormReader is Normalize as a stream: it returns what it reads from r
// decoded from UTF-16 after a byte-order mark, without a UTF-8 byte-order
// mark, and with "\r\n", "\r\r\n" and a lone "\r" turned into "\n", byte
// for byte as Normalize turns the whole text.
type NormReader struct {
	r     io.Reader
	order binary.ByteOrder // UTF-16's byte order; nil for UTF-8
	begun bool             // the byte-order mark was looked for
	buf   []byte           // read from r; buf[:held] is not decoded yet
	held  int
	high  uint16 // a UTF-16 high surrogate waiting for its low half; 0 none
	cr    bool   // a "\r" was just turned into "\n": drop the "\r"s and one "\n" after it
	keep  bool   // line ends are left as they are (NewDecoder)
	dec   []byte // UTF-16 decoded, before the line ends are turned
	conv  []byte // with the line ends turned
	out   []byte // text not returned yet: in buf, dec or conv
	err   error
}

func NewNormReader(r io.Reader) *NormReader {
	return &NormReader{r: r, buf: make([]byte, 64<<10)}
}

// NewDecoder is NewNormReader for a reader that turns line ends itself:
// it decodes UTF-16 after a byte-order mark and drops a UTF-8 one, but
// leaves every "\r" in the text.
func NewDecoder(r io.Reader) *NormReader {
	return &NormReader{r: r, buf: make([]byte, 64<<10), keep: true}
}

func (n *NormReader) Read(p []byte) (int, error) {
	for len(n.out) == 0 {
		if n.err != nil {
			return 0, n.err
		}
		n.fill()
	}
	k := copy(p, n.out)
	n.out = n.out[k:]
	return k, nil
}

// fill reads once more from r and turns what it can into out.
func (n *NormReader) fill() {
	k, err := n.r.Read(n.buf[n.held:])
	raw := n.buf[:n.held+k]
	n.held = 0
	if err != nil {
		n.err = err
	}
	if !n.begun {
		if len(raw) < 3 && err == nil {
			n.held = len(raw) // the mark may not have come whole yet
			return
		}
		n.begun = true
		switch {
		case len(raw) >= 2 && raw[0] == 0xFF && raw[1] == 0xFE:
			n.order, raw = binary.LittleEndian, raw[2:]
		case len(raw) >= 2 && raw[0] == 0xFE && raw[1] == 0xFF:
			n.order, raw = binary.BigEndian, raw[2:]
		case len(raw) >= 3 && raw[0] == 0xEF && raw[1] == 0xBB && raw[2] == 0xBF:
			raw = raw[3:]
		}
	}
	if n.order != nil {
		// Decoded with its line ends turned, in the same pass.
		n.out = n.decode(raw, err != nil)
		return
	}
	text := raw
	if n.keep || !n.cr && bytes.IndexByte(text, '\r') < 0 {
		n.out = text // nothing to turn: returned as read or decoded
		return
	}
	n.out = n.conv[:0]
	for len(text) > 0 {
		if n.cr {
			switch text[0] {
			case '\r':
				text = text[1:]
				continue
			case '\n':
				text = text[1:]
			}
			n.cr = false
			continue
		}
		i := bytes.IndexByte(text, '\r')
		if i < 0 {
			n.out = append(n.out, text...)
			break
		}
		n.out = append(append(n.out, text[:i]...), '\n')
		text, n.cr = text[i+1:], true
	}
	n.conv = n.out
}

// decode turns the UTF-16 code units of raw into UTF-8, as utf16.Decode
// and Normalize do: an unpaired surrogate is U+FFFD. It turns the line
// ends in the same pass, as fill does for UTF-8 text: a "\r" is "\n", and
// the "\r"s and one "\n" right after it are dropped, even in the next read
// (n.cr). An odd last byte waits in buf for the next read; at the end
// (last) it is dropped, and a high surrogate still waiting is U+FFFD.
func (n *NormReader) decode(raw []byte, last bool) []byte {
	units := len(raw) / 2
	// Room for every unit at its widest (3 bytes) and a last U+FFFD, so
	// ASCII is stored by index, not appended.
	if need := 3*units + 3; cap(n.dec) < need {
		n.dec = make([]byte, 0, need)
	}
	dec := n.dec[:cap(n.dec)]
	j := 0
	// ASCII is read eight code units at a time: a unit is ASCII when its
	// high byte is 0 and its low byte below 0x80.
	mask, shift, lf := uint64(0xFF80FF80FF80FF80), 0, [2]byte{'\n', 0}
	keep := uint64(0) // all ones when "\r"s are kept
	if n.keep {
		keep = ^keep
	}
	if n.order == binary.ByteOrder(binary.BigEndian) {
		mask, shift, lf = 0x80FF80FF80FF80FF, 8, [2]byte{0, '\n'}
	}
	for i := 0; i < units; i++ {
		if n.high == 0 && !n.cr {
			src, dst := raw[2*i:2*units], dec[j:]
			if n.keep {
				k := packASCII(dst, src, mask, shift)
				src, dst = src[2*k:], dst[k:]
			}
			for len(src) >= 16 && len(dst) >= 8 {
				w0, w1 := binary.LittleEndian.Uint64(src), binary.LittleEndian.Uint64(src[8:])
				if (w0|w1)&mask != 0 {
					break
				}
				w := uint64(pack4(w0>>shift)) | uint64(pack4(w1>>shift))<<32
				binary.LittleEndian.PutUint64(dst, w)
				if c := crBytes(w) &^ keep; c != 0 {
					// Kept up to the "\r": of "\r\n" the "\n" is read
					// on, any other "\r" is unit's to turn.
					k := bits.TrailingZeros64(c) / 8
					if 2*k+4 > len(src) || src[2*k+2] != lf[0] || src[2*k+3] != lf[1] {
						src, dst = src[2*k:], dst[k:]
						break
					}
					src, dst = src[2*k+2:], dst[k:]
					continue
				}
				src, dst = src[16:], dst[8:]
			}
			i, j = units-len(src)/2, len(dec)-len(dst)
			if i == units {
				break
			}
		}
		n.dec = n.unit(dec[:j], n.order.Uint16(raw[2*i:]))
		dec, j = n.dec[:cap(n.dec)], len(n.dec)
	}
	n.dec = dec[:j]
	if len(raw)%2 == 1 && !last {
		n.buf[0] = raw[len(raw)-1]
		n.held = 1
	}
	if last && n.high != 0 {
		n.high = 0
		n.dec = utf8.AppendRune(n.dec, utf8.RuneError)
	}
	return n.dec
}

// packASCII stores in dst the ASCII of the code units of src, 32 bytes
// (16 units) at a time, as far as they are ASCII (mask and shift as decode
// has them), and returns how many units it stored.
func packASCII(dst, src []byte, mask uint64, shift int) int {
	k := 0
	for ; 2*k+32 <= len(src) && k+16 <= len(dst); k += 16 {
		s := src[2*k : 2*k+32]
		w0, w1 := binary.LittleEndian.Uint64(s), binary.LittleEndian.Uint64(s[8:])
		w2, w3 := binary.LittleEndian.Uint64(s[16:]), binary.LittleEndian.Uint64(s[24:])
		if (w0|w1|w2|w3)&mask != 0 {
			break
		}
		d := dst[k : k+16]
		binary.LittleEndian.PutUint64(d, uint64(pack4(w0>>shift))|uint64(pack4(w1>>shift))<<32)
		binary.LittleEndian.PutUint64(d[8:], uint64(pack4(w2>>shift))|uint64(pack4(w3>>shift))<<32)
	}
	return k
}

// unit appends the UTF-8 of code unit u to dec, as utf16.Decode reads
// it after the units before: a high surrogate waits in n.high for its low
// half, and an unpaired one is U+FFFD.
func (n *NormReader) unit(dec []byte, u uint16) []byte {
	if n.cr {
		switch u {
		case '\r':
			return dec
		case '\n':
			n.cr = false
			return dec
		}
		n.cr = false
	}
	if n.high != 0 {
		h := n.high
		n.high = 0
		if u >= 0xDC00 && u < 0xE000 {
			return utf8.AppendRune(dec, utf16.DecodeRune(rune(h), rune(u)))
		}
		dec = utf8.AppendRune(dec, utf8.RuneError)
	}
	switch {
	case u == '\r' && !n.keep:
		n.cr = true
		dec = append(dec, '\n')
	case u >= 0xD800 && u < 0xDC00:
		n.high = u
	case u >= 0xDC00 && u < 0xE000:
		dec = utf8.AppendRune(dec, utf8.RuneError)
	default:
		dec = utf8.AppendRune(dec, rune(u))
	}
	return dec
}

// crBytes has the high bit set of each byte of w that is "\r", and
// maybe of bytes after the first such (a borrow), never before it: its
// lowest set bit is the first "\r" of w's bytes in little-endian order.
func crBytes(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	x := w ^ ones*'\r'
	return (x - ones) &^ x & highs
}

// pack4 is the low bytes of the four 16-bit units of w, in order: the
// ASCII text of four code units whose high bytes are 0.
func pack4(w uint64) uint32 {
	w = (w | w>>8) & 0x0000FFFF0000FFFF
	return uint32(w | w>>16)
}

// Unbuffered returns a reader of what br, reading r, holds and has not
// returned, then of the rest of r: a decoder (NewNormReader) that reads it
// reads r straight, not copied through br's buffer first.
func Unbuffered(br *bufio.Reader, r io.Reader) io.Reader {
	held, _ := br.Peek(br.Buffered())
	return io.MultiReader(bytes.NewReader(held), r)
}

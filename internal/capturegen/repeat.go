package capturegen

import (
	"encoding/binary"
	"io"
	"unicode/utf16"
)

// Repeat reads Head, then Body repeated, up to Len bytes in all, without
// holding them: a capture of any size for a test or benchmark. Like a
// file, it tells its size; it counts what it gave.
type Repeat struct {
	Head, Body []byte
	Len        int64
	off        int64
}

// OneLine is a single line of size bytes after head: digits, as a 1 GB
// capture of one line.
func OneLine(head string, size int64) *Repeat {
	return &Repeat{Head: []byte(head), Body: []byte("0123456789"), Len: size}
}

// Given is how many bytes it has read out so far.
func (g *Repeat) Given() int64 { return g.off }

// Size is Len, as a file's size.
func (g *Repeat) Size() int64 { return g.Len }

// Read reads the next bytes.
func (g *Repeat) Read(p []byte) (int, error) {
	if g.off >= g.Len {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && g.off < g.Len {
		var src []byte
		if h := int64(len(g.Head)); g.off < h {
			src = g.Head[g.off:]
		} else {
			k := (g.off - h) % int64(len(g.Body))
			src = g.Body[k:]
		}
		m := copy(p[n:], src[:min(int64(len(src)), g.Len-g.off)])
		n += m
		g.off += int64(m)
	}
	return n, nil
}

// UTF16 is s as UTF-16 with a byte-order mark, as PowerShell saves it.
func UTF16(s string, order binary.AppendByteOrder) []byte {
	b := []byte{0xFF, 0xFE}
	if order == binary.AppendByteOrder(binary.BigEndian) {
		b = []byte{0xFE, 0xFF}
	}
	for _, u := range utf16.Encode([]rune(s)) {
		b = order.AppendUint16(b, u)
	}
	return b
}

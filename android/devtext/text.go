package devtext

import (
	"bytes"
	"encoding/binary"
	"unicode/utf16"
)

// Normalize turns device text as users save it into plain UTF-8 with "\n"
// line ends: it decodes UTF-16LE/BE with a byte-order mark (Windows
// PowerShell's `adb shell ... > file`), drops a UTF-8 BOM and turns CRLF and
// lone CR (a pty on Android < 7, Windows consoles) into "\n". Every parser in
// this package calls it first, so callers may pass captures exactly as stored.
func Normalize(b []byte) []byte {
	switch {
	case len(b) >= 2 && b[0] == 0xFF && b[1] == 0xFE:
		b = decodeUTF16(b[2:], binary.LittleEndian)
	case len(b) >= 2 && b[0] == 0xFE && b[1] == 0xFF:
		b = decodeUTF16(b[2:], binary.BigEndian)
	case len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF:
		b = b[3:]
	}
	if bytes.IndexByte(b, '\r') < 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == '\r' {
			// "\r\n", "\r\r\n" (a pty over a CRLF console) and lone "\r" all end one line.
			for i+1 < len(b) && b[i+1] == '\r' {
				i++
			}
			if i+1 < len(b) && b[i+1] == '\n' {
				i++
			}
			out = append(out, '\n')
			continue
		}
		out = append(out, c)
	}
	return out
}

func decodeUTF16(b []byte, order binary.ByteOrder) []byte {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = order.Uint16(b[2*i:])
	}
	var buf bytes.Buffer
	buf.Grow(len(u))
	for _, r := range utf16.Decode(u) {
		buf.WriteRune(r)
	}
	return buf.Bytes()
}

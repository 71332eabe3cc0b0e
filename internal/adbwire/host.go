package adbwire

import (
	"errors"
	"fmt"
	"io"
)

// ErrMalformed marks input that breaks the wire format.
var ErrMalformed = errors.New("malformed adb data")

// MaxString is the longest host-protocol string: four hex digits cannot
// say more.
const MaxString = 0xffff

// AppendString appends s with its length in four hex digits, as adb's
// SendProtocolString does. A string longer than MaxString is cut to it, as
// a reply's payload may be; requests go through WriteRequest, which refuses
// them instead.
func AppendString(b []byte, s string) []byte {
	if len(s) > MaxString {
		s = s[:MaxString]
	}
	b = fmt.Appendf(b, "%04x", len(s))
	return append(b, s...)
}

// WriteRequest writes one host-protocol request in a single write. A
// request longer than MaxString is an error: cut, it would ask for
// something else.
func WriteRequest(w io.Writer, req string) error {
	if len(req) > MaxString {
		return fmt.Errorf("request of %d bytes is longer than adb's limit of %d", len(req), MaxString)
	}
	_, err := w.Write(AppendString(make([]byte, 0, 4+len(req)), req))
	return err
}

// ReadString reads one length-prefixed string: a request on the server's
// side, a FAIL reason or a reply's payload on the client's. A clean end
// of the stream before it is io.EOF.
func ReadString(r io.Reader) (string, error) {
	var hdr [4]byte
	if n, err := io.ReadFull(r, hdr[:]); err != nil {
		if n == 0 && err == io.EOF {
			return "", io.EOF
		}
		return "", cut("length prefix", err)
	}
	n, err := parseHex4(hdr)
	if err != nil {
		return "", err
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return "", cut(fmt.Sprintf("string of %d bytes", n), err)
	}
	return string(buf), nil
}

// parseHex4 decodes the four hex digits that prefix every host-protocol
// string.
func parseHex4(b [4]byte) (int, error) {
	n := 0
	for _, c := range b {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, fmt.Errorf("%w: length prefix %q is not 4 hex digits", ErrMalformed, b[:])
		}
		n = n<<4 | int(d)
	}
	return n, nil
}

// WriteOkay writes OKAY followed by each payload as a length-prefixed
// string, in a single write.
func WriteOkay(w io.Writer, payloads ...string) error {
	b := []byte("OKAY")
	for _, p := range payloads {
		b = AppendString(b, p)
	}
	_, err := w.Write(b)
	return err
}

// WriteFail writes FAIL and a length-prefixed reason.
func WriteFail(w io.Writer, reason string) error {
	_, err := w.Write(AppendString([]byte("FAIL"), reason))
	return err
}

// ReadStatus reads the start of a reply: OKAY (ok), or FAIL and its
// reason. Anything else is an error matching ErrMalformed.
func ReadStatus(r io.Reader) (ok bool, reason string, err error) {
	var st [4]byte
	if _, err := io.ReadFull(r, st[:]); err != nil {
		return false, "", err
	}
	switch string(st[:]) {
	case "OKAY":
		return true, "", nil
	case "FAIL":
		reason, err := ReadString(r)
		if err == io.EOF {
			err = cut("FAIL reason", err)
		}
		return false, reason, err
	}
	return false, "", fmt.Errorf("%w: reply starts with %q, want OKAY or FAIL", ErrMalformed, st[:])
}

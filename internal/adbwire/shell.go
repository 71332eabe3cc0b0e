package adbwire

import (
	"encoding/binary"
	"fmt"
	"io"
)

// Shell protocol v2 packet ids (adb's shell_protocol.h).
const (
	ShellStdin      = 0
	ShellStdout     = 1
	ShellStderr     = 2
	ShellExit       = 3
	ShellCloseStdin = 4
	ShellWindowSize = 5
)

// MaxShellPacket bounds one shell v2 packet's payload: adbd's packet
// buffer is MAX_PAYLOAD (1 MiB) with the header, so anything larger is
// garbage.
const MaxShellPacket = 1 << 20

// shellHeader is the size of a packet's id and length.
const shellHeader = 5

// AppendShellPacket appends one shell v2 packet: the id, the data's length
// as a little-endian uint32, the data.
func AppendShellPacket(b []byte, id byte, data []byte) []byte {
	b = append(b, id)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
	return append(b, data...)
}

// ShellReader decodes a stream of shell v2 packets.
type ShellReader struct {
	r   io.Reader
	hdr [shellHeader]byte
	buf []byte // grown to the largest packet seen
}

// NewShellReader reads packets from r.
func NewShellReader(r io.Reader) *ShellReader { return &ShellReader{r: r} }

// Next reads one packet. Its data is valid until the next call. A stream
// that ends between packets gives io.EOF; one cut inside a packet an error
// matching both ErrMalformed and io.ErrUnexpectedEOF.
func (s *ShellReader) Next() (id byte, data []byte, err error) {
	if n, err := io.ReadFull(s.r, s.hdr[:]); err != nil {
		if n == 0 && err == io.EOF {
			return 0, nil, io.EOF
		}
		return 0, nil, cut("shell packet header", err)
	}
	n := binary.LittleEndian.Uint32(s.hdr[1:])
	if n > MaxShellPacket {
		return 0, nil, fmt.Errorf("%w: shell packet %d claims %d bytes, more than %d", ErrMalformed, s.hdr[0], n, MaxShellPacket)
	}
	if cap(s.buf) < int(n) {
		s.buf = make([]byte, n)
	}
	data = s.buf[:n]
	if _, err := io.ReadFull(s.r, data); err != nil {
		return 0, nil, cut(fmt.Sprintf("shell packet %d of %d bytes", s.hdr[0], n), err)
	}
	return s.hdr[0], data, nil
}

// cut describes a frame the stream ended inside of; other read errors
// pass through.
func cut(what string, err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fmt.Errorf("%w: %s cut short (%w)", ErrMalformed, what, io.ErrUnexpectedEOF)
	}
	return err
}

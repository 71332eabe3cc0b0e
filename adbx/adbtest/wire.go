package adbtest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// This file is the wire layer shared by both endpoints: the host protocol's
// length-prefixed requests and OKAY/FAIL replies, the device protocol's
// 24-byte messages, and the shell v2 packets that travel inside a stream.

// maxRequest bounds a host-protocol request; four hex digits cannot say more.
const maxRequest = 0xffff

// errMalformed marks input that breaks the wire format.
var errMalformed = errors.New("malformed input")

// readRequest reads one host-protocol request: four hex digits giving the
// length, then that many bytes.
func readRequest(r io.Reader) (string, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return "", err
	}
	n, err := parseHex4(hdr[:])
	if err != nil {
		return "", err
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return "", fmt.Errorf("request of %d bytes: %w", n, err)
	}
	return string(buf), nil
}

// parseHex4 decodes the four hex digits that prefix every host-protocol string.
func parseHex4(b []byte) (int, error) {
	if len(b) != 4 {
		return 0, fmt.Errorf("%w: length prefix %q is not 4 hex digits", errMalformed, b)
	}
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
			return 0, fmt.Errorf("%w: length prefix %q is not 4 hex digits", errMalformed, b)
		}
		n = n<<4 | int(d)
	}
	return n, nil
}

// appendHexString appends s with its four-hex-digit length, as adb's
// SendProtocolString does; longer strings are cut to what the prefix can say.
func appendHexString(b []byte, s string) []byte {
	if len(s) > maxRequest {
		s = s[:maxRequest]
	}
	b = fmt.Appendf(b, "%04x", len(s))
	return append(b, s...)
}

// writeOkay writes OKAY followed by each payload as a length-prefixed string.
func writeOkay(w io.Writer, payloads ...string) error {
	b := []byte("OKAY")
	for _, p := range payloads {
		b = appendHexString(b, p)
	}
	_, err := w.Write(b)
	return err
}

// writeFail writes FAIL and a length-prefixed reason.
func writeFail(w io.Writer, reason string) error {
	_, err := w.Write(appendHexString([]byte("FAIL"), reason))
	return err
}

// Device-protocol commands (adb's protocol.txt), as their little-endian
// four-character codes.
const (
	cmdSYNC = 0x434e5953
	cmdCNXN = 0x4e584e43
	cmdAUTH = 0x48545541
	cmdOPEN = 0x4e45504f
	cmdOKAY = 0x59414b4f
	cmdCLSE = 0x45534c43
	cmdWRTE = 0x45545257
	cmdSTLS = 0x534c5453
)

const (
	// adbVersion is the protocol version that lets both sides skip the
	// data checksum.
	adbVersion = 0x01000001
	// adbVersionMin is the oldest version, which requires the checksum.
	adbVersionMin = 0x01000000
	// maxPayload is the largest message payload adbd accepts (MAX_PAYLOAD).
	maxPayload = 1 << 20
	// headerSize is the size of a message header.
	headerSize = 24
)

// message is one device-protocol message.
type message struct {
	command    uint32
	arg0, arg1 uint32
	data       []byte
}

func (m message) String() string {
	return fmt.Sprintf("%s(%d, %d, %d bytes)", commandName(m.command), m.arg0, m.arg1, len(m.data))
}

// commandName spells a command's four-character code, or its hex value.
func commandName(c uint32) string {
	b := binary.LittleEndian.AppendUint32(nil, c)
	for _, x := range b {
		if x < 'A' || x > 'Z' {
			return "0x" + strconv.FormatUint(uint64(c), 16)
		}
	}
	return string(b)
}

// checksum is the byte sum adb hosts older than adbVersion check.
func checksum(data []byte) uint32 {
	var s uint32
	for _, b := range data {
		s += uint32(b)
	}
	return s
}

// appendMessage encodes m: the 24-byte little-endian header, then the data.
func appendMessage(b []byte, m message) []byte {
	b = binary.LittleEndian.AppendUint32(b, m.command)
	b = binary.LittleEndian.AppendUint32(b, m.arg0)
	b = binary.LittleEndian.AppendUint32(b, m.arg1)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(m.data)))
	b = binary.LittleEndian.AppendUint32(b, checksum(m.data))
	b = binary.LittleEndian.AppendUint32(b, m.command^0xffffffff)
	return append(b, m.data...)
}

// readMessage decodes one message. maxData bounds the payload it accepts;
// verifySum makes it check data_check, as adb versions before adbVersion do.
func readMessage(r io.Reader, maxData uint32, verifySum bool) (message, error) {
	var hdr [headerSize]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return message{}, err
	}
	m := message{
		command: binary.LittleEndian.Uint32(hdr[0:]),
		arg0:    binary.LittleEndian.Uint32(hdr[4:]),
		arg1:    binary.LittleEndian.Uint32(hdr[8:]),
	}
	n := binary.LittleEndian.Uint32(hdr[12:])
	sum := binary.LittleEndian.Uint32(hdr[16:])
	magic := binary.LittleEndian.Uint32(hdr[20:])
	if magic != m.command^0xffffffff {
		return message{}, fmt.Errorf("%w: message %s has magic %#08x, want %#08x", errMalformed, commandName(m.command), magic, m.command^0xffffffff)
	}
	if n > maxData {
		return message{}, fmt.Errorf("%w: message %s carries %d bytes, more than the %d agreed", errMalformed, commandName(m.command), n, maxData)
	}
	if n > 0 {
		m.data = make([]byte, n)
		if _, err := io.ReadFull(r, m.data); err != nil {
			return message{}, fmt.Errorf("%s payload: %w", commandName(m.command), io.ErrUnexpectedEOF)
		}
	}
	if verifySum && checksum(m.data) != sum {
		return message{}, fmt.Errorf("%w: message %s has data_check %#x, want %#x", errMalformed, commandName(m.command), sum, checksum(m.data))
	}
	return m, nil
}

// Shell protocol (shell_v2) packet ids.
const (
	shellStdin      = 0
	shellStdout     = 1
	shellStderr     = 2
	shellExit       = 3
	shellCloseStdin = 4
	shellWindowSize = 5
)

// maxShellPacket bounds one shell v2 packet's payload; adb's own buffers
// are far smaller, so anything larger is garbage.
const maxShellPacket = 1 << 20

// appendShellPacket encodes one shell v2 packet: id, little-endian uint32
// length, data.
func appendShellPacket(b []byte, id byte, data []byte) []byte {
	b = append(b, id)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
	return append(b, data...)
}

// readShellPacket decodes one shell v2 packet.
func readShellPacket(r io.Reader) (id byte, data []byte, err error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return 0, nil, fmt.Errorf("%w: shell packet header cut short", errMalformed)
		}
		return 0, nil, err
	}
	n := binary.LittleEndian.Uint32(hdr[1:])
	if n > maxShellPacket {
		return 0, nil, fmt.Errorf("%w: shell packet %d claims %d bytes", errMalformed, hdr[0], n)
	}
	data = make([]byte, n)
	if _, err := io.ReadFull(r, data); err != nil {
		return 0, nil, fmt.Errorf("%w: shell packet %d cut short", errMalformed, hdr[0])
	}
	return hdr[0], data, nil
}

package adbwire

import (
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
)

// Device-protocol commands (adb's protocol.txt), as their little-endian
// four-character codes.
const (
	CmdSYNC = 0x434e5953
	CmdCNXN = 0x4e584e43
	CmdAUTH = 0x48545541
	CmdOPEN = 0x4e45504f
	CmdOKAY = 0x59414b4f
	CmdCLSE = 0x45534c43
	CmdWRTE = 0x45545257
	CmdSTLS = 0x534c5453
)

const (
	// Version is the protocol version that lets both sides skip the
	// data checksum.
	Version = 0x01000001
	// VersionMin is the oldest version, which requires the checksum.
	VersionMin = 0x01000000
	// MaxPayload is the largest message payload adbd accepts (MAX_PAYLOAD).
	MaxPayload = 1 << 20
	// HeaderSize is the size of a message header.
	HeaderSize = 24
)

// Message is one device-protocol message.
type Message struct {
	Command    uint32
	Arg0, Arg1 uint32
	Data       []byte
}

// String names the command, its arguments and the payload's size.
func (m Message) String() string {
	return fmt.Sprintf("%s(%d, %d, %d bytes)", CommandName(m.Command), m.Arg0, m.Arg1, len(m.Data))
}

// CommandName spells a command's four-character code, or its hex value.
func CommandName(c uint32) string {
	b := binary.LittleEndian.AppendUint32(nil, c)
	for _, x := range b {
		if x < 'A' || x > 'Z' {
			return "0x" + strconv.FormatUint(uint64(c), 16)
		}
	}
	return string(b)
}

// checksum is the byte sum adb versions before Version check.
func checksum(data []byte) uint32 {
	var s uint32
	for _, b := range data {
		s += uint32(b)
	}
	return s
}

// AppendMessage encodes m: the 24-byte little-endian header, then the data.
func AppendMessage(b []byte, m Message) []byte {
	b = binary.LittleEndian.AppendUint32(b, m.Command)
	b = binary.LittleEndian.AppendUint32(b, m.Arg0)
	b = binary.LittleEndian.AppendUint32(b, m.Arg1)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(m.Data)))
	b = binary.LittleEndian.AppendUint32(b, checksum(m.Data))
	b = binary.LittleEndian.AppendUint32(b, m.Command^0xffffffff)
	return append(b, m.Data...)
}

// ReadMessage decodes one message. maxData bounds the payload it accepts;
// verifySum makes it check data_check, as adb versions before Version do.
func ReadMessage(r io.Reader, maxData uint32, verifySum bool) (Message, error) {
	var hdr [HeaderSize]byte
	if n, err := io.ReadFull(r, hdr[:]); err != nil {
		if n == 0 && err == io.EOF {
			return Message{}, io.EOF
		}
		return Message{}, cut("message header", err)
	}
	m := Message{
		Command: binary.LittleEndian.Uint32(hdr[0:]),
		Arg0:    binary.LittleEndian.Uint32(hdr[4:]),
		Arg1:    binary.LittleEndian.Uint32(hdr[8:]),
	}
	n := binary.LittleEndian.Uint32(hdr[12:])
	sum := binary.LittleEndian.Uint32(hdr[16:])
	magic := binary.LittleEndian.Uint32(hdr[20:])
	name := CommandName(m.Command)
	if magic != m.Command^0xffffffff {
		return Message{}, fmt.Errorf("%w: message %s has magic %#08x, want %#08x", ErrMalformed, name, magic, m.Command^0xffffffff)
	}
	if n > maxData {
		return Message{}, fmt.Errorf("%w: message %s carries %d bytes, more than the %d agreed", ErrMalformed, name, n, maxData)
	}
	if n > 0 {
		m.Data = make([]byte, n)
		if _, err := io.ReadFull(r, m.Data); err != nil {
			return Message{}, cut(name+" payload", err)
		}
	}
	if verifySum && checksum(m.Data) != sum {
		return Message{}, fmt.Errorf("%w: message %s has data_check %#x, want %#x", ErrMalformed, name, sum, checksum(m.Data))
	}
	return m, nil
}

package adbwire

import (
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"time"
)

const (
	// MaxSyncData is the largest DATA chunk either side may send.
	MaxSyncData = 64 << 10
	// MaxSyncPath bounds a request's path, as adbd does.
	MaxSyncPath = 1024
)

// AppendSync appends one sync message: its four-character id, arg as a
// little-endian uint32, then data. For most ids arg is data's length; DONE
// carries a time and QUIT nothing.
func AppendSync(b []byte, id string, arg uint32, data []byte) []byte {
	b = append(b, id[:4]...)
	b = binary.LittleEndian.AppendUint32(b, arg)
	return append(b, data...)
}

// ReadSyncHeader reads a sync message's id and argument.
func ReadSyncHeader(r io.Reader) (id string, arg uint32, err error) {
	var h [8]byte
	if n, err := io.ReadFull(r, h[:]); err != nil {
		if n == 0 && err == io.EOF {
			return "", 0, io.EOF
		}
		return "", 0, cut("sync header", err)
	}
	return string(h[:4]), binary.LittleEndian.Uint32(h[4:]), nil
}

// ReadSyncRequest reads one request: its id and a path of at most
// MaxSyncPath bytes.
func ReadSyncRequest(r io.Reader) (id string, path string, err error) {
	id, n, err := ReadSyncHeader(r)
	if err != nil {
		return "", "", err
	}
	if n > MaxSyncPath {
		return "", "", fmt.Errorf("%w: sync %q path of %d bytes, limit %d", ErrMalformed, id, n, MaxSyncPath)
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(r, p); err != nil {
		return "", "", cut(fmt.Sprintf("sync %q path", id), err)
	}
	return id, string(p), nil
}

// Unix file type bits, as stat's st_mode carries them.
const (
	sIFMT   = 0o170000
	sIFSOCK = 0o140000
	sIFLNK  = 0o120000
	sIFREG  = 0o100000
	sIFBLK  = 0o060000
	sIFDIR  = 0o040000
	sIFCHR  = 0o020000
	sIFIFO  = 0o010000
)

// UnixMode turns an fs.FileMode into st_mode bits.
func UnixMode(m fs.FileMode) uint32 {
	u := uint32(m.Perm())
	switch {
	case m.IsDir():
		u |= sIFDIR
	case m&fs.ModeSymlink != 0:
		u |= sIFLNK
	case m&fs.ModeNamedPipe != 0:
		u |= sIFIFO
	case m&fs.ModeSocket != 0:
		u |= sIFSOCK
	case m&fs.ModeCharDevice != 0:
		u |= sIFCHR
	case m&fs.ModeDevice != 0:
		u |= sIFBLK
	default:
		u |= sIFREG
	}
	if m&fs.ModeSetuid != 0 {
		u |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		u |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		u |= 0o1000
	}
	return u
}

// FileMode turns st_mode bits into an fs.FileMode; a SEND mode without
// type bits (as some clients send) is a regular file.
func FileMode(u uint32) fs.FileMode {
	m := fs.FileMode(u & 0o777)
	switch u & sIFMT {
	case sIFDIR:
		m |= fs.ModeDir
	case sIFLNK:
		m |= fs.ModeSymlink
	case sIFIFO:
		m |= fs.ModeNamedPipe
	case sIFSOCK:
		m |= fs.ModeSocket
	case sIFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case sIFBLK:
		m |= fs.ModeDevice
	}
	if u&0o4000 != 0 {
		m |= fs.ModeSetuid
	}
	if u&0o2000 != 0 {
		m |= fs.ModeSetgid
	}
	if u&0o1000 != 0 {
		m |= fs.ModeSticky
	}
	return m
}

// UnixTime is t in seconds since 1970 as the 32-bit fields of sync v1 hold
// it; an unset time (as fstest.MapFS gives implied directories) is 0.
func UnixTime(t time.Time) uint32 {
	u := t.Unix()
	if t.IsZero() || u < 0 || u > 1<<32-1 {
		return 0
	}
	return uint32(u)
}

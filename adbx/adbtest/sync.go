package adbtest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"time"
)

// The sync: service (adb's SYNC.TXT): requests are a four-character id, a
// little-endian uint32 length and that many bytes of path; replies depend on
// the request. The v2 stat and list replies follow adb's sync_stat_v2 and
// sync_dent_v2 structs.

const (
	// syncDataMax is the largest DATA chunk either side may send.
	syncDataMax = 64 << 10
	// syncPathMax bounds a request's path, as adbd does.
	syncPathMax = 1024
)

// errno values sync v2 replies carry.
const (
	errnoENOENT = 2
	errnoEIO    = 5
	errnoEACCES = 13
)

// serveSync answers sync requests until the client quits or misbehaves.
func serveSync(dev Device, rw io.ReadWriteCloser) {
	defer rw.Close()
	s := &syncSession{dev: dev, rw: rw}
	for {
		id, path, err := readSyncRequest(rw)
		if err != nil {
			if errors.Is(err, errMalformed) {
				_ = s.fail(err.Error())
			}
			return
		}
		if !s.handle(id, path) {
			return
		}
	}
}

// readSyncRequest reads one request: id, length, path.
func readSyncRequest(r io.Reader) (id string, path string, err error) {
	var hdr [8]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return "", "", err
	}
	n := binary.LittleEndian.Uint32(hdr[4:])
	if n > syncPathMax {
		return "", "", fmt.Errorf("%w: sync %q path of %d bytes, limit %d", errMalformed, hdr[:4], n, syncPathMax)
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(r, p); err != nil {
		return "", "", fmt.Errorf("%w: sync %q path cut short", errMalformed, hdr[:4])
	}
	return string(hdr[:4]), string(p), nil
}

type syncSession struct {
	dev Device
	rw  io.ReadWriter
}

// handle answers one request and says whether the session goes on.
func (s *syncSession) handle(id, path string) bool {
	switch id {
	case "STAT":
		return s.stat(path) == nil
	case "STA2", "LST2":
		return s.stat2(id, path) == nil
	case "LIST":
		return s.list(path, false) == nil
	case "LIS2":
		return s.list(path, true) == nil
	case "SEND":
		return s.send(path) == nil
	case "RECV":
		return s.recv(path) == nil
	case "QUIT":
		return false
	}
	_ = s.fail(fmt.Sprintf("unknown sync request %q", id))
	return false
}

// fail sends FAIL with a reason.
func (s *syncSession) fail(reason string) error {
	b := []byte("FAIL")
	b = binary.LittleEndian.AppendUint32(b, uint32(len(reason)))
	_, err := s.rw.Write(append(b, reason...))
	return err
}

func (s *syncSession) stat(path string) error {
	b := []byte("STAT")
	var mode, size, mtime uint32
	if fi, err := s.dev.Stat(path); err == nil {
		mode, size, mtime = unixMode(fi.Mode()), uint32(fi.Size()), unixTime(fi.ModTime())
	}
	b = binary.LittleEndian.AppendUint32(b, mode)
	b = binary.LittleEndian.AppendUint32(b, size)
	b = binary.LittleEndian.AppendUint32(b, mtime)
	_, err := s.rw.Write(b)
	return err
}

func (s *syncSession) stat2(id, path string) error {
	fi, err := s.dev.Stat(path)
	b := appendStat2([]byte(id), fi, err)
	_, err = s.rw.Write(b)
	return err
}

// appendStat2 appends a sync_stat_v2 body after its id: error, dev, ino,
// mode, nlink, uid, gid, size, atime, mtime, ctime.
func appendStat2(b []byte, fi fs.FileInfo, err error) []byte {
	if err != nil || fi == nil {
		b = binary.LittleEndian.AppendUint32(b, errnoOf(err))
		return append(b, make([]byte, 64)...)
	}
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint64(b, 0) // dev
	b = binary.LittleEndian.AppendUint64(b, 0) // ino
	b = binary.LittleEndian.AppendUint32(b, unixMode(fi.Mode()))
	b = binary.LittleEndian.AppendUint32(b, 1)    // nlink
	b = binary.LittleEndian.AppendUint32(b, 2000) // uid: shell
	b = binary.LittleEndian.AppendUint32(b, 2000) // gid: shell
	b = binary.LittleEndian.AppendUint64(b, uint64(fi.Size()))
	t := uint64(unixTime(fi.ModTime()))
	b = binary.LittleEndian.AppendUint64(b, t) // atime
	b = binary.LittleEndian.AppendUint64(b, t) // mtime
	b = binary.LittleEndian.AppendUint64(b, t) // ctime
	return b
}

// strerror words err as the C library would for its errno.
func strerror(err error) string {
	switch errnoOf(err) {
	case errnoENOENT:
		return "No such file or directory"
	case errnoEACCES:
		return "Permission denied"
	}
	return err.Error()
}

func errnoOf(err error) uint32 {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errnoENOENT
	case errors.Is(err, fs.ErrPermission):
		return errnoEACCES
	}
	return errnoEIO
}

// list sends a DENT (or DNT2) per entry, then DONE. A directory that cannot
// be read lists as empty, as adbd does.
func (s *syncSession) list(path string, v2 bool) error {
	entries, _ := s.dev.ReadDir(path)
	var b []byte
	for _, fi := range entries {
		if v2 {
			b = appendStat2(append(b, "DNT2"...), fi, nil)
		} else {
			b = append(b, "DENT"...)
			b = binary.LittleEndian.AppendUint32(b, unixMode(fi.Mode()))
			b = binary.LittleEndian.AppendUint32(b, uint32(fi.Size()))
			b = binary.LittleEndian.AppendUint32(b, unixTime(fi.ModTime()))
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(len(fi.Name())))
		b = append(b, fi.Name()...)
	}
	b = append(b, "DONE"...)
	if v2 {
		b = append(b, make([]byte, 72)...)
	} else {
		b = append(b, make([]byte, 16)...)
	}
	_, err := s.rw.Write(b)
	return err
}

// send receives a file: "path,mode", DATA chunks, DONE carrying the mtime.
// The content is held until DONE because Device.Create wants the mtime.
func (s *syncSession) send(spec string) error {
	path, mode, err := parseSendSpec(spec)
	if err != nil {
		_ = s.fail(err.Error())
		return err
	}
	var content bytes.Buffer
	for {
		var hdr [8]byte
		if _, err := io.ReadFull(s.rw, hdr[:]); err != nil {
			return err
		}
		n := binary.LittleEndian.Uint32(hdr[4:])
		switch string(hdr[:4]) {
		case "DATA":
			if n > syncDataMax {
				err := fmt.Errorf("%w: sync DATA chunk of %d bytes, limit %d", errMalformed, n, syncDataMax)
				_ = s.fail(err.Error())
				return err
			}
			if _, err := io.CopyN(&content, s.rw, int64(n)); err != nil {
				return err
			}
		case "DONE":
			if err := s.store(path, mode, time.Unix(int64(n), 0), content.Bytes()); err != nil {
				_ = s.fail(err.Error())
				return err
			}
			b := binary.LittleEndian.AppendUint32([]byte("OKAY"), 0)
			_, err := s.rw.Write(b)
			return err
		default:
			err := fmt.Errorf("%w: sync SEND got %q, want DATA or DONE", errMalformed, hdr[:4])
			_ = s.fail(err.Error())
			return err
		}
	}
}

func (s *syncSession) store(path string, mode fs.FileMode, mtime time.Time, content []byte) error {
	w, err := s.dev.Create(path, mode, mtime)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if _, err := w.Write(content); err != nil {
		w.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	return nil
}

// parseSendSpec splits SEND's "path,mode"; the path may itself hold commas.
func parseSendSpec(spec string) (string, fs.FileMode, error) {
	i := strings.LastIndexByte(spec, ',')
	if i <= 0 {
		return "", 0, fmt.Errorf("%w: sync SEND %q lacks ,mode", errMalformed, spec)
	}
	m, err := strconv.ParseUint(spec[i+1:], 10, 32)
	if err != nil {
		return "", 0, fmt.Errorf("%w: sync SEND %q: bad mode %q", errMalformed, spec, spec[i+1:])
	}
	return spec[:i], fileMode(uint32(m)), nil
}

// recv sends a file as DATA chunks and DONE, or FAIL.
func (s *syncSession) recv(path string) error {
	r, err := s.dev.Open(path)
	if err != nil {
		// adbd's wording, which adb prints as "remote open failed: ...".
		_ = s.fail("open failed: " + strerror(err))
		return err
	}
	defer r.Close()
	buf := make([]byte, 8+syncDataMax)
	for {
		n, rerr := io.ReadFull(r, buf[8:])
		if n > 0 {
			copy(buf, "DATA")
			binary.LittleEndian.PutUint32(buf[4:], uint32(n))
			if _, err := s.rw.Write(buf[:8+n]); err != nil {
				return err
			}
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			_ = s.fail(fmt.Sprintf("read %s: %v", path, rerr))
			return rerr
		}
	}
	_, err = s.rw.Write(binary.LittleEndian.AppendUint32([]byte("DONE"), 0))
	return err
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

// unixMode turns an fs.FileMode into st_mode bits.
func unixMode(m fs.FileMode) uint32 {
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

// fileMode turns st_mode bits into an fs.FileMode; a SEND mode without type
// bits (as some clients send) is a regular file.
func fileMode(u uint32) fs.FileMode {
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

// unixTime is t in seconds since 1970 as the 32-bit fields of sync v1 hold
// it; an unset time (as fstest.MapFS gives implied directories) is 0.
func unixTime(t time.Time) uint32 {
	u := t.Unix()
	if t.IsZero() || u < 0 || u > 1<<32-1 {
		return 0
	}
	return uint32(u)
}

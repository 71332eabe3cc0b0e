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

	"github.com/perfgate/perfgate/internal/adbwire"
)

// The sync: service (adb's SYNC.TXT): requests are a four-character id, a
// little-endian uint32 length and that many bytes of path; replies depend on
// the request. The v2 stat and list replies follow adb's sync_stat_v2 and
// sync_dent_v2 structs.

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
		id, path, err := adbwire.ReadSyncRequest(rw)
		if err != nil {
			if errors.Is(err, adbwire.ErrMalformed) {
				_ = s.fail(err.Error())
			}
			return
		}
		if !s.handle(id, path) {
			return
		}
	}
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
	_, err := s.rw.Write(adbwire.AppendSync(nil, "FAIL", uint32(len(reason)), []byte(reason)))
	return err
}

func (s *syncSession) stat(path string) error {
	b := []byte("STAT")
	var mode, size, mtime uint32
	if fi, err := s.dev.Stat(path); err == nil {
		mode, size, mtime = adbwire.UnixMode(fi.Mode()), uint32(fi.Size()), adbwire.UnixTime(fi.ModTime())
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
	b = binary.LittleEndian.AppendUint32(b, adbwire.UnixMode(fi.Mode()))
	b = binary.LittleEndian.AppendUint32(b, 1)    // nlink
	b = binary.LittleEndian.AppendUint32(b, 2000) // uid: shell
	b = binary.LittleEndian.AppendUint32(b, 2000) // gid: shell
	b = binary.LittleEndian.AppendUint64(b, uint64(fi.Size()))
	t := uint64(adbwire.UnixTime(fi.ModTime()))
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
			b = binary.LittleEndian.AppendUint32(b, adbwire.UnixMode(fi.Mode()))
			b = binary.LittleEndian.AppendUint32(b, uint32(fi.Size()))
			b = binary.LittleEndian.AppendUint32(b, adbwire.UnixTime(fi.ModTime()))
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
		id, n, err := adbwire.ReadSyncHeader(s.rw)
		if err != nil {
			return err
		}
		switch id {
		case "DATA":
			if n > adbwire.MaxSyncData {
				err := fmt.Errorf("%w: sync DATA chunk of %d bytes, limit %d", adbwire.ErrMalformed, n, adbwire.MaxSyncData)
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
			_, err := s.rw.Write(adbwire.AppendSync(nil, "OKAY", 0, nil))
			return err
		default:
			err := fmt.Errorf("%w: sync SEND got %q, want DATA or DONE", adbwire.ErrMalformed, id)
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
		return "", 0, fmt.Errorf("%w: sync SEND %q lacks ,mode", adbwire.ErrMalformed, spec)
	}
	m, err := strconv.ParseUint(spec[i+1:], 10, 32)
	if err != nil {
		return "", 0, fmt.Errorf("%w: sync SEND %q: bad mode %q", adbwire.ErrMalformed, spec, spec[i+1:])
	}
	return spec[:i], adbwire.FileMode(uint32(m)), nil
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
	buf := make([]byte, adbwire.MaxSyncData)
	msg := make([]byte, 0, 8+adbwire.MaxSyncData)
	for {
		n, rerr := io.ReadFull(r, buf)
		if n > 0 {
			if _, err := s.rw.Write(adbwire.AppendSync(msg[:0], "DATA", uint32(n), buf[:n])); err != nil {
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
	_, err = s.rw.Write(adbwire.AppendSync(nil, "DONE", 0, nil))
	return err
}

package adbtest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/perfgate/perfgate/internal/adbwire"
)

// syncDevice is a small file tree with known modes and times.
func syncDevice() *FakeDevice {
	t := time.Unix(1700000000, 0)
	return &FakeDevice{Files: fstest.MapFS{
		"sdcard/a.txt":     {Data: []byte("hello"), Mode: 0o644, ModTime: t},
		"sdcard/dir":       {Mode: fs.ModeDir | 0o755, ModTime: t},
		"data/secret":      {Data: []byte("x"), Mode: 0o600, ModTime: t},
		"sdcard/dir/b.bin": {Data: []byte{0, 1, 2}, Mode: 0o600, ModTime: t},
	}}
}

// runSync feeds requests to the sync service and returns its reply bytes.
func runSync(dev Device, requests ...[]byte) []byte {
	var out bytes.Buffer
	serveSync(dev, fuzzStream{bytes.NewReader(bytes.Join(requests, nil)), &out})
	return out.Bytes()
}

func u32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

func TestSyncReplies(t *testing.T) {
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	// 1700000000 is 0x6553f100; 0100644 is 0x81a4; 040755 is 0x41ed.
	tests := []struct {
		name string
		req  [][]byte
		want []byte
	}{
		{"STAT file", [][]byte{syncRequest("STAT", "/sdcard/a.txt")},
			cat([]byte("STAT"), u32(0o100644), u32(5), u32(1700000000))},
		{"STAT dir", [][]byte{syncRequest("STAT", "/sdcard/dir")},
			cat([]byte("STAT"), u32(0o040755), u32(0), u32(1700000000))},
		{"STAT missing is all zero", [][]byte{syncRequest("STAT", "/nope")},
			cat([]byte("STAT"), u32(0), u32(0), u32(0))},
		{"LIST", [][]byte{syncRequest("LIST", "/sdcard/dir")},
			cat([]byte("DENT"), u32(0o100600), u32(3), u32(1700000000), u32(5), []byte("b.bin"),
				[]byte("DONE"), make([]byte, 16))},
		{"LIST missing is empty", [][]byte{syncRequest("LIST", "/nope")},
			cat([]byte("DONE"), make([]byte, 16))},
		{"RECV", [][]byte{syncRequest("RECV", "/sdcard/a.txt")},
			cat([]byte("DATA"), u32(5), []byte("hello"), []byte("DONE"), u32(0))},
		{"RECV missing", [][]byte{syncRequest("RECV", "/nope")},
			cat([]byte("FAIL"), u32(uint32(len("open failed: No such file or directory"))), []byte("open failed: No such file or directory"))},
		{"SEND", [][]byte{syncRequest("SEND", "/sdcard/new.txt,33188"), syncRequest("DATA", "abc"), syncRequest("DATA", "def"), cat([]byte("DONE"), u32(1700000001))},
			cat([]byte("OKAY"), u32(0))},
		{"QUIT ends the session", [][]byte{syncRequest("QUIT", ""), syncRequest("STAT", "/sdcard/a.txt")}, nil},
		{"unknown request", [][]byte{syncRequest("ZZZZ", "")},
			cat([]byte("FAIL"), u32(uint32(len(`unknown sync request "ZZZZ"`))), []byte(`unknown sync request "ZZZZ"`))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runSync(syncDevice(), tt.req...)
			if !bytes.Equal(got, tt.want) {
				t.Errorf("reply\n% x\nwant\n% x", got, tt.want)
			}
		})
	}
}

func TestSyncStat2(t *testing.T) {
	dev := &FakeDevice{}
	dev.Files = syncDevice().Files
	// A device whose Stat refuses shows EACCES.
	denied := &deniedDevice{FakeDevice: dev}
	tests := []struct {
		dev       Device
		path      string
		wantErrno uint32
		wantMode  uint32
		wantSize  uint64
	}{
		{dev, "/sdcard/a.txt", 0, 0o100644, 5},
		{dev, "/sdcard/dir", 0, 0o040755, 0},
		{dev, "/nope", errnoENOENT, 0, 0},
		{denied, "/data/secret", errnoEACCES, 0, 0},
	}
	for _, tt := range tests {
		for _, id := range []string{"STA2", "LST2"} {
			got := runSync(tt.dev, syncRequest(id, tt.path))
			if len(got) != 72 || string(got[:4]) != id {
				t.Fatalf("%s %s: reply of %d bytes % x", id, tt.path, len(got), got)
			}
			// Offsets of struct sync_stat_v2: error 4, mode 24, size 40,
			// mtime 56.
			errno, mode := le32(got[4:]), le32(got[24:])
			size, mtime := binary.LittleEndian.Uint64(got[40:]), binary.LittleEndian.Uint64(got[56:])
			wantTime := uint64(1700000000)
			if tt.wantErrno != 0 {
				wantTime = 0
			}
			if errno != tt.wantErrno || mode != tt.wantMode || size != tt.wantSize || mtime != wantTime {
				t.Errorf("%s %s: errno %d mode %o size %d mtime %d, want %d %o %d %d",
					id, tt.path, errno, mode, size, mtime, tt.wantErrno, tt.wantMode, tt.wantSize, wantTime)
			}
		}
	}
}

type deniedDevice struct{ *FakeDevice }

func (d *deniedDevice) Stat(p string) (fs.FileInfo, error) {
	return nil, &fs.PathError{Op: "stat", Path: p, Err: fs.ErrPermission}
}

func TestSyncLIS2(t *testing.T) {
	got := runSync(syncDevice(), syncRequest("LIS2", "/sdcard/dir"))
	// DNT2 + 68-byte stat + namelen + "b.bin", then DONE + 72 zero bytes.
	if len(got) != 4+68+4+5+76 {
		t.Fatalf("reply of %d bytes: % x", len(got), got)
	}
	if string(got[:4]) != "DNT2" || le32(got[24:]) != 0o100600 || le32(got[72:]) != 5 || string(got[76:81]) != "b.bin" {
		t.Errorf("entry % x", got[:81])
	}
	if string(got[81:85]) != "DONE" || !bytes.Equal(got[85:], make([]byte, 72)) {
		t.Errorf("end % x", got[81:])
	}
}

func TestSyncSendStoresFile(t *testing.T) {
	dev := syncDevice()
	runSync(dev, syncRequest("SEND", "/sdcard/new,file.txt,33188"), syncRequest("DATA", "abc"), syncRequest("DATA", "def"),
		append([]byte("DONE"), u32(1700000001)...))
	f, ok := dev.Files["sdcard/new,file.txt"]
	if !ok || string(f.Data) != "abcdef" || f.Mode != 0o644 || f.ModTime.Unix() != 1700000001 {
		t.Errorf("stored %+v", f)
	}
}

func TestSyncSendErrors(t *testing.T) {
	tests := []struct {
		name    string
		req     [][]byte
		wantMsg string
	}{
		{"no mode", [][]byte{syncRequest("SEND", "/sdcard/x")}, "lacks ,mode"},
		{"chunk too big", [][]byte{syncRequest("SEND", "/sdcard/x,420"), append([]byte("DATA"), u32(adbwire.MaxSyncData+1)...)}, "limit 65536"},
		{"not DATA", [][]byte{syncRequest("SEND", "/sdcard/x,420"), syncRequest("STAT", "/")}, `got "STAT"`},
		{"onto a directory", [][]byte{syncRequest("SEND", "/sdcard/dir,420"), append([]byte("DONE"), u32(0)...)}, "is a directory"},
		{"path too long", [][]byte{syncRequest("STAT", "/"+strings.Repeat("a", adbwire.MaxSyncPath))}, "limit 1024"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runSync(syncDevice(), tt.req...)
			if len(got) < 8 || string(got[:4]) != "FAIL" || int(le32(got[4:])) != len(got)-8 || !strings.Contains(string(got[8:]), tt.wantMsg) {
				t.Errorf("reply %q, want FAIL with %q", got, tt.wantMsg)
			}
		})
	}
}

func TestParseSendSpec(t *testing.T) {
	// The path may itself hold commas: the mode follows the last one.
	for spec, want := range map[string]string{
		"/sdcard/a.txt,33188": "/sdcard/a.txt -rw-r--r--",
		"/sdcard/a,b.txt,436": "/sdcard/a,b.txt -rw-rw-r--",
	} {
		p, m, err := parseSendSpec(spec)
		if got := p + " " + m.String(); err != nil || got != want {
			t.Errorf("parseSendSpec(%q) = %s, %v; want %s", spec, got, err, want)
		}
	}
	for _, spec := range []string{"/sdcard/a.txt", ",420", "/x,rw"} {
		if _, _, err := parseSendSpec(spec); !errors.Is(err, adbwire.ErrMalformed) {
			t.Errorf("parseSendSpec(%q): error %v, want one matching ErrMalformed", spec, err)
		}
	}
}

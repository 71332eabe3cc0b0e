package adbwire

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestModes(t *testing.T) {
	tests := []struct {
		unix uint32
		mode string // fs.FileMode's String
	}{
		{0o100644, "-rw-r--r--"},
		{0o040755, "drwxr-xr-x"},
		{0o120777, "Lrwxrwxrwx"},
		{0o020666, "Dcrw-rw-rw-"},
		{0o041777, "dtrwxrwxrwx"},
		{0o104755, "urwxr-xr-x"},
	}
	for _, tt := range tests {
		m := FileMode(tt.unix)
		if m.String() != tt.mode {
			t.Errorf("FileMode(%o) = %s, want %s", tt.unix, m, tt.mode)
		}
		if back := UnixMode(m); back != tt.unix {
			t.Errorf("UnixMode(%s) = %o, want %o", m, back, tt.unix)
		}
	}
	// gadb sends a bare permission, without file type bits.
	if m := FileMode(0o664); m.String() != "-rw-rw-r--" {
		t.Errorf("FileMode(0664) = %s", m)
	}
}

func TestUnixTime(t *testing.T) {
	for _, tt := range []struct {
		t    time.Time
		want uint32
	}{
		{time.Unix(1700000000, 5), 1700000000},
		{time.Time{}, 0},
		{time.Unix(-1, 0), 0},
		{time.Unix(1<<32, 0), 0},
	} {
		if got := UnixTime(tt.t); got != tt.want {
			t.Errorf("UnixTime(%v) = %d, want %d", tt.t, got, tt.want)
		}
	}
}

func TestSyncFraming(t *testing.T) {
	// Worked by hand: "RECV", length 5 little-endian, the path.
	req := AppendSync(nil, "RECV", 5, []byte("/a/bc"))
	if want := []byte{'R', 'E', 'C', 'V', 5, 0, 0, 0, '/', 'a', '/', 'b', 'c'}; !bytes.Equal(req, want) {
		t.Fatalf("AppendSync = % x, want % x", req, want)
	}
	id, path, err := ReadSyncRequest(bytes.NewReader(req))
	if id != "RECV" || path != "/a/bc" || err != nil {
		t.Errorf("ReadSyncRequest = %q %q %v", id, path, err)
	}
	done := AppendSync(nil, "DONE", 1700000000, nil)
	if id, arg, err := ReadSyncHeader(bytes.NewReader(done)); id != "DONE" || arg != 1700000000 || err != nil {
		t.Errorf("ReadSyncHeader = %q %d %v", id, arg, err)
	}
	tests := []struct {
		name    string
		in      []byte
		wantErr error
	}{
		{"path over the limit", AppendSync(nil, "STAT", MaxSyncPath+1, []byte(strings.Repeat("x", MaxSyncPath+1))), ErrMalformed},
		{"path cut", req[:10], io.ErrUnexpectedEOF},
		{"header cut", req[:6], io.ErrUnexpectedEOF},
		{"nothing", nil, io.EOF},
	}
	for _, tt := range tests {
		if _, _, err := ReadSyncRequest(bytes.NewReader(tt.in)); !errors.Is(err, tt.wantErr) {
			t.Errorf("%s: error %v, want %v", tt.name, err, tt.wantErr)
		}
	}
}

func FuzzReadSyncRequest(f *testing.F) {
	f.Add(AppendSync(nil, "STA2", 15, []byte("/sdcard/missing")))
	f.Add(AppendSync(nil, "SEND", 23, []byte("/data/local/tmp/x,33188")))
	f.Add([]byte("SEND\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, in []byte) {
		id, path, err := ReadSyncRequest(bytes.NewReader(in))
		if err != nil {
			return
		}
		if out := AppendSync(nil, id, uint32(len(path)), []byte(path)); !bytes.Equal(out, in[:len(out)]) {
			t.Fatalf("re-encoded % x from % x", out, in)
		}
	})
}

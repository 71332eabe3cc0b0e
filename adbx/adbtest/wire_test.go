package adbtest

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReadRequest(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr error
	}{
		{"version", "000chost:version", "host:version", nil},
		{"upper-case hex", "000Chost:version", "host:version", nil},
		{"empty", "0000", "", nil},
		{"not hex", "00zzhost", "", errMalformed},
		{"cut short", "0010host", "", io.ErrUnexpectedEOF},
		{"no header", "00", "", io.ErrUnexpectedEOF},
		{"nothing", "", "", io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readRequest(strings.NewReader(tt.in))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("readRequest(%q) error %v, want %v", tt.in, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("readRequest(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestReplies(t *testing.T) {
	var b bytes.Buffer
	_ = writeOkay(&b, "0029")
	_ = writeFail(&b, "device 'x' not found")
	_ = writeOkay(&b)
	want := "OKAY00040029" + "FAIL0014device 'x' not found" + "OKAY"
	if b.String() != want {
		t.Errorf("replies = %q, want %q", b.String(), want)
	}
}

func TestAppendMessage(t *testing.T) {
	// Worked by hand: "CNXN" is 0x4e584e43, its magic 0xb1a7b1bc; the
	// checksum of "ab" is 97+98 = 195.
	got := appendMessage(nil, message{command: cmdCNXN, arg0: 0x01000001, arg1: 0x100000, data: []byte("ab")})
	want := []byte{
		'C', 'N', 'X', 'N',
		0x01, 0x00, 0x00, 0x01,
		0x00, 0x00, 0x10, 0x00,
		0x02, 0x00, 0x00, 0x00,
		0xc3, 0x00, 0x00, 0x00,
		0xbc, 0xb1, 0xa7, 0xb1,
		'a', 'b',
	}
	if !bytes.Equal(got, want) {
		t.Errorf("appendMessage = % x\nwant             % x", got, want)
	}
}

func TestCommandCodes(t *testing.T) {
	for code, name := range map[uint32]string{
		cmdSYNC: "SYNC", cmdCNXN: "CNXN", cmdAUTH: "AUTH", cmdOPEN: "OPEN",
		cmdOKAY: "OKAY", cmdCLSE: "CLSE", cmdWRTE: "WRTE", cmdSTLS: "STLS",
	} {
		if got := string([]byte{byte(code), byte(code >> 8), byte(code >> 16), byte(code >> 24)}); got != name {
			t.Errorf("code %#x spells %q, want %q", code, got, name)
		}
		if got := commandName(code); got != name {
			t.Errorf("commandName(%#x) = %q, want %q", code, got, name)
		}
	}
	if got := commandName(7); got != "0x7" {
		t.Errorf("commandName(7) = %q, want 0x7", got)
	}
}

func TestReadMessage(t *testing.T) {
	good := appendMessage(nil, message{command: cmdWRTE, arg0: 1, arg1: 2, data: []byte("hello")})
	badMagic := bytes.Clone(good)
	badMagic[20] ^= 1
	badSum := bytes.Clone(good)
	badSum[16] ^= 1
	tests := []struct {
		name      string
		in        []byte
		maxData   uint32
		verifySum bool
		want      string // message data, when no error
		wantErr   error
	}{
		{"good", good, 4096, true, "hello", nil},
		{"bad magic", badMagic, 4096, false, "", errMalformed},
		{"bad checksum checked", badSum, 4096, true, "", errMalformed},
		{"bad checksum ignored", badSum, 4096, false, "hello", nil},
		{"payload over limit", good, 4, false, "", errMalformed},
		{"payload cut short", good[:len(good)-1], 4096, false, "", io.ErrUnexpectedEOF},
		{"header cut short", good[:10], 4096, false, "", io.ErrUnexpectedEOF},
		{"empty", nil, 4096, false, "", io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := readMessage(bytes.NewReader(tt.in), tt.maxData, tt.verifySum)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if m.command != cmdWRTE || m.arg0 != 1 || m.arg1 != 2 || string(m.data) != tt.want {
				t.Errorf("got %v %q, want WRTE(1, 2) %q", m, m.data, tt.want)
			}
		})
	}
}

func TestShellPacket(t *testing.T) {
	// Worked by hand: id 2, length 3 little-endian, "err".
	want := []byte{2, 3, 0, 0, 0, 'e', 'r', 'r'}
	if got := appendShellPacket(nil, shellStderr, []byte("err")); !bytes.Equal(got, want) {
		t.Errorf("appendShellPacket = % x, want % x", got, want)
	}
	tests := []struct {
		name     string
		in       []byte
		wantID   byte
		wantData string
		wantErr  error
	}{
		{"stderr", want, 2, "err", nil},
		{"exit", []byte{3, 1, 0, 0, 0, 42}, 3, "*", nil},
		{"empty close-stdin", []byte{4, 0, 0, 0, 0}, 4, "", nil},
		{"header cut", []byte{1, 3, 0}, 0, "", errMalformed},
		{"data cut", []byte{1, 3, 0, 0, 0, 'a'}, 0, "", errMalformed},
		{"huge", []byte{1, 0xff, 0xff, 0xff, 0xff}, 0, "", errMalformed},
		{"eof", nil, 0, "", io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, data, err := readShellPacket(bytes.NewReader(tt.in))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if err == nil && (id != tt.wantID || string(data) != tt.wantData) {
				t.Errorf("got %d %q, want %d %q", id, data, tt.wantID, tt.wantData)
			}
		})
	}
}

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
		m := fileMode(tt.unix)
		if m.String() != tt.mode {
			t.Errorf("fileMode(%o) = %s, want %s", tt.unix, m, tt.mode)
		}
		if back := unixMode(m); back != tt.unix {
			t.Errorf("unixMode(%s) = %o, want %o", m, back, tt.unix)
		}
	}
	// gadb sends a bare permission, without file type bits.
	if m := fileMode(0o664); m.String() != "-rw-rw-r--" {
		t.Errorf("fileMode(0664) = %s", m)
	}
}

func TestParseSendSpec(t *testing.T) {
	tests := []struct {
		in       string
		wantPath string
		wantMode string
		wantErr  bool
	}{
		{"/sdcard/a.txt,33188", "/sdcard/a.txt", "-rw-r--r--", false},
		{"/sdcard/a,b.txt,436", "/sdcard/a,b.txt", "-rw-rw-r--", false},
		{"/sdcard/a.txt", "", "", true},
		{",420", "", "", true},
		{"/x,rw", "", "", true},
	}
	for _, tt := range tests {
		p, m, err := parseSendSpec(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("parseSendSpec(%q) error %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if err == nil && (p != tt.wantPath || m.String() != tt.wantMode) {
			t.Errorf("parseSendSpec(%q) = %q %s, want %q %s", tt.in, p, m, tt.wantPath, tt.wantMode)
		}
	}
}

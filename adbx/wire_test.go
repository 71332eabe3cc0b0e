package adbx

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
)

func TestReadV2(t *testing.T) {
	var s []byte
	s = appendV2(s, v2Stdout, []byte("hello "))
	s = appendV2(s, v2Stderr, []byte("oops\n"))
	s = appendV2(s, v2WindowSize, []byte("24x80,0x0\x00"))
	s = appendV2(s, v2Stdout, []byte("world\n"))
	s = appendV2(s, v2Stdout, nil)
	s = appendV2(s, v2Exit, []byte{3})
	// Bytes after the exit packet are not read.
	s = append(s, "trailing"...)
	// The first packet, byte by byte, as adb's shell_protocol.h lays it out.
	if want := []byte{1, 6, 0, 0, 0, 'h', 'e', 'l', 'l', 'o', ' '}; !bytes.Equal(s[:11], want) {
		t.Fatalf("packet bytes % x, want % x", s[:11], want)
	}
	var out, errb bytes.Buffer
	code, err := readV2(bytes.NewReader(s), &out, &errb)
	if err != nil {
		t.Fatal(err)
	}
	if code != 3 || out.String() != "hello world\n" || errb.String() != "oops\n" {
		t.Errorf("got exit %d stdout %q stderr %q", code, out.String(), errb.String())
	}
}

func TestReadV2Errors(t *testing.T) {
	huge := []byte{v2Stdout, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(huge[1:], v2MaxPacket+1)
	tests := []struct {
		name  string
		in    []byte
		noExt bool // errNoExit expected
		eof   bool // io.ErrUnexpectedEOF expected
	}{
		{"empty", nil, true, false},
		{"no exit", appendV2(nil, v2Stdout, []byte("x")), true, false},
		{"cut header", []byte{1, 2, 0}, false, true},
		{"cut payload", appendV2(nil, v2Stdout, []byte("abc"))[:7], false, true},
		{"exit too long", appendV2(nil, v2Exit, []byte{0, 0}), false, false},
		{"huge packet", huge, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readV2(bytes.NewReader(tc.in), io.Discard, io.Discard)
			if err == nil {
				t.Fatal("no error")
			}
			if errors.Is(err, errNoExit) != tc.noExt || errors.Is(err, io.ErrUnexpectedEOF) != tc.eof {
				t.Errorf("err %v: errNoExit %v (want %v), unexpected EOF %v (want %v)",
					err, errors.Is(err, errNoExit), tc.noExt, errors.Is(err, io.ErrUnexpectedEOF), tc.eof)
			}
		})
	}
}

func FuzzReadV2(f *testing.F) {
	f.Add(appendV2(appendV2(nil, v2Stdout, []byte("a")), v2Exit, []byte{0}))
	f.Add(appendV2(appendV2(nil, v2Stderr, []byte("e")), v2Exit, []byte{255}))
	f.Add([]byte{3, 1, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		var out, errb bytes.Buffer
		code, err := readV2(bytes.NewReader(b), &out, &errb)
		if err == nil && (code < 0 || code > 255) {
			t.Fatalf("exit %d", code)
		}
		if out.Len()+errb.Len() > len(b) {
			t.Fatalf("decoded %d bytes from %d", out.Len()+errb.Len(), len(b))
		}
	})
}

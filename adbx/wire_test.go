package adbx

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/perfgate/perfgate/internal/adbwire"
)

func TestReadV2(t *testing.T) {
	t.Parallel()
	var s []byte
	s = adbwire.AppendShellPacket(s, adbwire.ShellStdout, []byte("hello "))
	s = adbwire.AppendShellPacket(s, adbwire.ShellStderr, []byte("oops\n"))
	s = adbwire.AppendShellPacket(s, adbwire.ShellWindowSize, []byte("24x80,0x0\x00"))
	s = adbwire.AppendShellPacket(s, adbwire.ShellStdout, []byte("world\n"))
	s = adbwire.AppendShellPacket(s, adbwire.ShellStdout, nil)
	s = adbwire.AppendShellPacket(s, adbwire.ShellExit, []byte{3})
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
	t.Parallel()
	huge := []byte{adbwire.ShellStdout, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(huge[1:], adbwire.MaxShellPacket+1)
	tests := []struct {
		name  string
		in    []byte
		noExt bool // errNoExit expected
		eof   bool // io.ErrUnexpectedEOF expected
	}{
		{"empty", nil, true, false},
		{"no exit", adbwire.AppendShellPacket(nil, adbwire.ShellStdout, []byte("x")), true, false},
		{"cut header", []byte{1, 2, 0}, false, true},
		{"cut payload", adbwire.AppendShellPacket(nil, adbwire.ShellStdout, []byte("abc"))[:7], false, true},
		{"exit too long", adbwire.AppendShellPacket(nil, adbwire.ShellExit, []byte{0, 0}), false, false},
		{"huge packet", huge, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
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
	f.Add(adbwire.AppendShellPacket(adbwire.AppendShellPacket(nil, adbwire.ShellStdout, []byte("a")), adbwire.ShellExit, []byte{0}))
	f.Add(adbwire.AppendShellPacket(adbwire.AppendShellPacket(nil, adbwire.ShellStderr, []byte("e")), adbwire.ShellExit, []byte{255}))
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

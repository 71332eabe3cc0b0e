package adbwire

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

func TestShellPacket(t *testing.T) {
	// Worked by hand: id 2, length 3 little-endian, "err".
	want := []byte{2, 3, 0, 0, 0, 'e', 'r', 'r'}
	if got := AppendShellPacket(nil, ShellStderr, []byte("err")); !bytes.Equal(got, want) {
		t.Errorf("AppendShellPacket = % x, want % x", got, want)
	}
	tests := []struct {
		name     string
		in       []byte
		wantID   byte
		wantData string
		wantErr  []error
	}{
		{"stderr", want, 2, "err", nil},
		{"exit", []byte{3, 1, 0, 0, 0, 42}, 3, "*", nil},
		{"empty close-stdin", []byte{4, 0, 0, 0, 0}, 4, "", nil},
		{"header cut", []byte{1, 3, 0}, 0, "", []error{ErrMalformed, io.ErrUnexpectedEOF}},
		{"data cut", []byte{1, 3, 0, 0, 0, 'a'}, 0, "", []error{ErrMalformed, io.ErrUnexpectedEOF}},
		{"huge", []byte{1, 0xff, 0xff, 0xff, 0xff}, 0, "", []error{ErrMalformed}},
		{"just over the limit", AppendShellPacket(nil, ShellStdout, make([]byte, MaxShellPacket+1)), 0, "", []error{ErrMalformed}},
		{"eof", nil, 0, "", []error{io.EOF}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, data, err := NewShellReader(bytes.NewReader(tt.in)).Next()
			for _, w := range tt.wantErr {
				if !errors.Is(err, w) {
					t.Errorf("error %v, want %v", err, w)
				}
			}
			if tt.wantErr == nil && (err != nil || id != tt.wantID || string(data) != tt.wantData) {
				t.Errorf("got %d %q %v, want %d %q", id, data, err, tt.wantID, tt.wantData)
			}
		})
	}
}

// TestShellReaderStream reads packets one after another from one stream,
// the largest first, so a reused buffer that leaked would show.
func TestShellReaderStream(t *testing.T) {
	var s []byte
	s = AppendShellPacket(s, ShellStdout, []byte("hello world"))
	s = AppendShellPacket(s, ShellStderr, []byte("oops"))
	s = AppendShellPacket(s, ShellWindowSize, []byte("24x80,0x0\x00"))
	s = AppendShellPacket(s, ShellStdout, nil)
	s = AppendShellPacket(s, ShellExit, []byte{3})
	r := NewShellReader(bytes.NewReader(s))
	var got []string
	for {
		id, data, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(rune('0'+id))+":"+string(data))
	}
	want := []string{"1:hello world", "2:oops", "5:24x80,0x0\x00", "1:", "3:\x03"}
	if len(got) != len(want) {
		t.Fatalf("packets %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("packet %d = %q, want %q", i, got[i], want[i])
		}
	}
}

func FuzzShellReader(f *testing.F) {
	f.Add(AppendShellPacket(nil, ShellStdin, []byte("piped\ninput\n")))
	f.Add(AppendShellPacket(nil, ShellCloseStdin, nil))
	f.Add(AppendShellPacket(nil, ShellWindowSize, []byte("24x80,0x0\x00")))
	f.Add(AppendShellPacket(AppendShellPacket(nil, ShellStdout, []byte("a")), ShellExit, []byte{0}))
	f.Add([]byte{3, 1, 0, 0, 0, 3})
	f.Fuzz(func(t *testing.T, in []byte) {
		r := NewShellReader(bytes.NewReader(in))
		var out []byte
		for {
			id, data, err := r.Next()
			if err != nil {
				break
			}
			out = AppendShellPacket(out, id, data)
		}
		// What decodes encodes back to the same bytes.
		if !bytes.Equal(out, in[:len(out)]) {
			t.Fatalf("re-encoded % x from % x", out, in)
		}
	})
}

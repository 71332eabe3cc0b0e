package adbwire

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

func TestAppendMessage(t *testing.T) {
	// Worked by hand: "CNXN" is 0x4e584e43, its magic 0xb1a7b1bc; the
	// checksum of "ab" is 97+98 = 195.
	got := AppendMessage(nil, Message{Command: CmdCNXN, Arg0: 0x01000001, Arg1: 0x100000, Data: []byte("ab")})
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
		t.Errorf("AppendMessage = % x\nwant             % x", got, want)
	}
}

func TestCommandCodes(t *testing.T) {
	for code, name := range map[uint32]string{
		CmdSYNC: "SYNC", CmdCNXN: "CNXN", CmdAUTH: "AUTH", CmdOPEN: "OPEN",
		CmdOKAY: "OKAY", CmdCLSE: "CLSE", CmdWRTE: "WRTE", CmdSTLS: "STLS",
	} {
		if got := string([]byte{byte(code), byte(code >> 8), byte(code >> 16), byte(code >> 24)}); got != name {
			t.Errorf("code %#x spells %q, want %q", code, got, name)
		}
		if got := CommandName(code); got != name {
			t.Errorf("CommandName(%#x) = %q, want %q", code, got, name)
		}
	}
	if got := CommandName(7); got != "0x7" {
		t.Errorf("CommandName(7) = %q, want 0x7", got)
	}
}

func TestReadMessage(t *testing.T) {
	good := AppendMessage(nil, Message{Command: CmdWRTE, Arg0: 1, Arg1: 2, Data: []byte("hello")})
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
		{"bad magic", badMagic, 4096, false, "", ErrMalformed},
		{"bad checksum checked", badSum, 4096, true, "", ErrMalformed},
		{"bad checksum ignored", badSum, 4096, false, "hello", nil},
		{"payload over limit", good, 4, false, "", ErrMalformed},
		{"payload cut short", good[:len(good)-1], 4096, false, "", io.ErrUnexpectedEOF},
		{"header cut short", good[:10], 4096, false, "", io.ErrUnexpectedEOF},
		{"empty", nil, 4096, false, "", io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ReadMessage(bytes.NewReader(tt.in), tt.maxData, tt.verifySum)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if m.Command != CmdWRTE || m.Arg0 != 1 || m.Arg1 != 2 || string(m.Data) != tt.want {
				t.Errorf("got %v %q, want WRTE(1, 2) %q", m, m.Data, tt.want)
			}
		})
	}
}

func FuzzReadMessage(f *testing.F) {
	f.Add(AppendMessage(nil, Message{Command: CmdCNXN, Arg0: Version, Arg1: MaxPayload, Data: []byte("host::features=shell_v2,cmd,stat_v2,ls_v2\x00")}), true)
	f.Add(AppendMessage(nil, Message{Command: CmdOPEN, Arg0: 1, Data: []byte("shell,v2,raw:dumpsys gfxinfo com.example framestats\x00")}), false)
	f.Add(AppendMessage(nil, Message{Command: CmdWRTE, Arg0: 1, Arg1: 2, Data: AppendShellPacket(nil, ShellCloseStdin, nil)}), true)
	f.Add(AppendMessage(nil, Message{Command: CmdOKAY, Arg0: 1, Arg1: 2}), false)
	f.Fuzz(func(t *testing.T, in []byte, verify bool) {
		m, err := ReadMessage(bytes.NewReader(in), 4096, verify)
		if err != nil {
			return
		}
		// A message that decodes encodes back to the same bytes, except
		// for an unchecked data_check.
		out := AppendMessage(nil, m)
		if verify {
			if !bytes.Equal(out, in[:len(out)]) {
				t.Fatalf("re-encoded % x, decoded from % x", out, in[:len(out)])
			}
		} else if !bytes.Equal(out[:16], in[:16]) || !bytes.Equal(out[20:], in[20:len(out)]) {
			t.Fatalf("re-encoded % x, decoded from % x", out, in[:len(out)])
		}
	})
}

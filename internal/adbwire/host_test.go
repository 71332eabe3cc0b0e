package adbwire

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReadString(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr error
	}{
		{"version", "000chost:version", "host:version", nil},
		{"upper-case hex", "000Chost:version", "host:version", nil},
		{"empty", "0000", "", nil},
		{"not hex", "00zzhost", "", ErrMalformed},
		{"sign", "+fffhost", "", ErrMalformed},
		{"cut short", "0010host", "", io.ErrUnexpectedEOF},
		{"no header", "00", "", io.ErrUnexpectedEOF},
		{"nothing", "", "", io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadString(strings.NewReader(tt.in))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("ReadString(%q) error %v, want %v", tt.in, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("ReadString(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestWriteRequest(t *testing.T) {
	var b bytes.Buffer
	if err := WriteRequest(&b, "host:devices-l"); err != nil || b.String() != "000ehost:devices-l" {
		t.Errorf("WriteRequest wrote %q, %v; want 000ehost:devices-l", b.String(), err)
	}
	b.Reset()
	if err := WriteRequest(&b, strings.Repeat("x", MaxString+1)); err == nil || b.Len() != 0 {
		t.Errorf("a request over MaxString: wrote %d bytes, error %v; want nothing written and an error", b.Len(), err)
	}
	// A reply's payload is cut to what the prefix can say instead.
	long := AppendString(nil, strings.Repeat("y", MaxString+10))
	if string(long[:4]) != "ffff" || len(long) != 4+MaxString {
		t.Errorf("AppendString of %d bytes: prefix %q, %d bytes", MaxString+10, long[:4], len(long))
	}
}

func TestReplies(t *testing.T) {
	var b bytes.Buffer
	_ = WriteOkay(&b, "0029")
	_ = WriteFail(&b, "device 'x' not found")
	_ = WriteOkay(&b)
	want := "OKAY00040029" + "FAIL0014device 'x' not found" + "OKAY"
	if b.String() != want {
		t.Fatalf("replies = %q, want %q", b.String(), want)
	}
	r := strings.NewReader(b.String())
	ok, reason, err := ReadStatus(r)
	if !ok || reason != "" || err != nil {
		t.Errorf("first status: %v %q %v, want OKAY", ok, reason, err)
	}
	if s, err := ReadString(r); s != "0029" || err != nil {
		t.Errorf("payload %q, %v; want 0029", s, err)
	}
	ok, reason, err = ReadStatus(r)
	if ok || reason != "device 'x' not found" || err != nil {
		t.Errorf("second status: %v %q %v, want FAIL with its reason", ok, reason, err)
	}
	if ok, _, err = ReadStatus(r); !ok || err != nil {
		t.Errorf("third status: %v %v, want OKAY", ok, err)
	}
}

func TestReadStatusErrors(t *testing.T) {
	tests := []struct {
		in      string
		wantErr error
	}{
		{"WHAT", ErrMalformed},
		{"FAIL", io.ErrUnexpectedEOF},
		{"FAIL0005ab", io.ErrUnexpectedEOF},
		{"OK", io.ErrUnexpectedEOF},
		{"", io.EOF},
	}
	for _, tt := range tests {
		if _, _, err := ReadStatus(strings.NewReader(tt.in)); !errors.Is(err, tt.wantErr) {
			t.Errorf("ReadStatus(%q) error %v, want %v", tt.in, err, tt.wantErr)
		}
	}
}

// Seeds are real exchanges: what the stock adb 29 client and server and
// gadb send, as captured by a logging proxy in front of adbtest's
// endpoints.
func FuzzReadString(f *testing.F) {
	for _, s := range []string{"000chost:version", "0017host:tport:serial:sim-1", "001bhost:forward:tcp:0;tcp:6790", "0005sync:", "zzzz", "0000"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		s, err := ReadString(bytes.NewReader(in))
		if err != nil {
			return
		}
		if out := AppendString(nil, s); !bytes.Equal(bytes.ToLower(out[:4]), bytes.ToLower(in[:4])) || !bytes.Equal(out[4:], in[4:len(out)]) {
			t.Fatalf("re-encoded %q from %q", out, in)
		}
	})
}

func FuzzReadStatus(f *testing.F) {
	for _, s := range []string{"OKAY", "FAIL0014device 'x' not found", "OKAYOKAY0005", "FAIL", "FAILzz"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		ok, reason, err := ReadStatus(bytes.NewReader(in))
		if err != nil {
			return
		}
		if ok != bytes.HasPrefix(in, []byte("OKAY")) || len(reason) > len(in) {
			t.Fatalf("ReadStatus(%q) = %v %q", in, ok, reason)
		}
	})
}

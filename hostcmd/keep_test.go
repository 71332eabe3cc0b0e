package hostcmd

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// keepWant is what a keeper of max bytes keeps of out: all of it when it
// fits, else its first max/2 bytes, a line counting those left out, and
// its last max-max/2.
func keepWant(out []byte, max int) []byte {
	if max <= 0 {
		return nil
	}
	if len(out) <= max {
		return out
	}
	head, tail := max/2, max-max/2
	want := append([]byte(nil), out[:head]...)
	want = fmt.Appendf(want, "\n[… %d bytes left out …]\n", len(out)-max)
	return append(want, out[len(out)-tail:]...)
}

func TestKeeper(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		max    int
		writes []string
	}{
		{10, []string{"hello"}},
		{10, []string{"0123456789"}},
		{10, []string{"0123456789abcdef"}},
		{10, []string{"01", "2345678", "9abc", "defghij", "k"}},
		{7, []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p"}},
		{-1, []string{"nothing kept"}},
	} {
		k := newKeeper(tc.max)
		var all []byte
		for _, w := range tc.writes {
			if n, err := k.Write([]byte(w)); n != len(w) || err != nil {
				t.Fatalf("Write(%q) = %d, %v", w, n, err)
			}
			all = append(all, w...)
		}
		if got, want := k.Bytes(), keepWant(all, tc.max); !bytes.Equal(got, want) {
			t.Errorf("max %d, writes %q: kept %q, want %q", tc.max, tc.writes, got, want)
		}
	}
}

// FuzzKeeper: whatever the writes, a keeper keeps the head and tail of
// the whole output and counts what it left out.
func FuzzKeeper(f *testing.F) {
	f.Add([]byte("0123456789abcdef"), 10, 3)
	f.Add([]byte("x"), 1, 1)
	f.Fuzz(func(t *testing.T, out []byte, max, chunk int) {
		if max > 1<<16 || chunk <= 0 {
			t.Skip()
		}
		k := newKeeper(max)
		for p := out; len(p) > 0; {
			n := min(chunk, len(p))
			k.Write(p[:n])
			p = p[n:]
		}
		if got, want := k.Bytes(), keepWant(out, max); !bytes.Equal(got, want) {
			t.Errorf("max %d, chunk %d: kept %q, want %q", max, chunk, got, want)
		}
	})
}

// FuzzParseRestart: only "cold" and "none" are restarts; anything else is
// an error that quotes it.
func FuzzParseRestart(f *testing.F) {
	for _, s := range []string{"cold", "none", "warm", "", "cold\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRestart(s)
		switch {
		case s == "cold" || s == "none":
			if err != nil || r.String() != s {
				t.Errorf("ParseRestart(%q) = %v, %v", s, r, err)
			}
		case err == nil:
			t.Errorf("ParseRestart(%q) = %v, want an error", s, r)
		case !strings.HasPrefix(err.Error(), "restart ") || !strings.HasSuffix(err.Error(), ": want cold or none"):
			t.Errorf("ParseRestart(%q): %v", s, err)
		}
	})
}

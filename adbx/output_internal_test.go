package adbx

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

// A cappedBuffer gives back what was written, whatever the writes' sizes
// and its blocks; through finds the last match of its pattern wherever
// the blocks cut it; the bound is exact.
func TestCappedBuffer(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pat := []byte("\nMARKER-123 ")
	for try := 0; try < 200; try++ {
		var text []byte
		if try < 12 {
			// The last match across the first blocks' edge (4 KiB, then
			// 8 KiB more), at every cut of it.
			at := []int{4096, 4096 + 8192}[try%2] - try/2
			text = append(bytes.Repeat([]byte("z"), at), pat...)
			text = append(text, bytes.Repeat([]byte("y"), 100)...)
		}
		for len(text) < rng.IntN(3<<20) && try >= 12 {
			if rng.IntN(50) == 0 {
				text = append(text, pat...)
				text = append(text, "7 0\n"...)
			}
			text = append(text, byte('a'+rng.IntN(26)))
		}
		c := &cappedBuffer{budget: &outputBudget{left: int64(len(text))}}
		for p := text; len(p) > 0; {
			n := min(len(p), 1+rng.IntN(70_000))
			if _, err := c.Write(p[:n]); err != nil {
				t.Fatal(err)
			}
			p = p[n:]
		}
		if _, err := c.Write([]byte("x")); !errors.Is(err, errOutputLimit) {
			t.Fatalf("a byte past the bound: %v", err)
		}
		want := text
		if i := bytes.LastIndex(text, pat); i >= 0 {
			want = text[:min(len(text), i+len(pat)+64)]
		} else {
			want = text[:min(len(text), 128)]
		}
		if got := c.through(pat); !bytes.Equal(got, want) {
			t.Fatalf("try %d: through gave %d bytes, want %d", try, len(got), len(want))
		}
		if got := c.Bytes(); !bytes.Equal(got, text) {
			t.Fatalf("try %d: Bytes gave %d bytes, want %d", try, len(got), len(text))
		}
	}
}

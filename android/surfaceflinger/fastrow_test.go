package surfaceflinger

import (
	"bytes"
	"testing"

	"github.com/perfgate/perfgate/android/devtext"
)

// FuzzSfFastRow: a row sfFastRow takes is three integers, as the general
// path reads them.
func FuzzSfFastRow(f *testing.F) {
	for _, s := range []string{"1\t2\t3", "16666667 9223372036854775807 5", "9223372036854775808\t1\t2", " 12345678  123456789\t1 ", "1 2", "1 2 3 4", "1a 2 3", "00000000000000000001 2 3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := sfFastRow([]byte(s))
		if !ok {
			return // the general path decides
		}
		var want [3]int64
		n := 0
		for fld := range bytes.FieldsSeq([]byte(s)) {
			v, good := devtext.ParseInt(fld)
			if !good || n == 3 || fld[0] == '+' || fld[0] == '-' {
				t.Fatalf("sfFastRow(%q) = %v, but field %q", s, got, fld)
			}
			want[n] = v
			n++
		}
		if n != 3 || got != want {
			t.Fatalf("sfFastRow(%q) = %v, want %v (%d fields)", s, got, want, n)
		}
	})
}

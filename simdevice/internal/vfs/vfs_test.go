package vfs

import (
	"io/fs"
	"testing"
)

func TestApplyMode(t *testing.T) {
	for _, tc := range []struct {
		old  uint32
		mode string
		want uint32
		ok   bool
	}{
		{0o644, "755", 0o755, true},
		{0o644, "u+x", 0o744, true},
		{0o777, "go-w", 0o755, true},
		{0o600, "a+r", 0o644, true},
		{0o777, "o=", 0o770, true},
		{0o000, "+x", 0o111, true},
		{0o644, "8", 0, false},
		{0o644, "u*x", 0, false},
		{0o644, "", 0, false},
		{0o644, "77777", 0, false},
	} {
		got, err := applyMode(fs.FileMode(tc.old), tc.mode)
		if (err == nil) != tc.ok || tc.ok && uint32(got) != tc.want {
			t.Errorf("applyMode(%o, %q) = %o, %v; want %o ok=%v", tc.old, tc.mode, got, err, tc.want, tc.ok)
		}
	}
}

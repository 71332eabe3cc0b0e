package perftest

import (
	"testing"
)

func TestBracket(t *testing.T) {
	hosts := []int64{0, 100, 200, 300, 400}
	all := func(int) bool { return true }
	for _, tc := range []struct {
		name       string
		ok         func(int) bool
		start, end int64
		a, b       int
		found      bool
	}{
		{"edges on samples", all, 100, 300, 1, 3, true},
		{"edges between samples", all, 150, 250, 1, 3, true},
		{"step before the first sample", all, -50, 150, 0, 2, true},
		{"step after the last sample", all, 350, 500, 3, 4, true},
		{"inside one interval", all, 120, 180, 1, 2, true},
		{"skips unusable samples", func(i int) bool { return i != 1 && i != 3 }, 150, 250, 0, 4, true},
		{"one usable sample", func(i int) bool { return i == 2 }, 150, 250, 2, -1, false},
		{"none", func(int) bool { return false }, 0, 400, -1, -1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b, ok := bracket(len(hosts), func(i int) int64 { return hosts[i] }, tc.ok, tc.start, tc.end)
			if ok != tc.found || ok && (a != tc.a || b != tc.b) {
				t.Errorf("bracket = %d, %d, %v; want %d, %d, %v", a, b, ok, tc.a, tc.b, tc.found)
			}
		})
	}
}

package devtext

import (
	"strconv"
	"testing"
)

// FuzzDigits: Digits counts the digits a text starts with, and their
// value is strconv's for up to 19.
func FuzzDigits(f *testing.F) {
	for _, s := range []string{"", "0", "12345678", "123456789,", "9223372036854775807\t1", "18446744073709551615", "00000000000000000001", "1234567a", "9999999999999999999 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := 0
		for want < len(s) && s[want] >= '0' && s[want] <= '9' {
			want++
		}
		v, n := Digits([]byte(s))
		if n != want {
			t.Fatalf("Digits(%q): %d digits, want %d", s, n, want)
		}
		if n == 0 || n > 19 {
			return
		}
		if w, err := strconv.ParseUint(s[:n], 10, 64); err != nil || v != w {
			t.Fatalf("Digits(%q) = %d, want %d (%v)", s, v, w, err)
		}
	})
}

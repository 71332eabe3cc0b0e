package procfs

import (
	"errors"
	"github.com/perfgate/perfgate/android/devtext"
	"testing"
)

func TestParseProcUptime(t *testing.T) {
	for in, want := range map[string]int64{
		"11834.42 90023.13\n":                 11834_420_000_000,
		"5.1 1.0":                             5_100_000_000,
		"7 1":                                 7_000_000_000,
		"0.00 0.00":                           0,
		"1.1234567891234 1":                   1_123_456_789,
		"\xff\xfe4\x00.\x005\x00\r\x00\n\x00": 4_500_000_000, // saved by PowerShell
	} {
		got, err := ParseUptime([]byte(in))
		if err != nil || got != want {
			t.Errorf("ParseProcUptime(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "abc 1", "-3.2 1", "3.-2 1", "99999999999999999999.1 1", "cat: /proc/uptime: Permission denied"} {
		var pe *devtext.ParseError
		if got, err := ParseUptime([]byte(in)); !errors.As(err, &pe) || got != 0 {
			t.Errorf("ParseProcUptime(%q) = %d, %v; want a *ParseError", in, got, err)
		}
	}
}

func FuzzParseProcUptime(f *testing.F) {
	for _, s := range []string{"11834.42 90023.13\n", "0.00 0.00", "", "1.", ".5", "99999999999999999999.1"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if ns, err := ParseUptime(b); err == nil && ns < 0 {
			t.Errorf("negative uptime %d from %q", ns, b)
		}
	})
}

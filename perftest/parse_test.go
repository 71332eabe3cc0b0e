package perftest

import (
	"bytes"
	"strings"
	"testing"
)

func TestParseProcUptime(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"11834.42 90023.13\n", 11834_420_000_000, true},
		{"5.1 1.0", 5_100_000_000, true},
		{"7 1", 7_000_000_000, true},
		{"0.00 0.00", 0, true},
		{"", 0, false},
		{"abc 1", 0, false},
		{"-3.2 1", 0, false},
		{"3.-2 1", 0, false},
		{"1.1234567891234 1", 1_123_456_789, true},
	} {
		got, ok := parseProcUptime([]byte(tc.in))
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseProcUptime(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestSplitBefore(t *testing.T) {
	in := "Name:\ta\nPid:\t1\nName:\tb\nPid:\t2\n"
	parts := splitBefore([]byte(in), "Name:")
	if len(parts) != 2 || string(parts[0]) != "Name:\ta\nPid:\t1\n" || string(parts[1]) != "Name:\tb\nPid:\t2\n" {
		t.Errorf("splitBefore = %q", parts)
	}
	if got := splitBefore([]byte("junk\n"), "Name:"); len(got) != 0 {
		t.Errorf("no prefix: %q", got)
	}
}

func TestShellQuoteRefusesInjection(t *testing.T) {
	// A layer name goes into `dumpsys SurfaceFlinger --latency <layer>`.
	for _, in := range []string{"SurfaceView[a/b](BLAST)#0", "it's; reboot", "$(reboot)", "a b"} {
		q := shellQuote(in)
		if !strings.HasPrefix(q, "'") || !strings.HasSuffix(q, "'") {
			t.Errorf("shellQuote(%q) = %s, not single-quoted", in, q)
		}
	}
}

func TestValidatePackage(t *testing.T) {
	for _, good := range []string{"com.example.feed", "a.b", "com.perfgate.demo_2"} {
		if err := validatePackage(good); err != nil {
			t.Errorf("%q refused: %v", good, err)
		}
	}
	for _, bad := range []string{"", "com", "com.x;reboot", "com.x y", "com.x'", "$(reboot).x", "1com.x", "com..x"} {
		if err := validatePackage(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func FuzzParseProcUptime(f *testing.F) {
	for _, s := range []string{"11834.42 90023.13\n", "0.00 0.00", "", "1.", ".5", "99999999999999999999.1"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ns, ok := parseProcUptime(b)
		if ok && ns < 0 {
			t.Errorf("negative uptime %d from %q", ns, b)
		}
	})
}

func FuzzSplitBefore(f *testing.F) {
	f.Add([]byte("Name:\ta\nPid:\t1\nName:\tb\n"))
	f.Add([]byte("x\nName:"))
	f.Fuzz(func(t *testing.T, b []byte) {
		parts := splitBefore(b, "Name:")
		joined := bytes.Join(parts, nil)
		if !bytes.HasSuffix(b, joined) {
			t.Errorf("parts %q are not a suffix of %q", parts, b)
		}
		for _, p := range parts {
			if !bytes.HasPrefix(p, []byte("Name:")) {
				t.Errorf("part %q does not start with the prefix", p)
			}
		}
	})
}

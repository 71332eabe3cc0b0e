package perftest

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

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

// A session refuses a package name that is not one before it sends a
// command: the name goes into device shell commands.
func TestSessionValidatesPackage(t *testing.T) {
	for _, bad := range []string{"com", "com.x;reboot", "com.x y", "com.x'", "$(reboot).x", "1com.x", "com..x"} {
		_, err := NewSession(context.Background(), nil, Config{Package: bad, ResultFile: "-"})
		if err == nil || !strings.HasPrefix(err.Error(), "perftest: invalid package name ") {
			t.Errorf("%q: %v", bad, err)
		}
	}
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

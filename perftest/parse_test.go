package perftest

import (
	"context"
	"strings"
	"testing"
)

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

package shell

import (
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/perfgate/perfgate/internal/fixtures"
)

// FuzzGrepPattern checks the POSIX-to-Go regex translation: it must not
// panic, and a pattern without special characters must match exactly the
// lines that contain it, in all three modes.
func FuzzGrepPattern(f *testing.F) {
	for _, s := range []string{"Skipped [0-9]* frames", `Davey! duration=\([0-9]*\)ms`, "a|b", "^I", "[]a]", "[[:digit:]]+", `\<x\>`, "*a", "a{2}", "Choreographer"} {
		f.Add(s)
	}
	hay := lines(fixtures.Read(f, "logcat_choreographer/celadon188_threadtime_davey_skipped79.txt"))
	f.Fuzz(func(t *testing.T, pat string) {
		for _, mode := range []byte{'G', 'E', 'F'} {
			re, err := compileGrep(grepOpts{mode: mode, patterns: []string{pat}})
			if err != nil {
				continue
			}
			literal := !strings.ContainsAny(pat, `\^$.[]*+?(){}|`+"\n") && utf8.ValidString(pat)
			if !literal && mode != 'F' {
				continue
			}
			if strings.Contains(pat, "\n") {
				continue
			}
			for _, l := range hay {
				if got, want := re.MatchString(l), strings.Contains(l, pat); got != want {
					t.Fatalf("mode %c pattern %q (regexp %q) on %q: match %v, want %v", mode, pat, re, l, got, want)
				}
			}
		}
	})
}

// FuzzStrftime: any format formats without panicking, and text without a
// conversion comes back unchanged.
func FuzzStrftime(f *testing.F) {
	for _, s := range []string{"%s", "%Y-%m-%d %H:%M:%S.%N", "%", "%%%", "plain", "%e%k%I%p%j"} {
		f.Add(s, int64(1700000000))
	}
	f.Fuzz(func(t *testing.T, format string, sec int64) {
		tm := time.Unix(sec%(1<<40), 0).UTC()
		out := strftime(format, tm)
		if !strings.Contains(format, "%") && out != format {
			t.Fatalf("strftime(%q) = %q, want it unchanged", format, out)
		}
	})
}

// The regexp the translation builds for a literal is the literal.
func TestGrepLiteralRegexp(t *testing.T) {
	re, err := compileGrep(grepOpts{mode: 'F', patterns: []string{"a.b", "c"}})
	if err != nil {
		t.Fatal(err)
	}
	if re.String() != "(?:"+regexp.QuoteMeta("a.b")+")|(?:c)" {
		t.Errorf("regexp = %q", re)
	}
}

// FuzzAwkProgram: any program text parses or fails without panicking, and
// a parsed program runs over real logcat lines without panicking.
func FuzzAwkProgram(f *testing.F) {
	for _, s := range []string{"{print $2}", "/Choreographer/ {print $NF, NR}", "END {print NR}", `{print $1 "-" $3}`, "/x/", "{n++}", "/unterminated", "{print $-1}"} {
		f.Add(s)
	}
	sh := newTestShell(f, false)
	if err := sh.cfg.FS.WriteFile("/data/local/tmp/log.txt", fixtures.Read(f, "logcat_choreographer/celadon188_threadtime_davey_skipped79.txt"), 0o644, time.Now(), false); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, prog string) {
		rules, err := parseAwk(prog)
		if err != nil {
			return
		}
		if len(rules) == 0 {
			t.Fatalf("parseAwk(%q) returned no rules and no error", prog)
		}
		p := &proc{ctx: context.Background(), s: sh, v: sh.cfg.FS, args: []string{"awk", prog, "/data/local/tmp/log.txt"},
			dir: "/", stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
		if st := p.awk(); st != 0 {
			t.Fatalf("awk %q parsed but exited %d", prog, st)
		}
	})
}

// FuzzTrSet: a set without escapes, ranges or classes is its own bytes.
func FuzzTrSet(f *testing.F) {
	for _, s := range []string{"a-z", `\r\n`, "[:digit:]", `\101-\132`, "abc", "z-a", `\777`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, set string) {
		got, err := expandSet(set)
		if err == nil && !strings.ContainsAny(set, `\-[`) && string(got) != set {
			t.Fatalf("expandSet(%q) = %q", set, got)
		}
	})
}

package simdevice

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

// FuzzShell runs arbitrary command lines: the shell must neither panic nor
// outlive its context, whatever the script.
func FuzzShell(f *testing.F) {
	for _, s := range []string{
		"cat /proc/stat; cat /proc/1/stat 2>/dev/null",
		"dumpsys gfxinfo com.example framestats | head -n 3",
		"pidof com.example || echo none",
		"for t in /proc/1/task/*/stat; do cat $t; done",
		"echo a > /data/local/tmp/x && grep -c a /data/local/tmp/x",
		"x=$(id -u); [ $x -eq 2000 ] && echo shell",
		"ls -la /sdcard /nope 2>&1 | wc -l",
		"printf '%s\\n' a b | sort -r | uniq -c",
		"sh -c 'exit 3'; echo $?",
		"seq 3 | tail -n +2 | cut -c 1",
		"logcat -d -v threadtime | grep -E 'Skipped [0-9]+ frames'",
		"date +%s%N; getprop ro.build.version.sdk",
		"cd /data/local/tmp; mkdir -p a/b; rm -r a; echo */",
		"(echo out; echo err >&2) 2>&1 >/dev/null",
		"eval 'cat <(echo x)'",
		"stat -c '%n %s %a %F' /system/build.prop",
		"base64 /system/build.prop | base64 -d | head -c 20",
		"chmod u+x /data/local/tmp/x; /data/local/tmp/x",
	} {
		f.Add(s)
	}
	d, err := New(Config{})
	if err != nil {
		f.Fatal(err)
	}
	defer d.Close()
	f.Fuzz(func(t *testing.T, script string) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		done := make(chan struct{})
		go func() {
			defer close(done)
			d.Shell(ctx, script, strings.NewReader("in\n"), io.Discard, io.Discard)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("Shell(%q) still running 5s after a 200ms deadline", script)
		}
	})
}

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
	d, err := New(Config{})
	if err != nil {
		f.Fatal(err)
	}
	defer d.Close()
	w, _ := d.Create("/data/local/tmp/log.txt", 0o644, time.Now())
	w.Write(fixtures.Read(f, "logcat_choreographer/celadon188_threadtime_davey_skipped79.txt"))
	w.Close()
	f.Fuzz(func(t *testing.T, prog string) {
		rules, err := parseAwk(prog)
		if err != nil {
			return
		}
		if len(rules) == 0 {
			t.Fatalf("parseAwk(%q) returned no rules and no error", prog)
		}
		p := &proc{ctx: context.Background(), d: d, v: d.fsFor(), args: []string{"awk", prog, "/data/local/tmp/log.txt"},
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

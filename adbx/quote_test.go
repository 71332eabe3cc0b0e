package adbx

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/perfgate/perfgate/android/dumpsys"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// shellWords parses src as a POSIX shell command line and returns the
// words of its single command, expanded as a shell would (without running
// anything: command substitutions make the parse fail).
func shellWords(t testing.TB, src string) ([]string, bool) {
	t.Helper()
	f, err := syntax.NewParser(syntax.Variant(syntax.LangPOSIX)).Parse(strings.NewReader(src), "")
	if err != nil || len(f.Stmts) != 1 {
		return nil, false
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || f.Stmts[0].Redirs != nil || f.Stmts[0].Background {
		return nil, false
	}
	cfg := &expand.Config{Env: expand.ListEnviron(), NoUnset: true}
	for _, w := range call.Args {
		for _, p := range w.Parts {
			switch p.(type) {
			case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ParamExp, *syntax.ArithmExp:
				return nil, false
			}
		}
	}
	words, err := expand.Fields(cfg, call.Args...)
	if err != nil {
		return nil, false
	}
	return words, true
}

// localShellWord asks the host's /bin/sh what one quoted word reads as;
// it covers bytes the Go shell parser refuses (invalid UTF-8).
func localShellWord(t testing.TB, q string) string {
	t.Helper()
	out, err := exec.Command("/bin/sh", "-c", "printf %s "+q).Output()
	if err != nil {
		t.Fatalf("/bin/sh -c 'printf %%s %s': %v", q, err)
	}
	return string(out)
}

func TestQuote(t *testing.T) {
	t.Parallel()
	tests := []string{
		"", "plain", "com.example.app", "two words", "it's", "'", "''", `"double"`,
		"$(reboot)", "`id`", "a;reboot", "x && y", "a|b", "$HOME", "*", "~", "a\nb", "\t", "\\",
		"01-02 15:04:05.000", "-T", "#comment", "!", "{a,b}",
	}
	for _, s := range tests {
		q := Quote(s)
		words, ok := shellWords(t, "echo "+q)
		if !ok || len(words) != 2 || words[1] != s {
			t.Errorf("Quote(%q) = %s: the shell reads %q (ok %v), want one word %q", s, q, words, ok, s)
		}
	}
}

// TestQuoteLeavesSafeWordsBare keeps device command lines readable in
// logs and ps: plain words need no quotes.
func TestQuoteLeavesSafeWordsBare(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"com.example.app", "/data/local/tmp/x", "tcp:8080", "-v", "a=b", "ActivityManager:I"} {
		if q := Quote(s); q != s {
			t.Errorf("Quote(%q) = %q, want it bare", s, q)
		}
	}
}

func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", "it's", "$(reboot)", "a\x00b", "\xff", "'\"\\`$"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.IndexByte(s, 0) >= 0 {
			return // no shell word can hold a NUL; commands with one are refused
		}
		q := Quote(s)
		if !utf8.ValidString(s) {
			if got := localShellWord(t, q); got != s {
				t.Fatalf("Quote(%q) = %s: /bin/sh reads %q", s, q, got)
			}
			return
		}
		words, ok := shellWords(t, "echo "+q)
		if !ok || len(words) != 2 || words[1] != s {
			t.Fatalf("Quote(%q) = %s: the shell reads %q (ok %v)", s, q, words, ok)
		}
	})
}

// FuzzValidatePackage checks that whatever dumpsys.ValidatePackage accepts
// is one plain shell word, so it can go into a command line unquoted, and
// that adbx refuses it with a command appended.
func FuzzValidatePackage(f *testing.F) {
	for _, s := range []string{"com.example.app", "com.x;reboot", "a.b", "a.$(x)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if dumpsys.ValidatePackage(s) != nil {
			return
		}
		if Quote(s) != s {
			t.Fatalf("ValidatePackage accepted %q, which needs quoting", s)
		}
		if _, err := (&Device{}).AppProcesses(context.Background(), s+";reboot"); err == nil {
			t.Fatalf("AppProcesses accepted %q", s+";reboot")
		}
	})
}

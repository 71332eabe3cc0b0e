package simdevice

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/fixtures"
)

// newTestDevice returns a closed-at-cleanup device.
func newTestDevice(t testing.TB, cfg Config) *Device {
	t.Helper()
	d, err := New(cfg)
	if err != nil {
		t.Fatalf("New(%+v): %v", cfg, err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// run runs cmd with a deadline and returns stdout, stderr and the status.
func run(t testing.TB, d *Device, cmd, stdin string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	var in io.Reader
	if stdin != "" {
		in = strings.NewReader(stdin)
	}
	st := d.Shell(ctx, cmd, in, &out, &errb)
	return out.String(), errb.String(), st
}

type shellCase struct {
	name    string
	cmd     string
	stdin   string
	wantOut string
	wantErr string
	code    int
}

func runCases(t *testing.T, d *Device, cases []shellCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := run(t, d, tc.cmd, tc.stdin)
			if out != tc.wantOut || errs != tc.wantErr || code != tc.code {
				t.Errorf("Shell(%q)\n got stdout %q stderr %q status %d\nwant stdout %q stderr %q status %d",
					tc.cmd, out, errs, code, tc.wantOut, tc.wantErr, tc.code)
			}
		})
	}
}

// The expected texts below are what mksh and toybox print on a phone for the
// same command lines (wording from the mksh and toybox sources' messages).
func TestShellSemantics(t *testing.T) {
	d := newTestDevice(t, Config{})
	runCases(t, d, []shellCase{
		{name: "sequence", cmd: "echo a; echo b", wantOut: "a\nb\n"},
		{name: "and-or", cmd: "false && echo no || echo yes", wantOut: "yes\n"},
		{name: "status of last", cmd: "true; false", code: 1},
		{name: "dollar question", cmd: "false; echo $?; true; echo $?", wantOut: "1\n0\n"},
		{name: "exit N", cmd: "echo before; exit 7; echo after", wantOut: "before\n", code: 7},
		{name: "exit in subshell", cmd: "(exit 4); echo $?", wantOut: "4\n"},
		{name: "command substitution", cmd: `x=$(echo hi | cat); echo "[$x]"`, wantOut: "[hi]\n"},
		{name: "variables", cmd: `a=1; b="$a 2"; echo $b`, wantOut: "1 2\n"},
		{name: "dollar zero", cmd: "echo $0", wantOut: "/system/bin/sh\n"},
		{name: "home and tmpdir", cmd: "echo $HOME $TMPDIR $EXTERNAL_STORAGE", wantOut: "/ /data/local/tmp /sdcard\n"},
		{name: "pipe", cmd: "printf 'b\\na\\nc\\n' | sort | head -n 2", wantOut: "a\nb\n"},
		{name: "pipe status is last", cmd: "false | true", code: 0},
		{name: "pipe status failing last", cmd: "true | false", code: 1},
		{name: "stderr redirect to stdout", cmd: "cat /nope 2>&1", wantOut: "cat: /nope: No such file or directory\n", code: 1},
		{name: "stdout to stderr", cmd: "echo oops >&2", wantErr: "oops\n"},
		{name: "stderr to dev null", cmd: "cat /nope 2>/dev/null; echo $?", wantOut: "1\n"},
		{name: "stdin from dev null", cmd: "cat < /dev/null; echo done", wantOut: "done\n"},
		{name: "not found", cmd: "frobnicate --x", wantErr: "/system/bin/sh: frobnicate: inaccessible or not found\n", code: 127},
		{name: "not found by path", cmd: "/system/bin/nope", wantErr: "/system/bin/sh: /system/bin/nope: inaccessible or not found\n", code: 127},
		{name: "not found keeps going", cmd: "nope 2>/dev/null; echo $?", wantOut: "127\n"},
		{name: "cat missing", cmd: "cat /x", wantErr: "cat: /x: No such file or directory\n", code: 1},
		{name: "cat directory", cmd: "cat /system", wantErr: "cat: /system: Is a directory\n", code: 1},
		{name: "cat stdin", cmd: "cat", stdin: "piped\n", wantOut: "piped\n"},
		{name: "cat dash", cmd: "cat -", stdin: "x", wantOut: "x"},
		{name: "read builtin", cmd: "read a b; echo $b-$a", stdin: "one two\n", wantOut: "two-one\n"},
		{name: "test builtin", cmd: "test -d /data/local/tmp && [ -e /system/bin/cat ] && [ ! -e /nope ] && echo ok", wantOut: "ok\n"},
		{name: "test file", cmd: "[ -f /system/build.prop ] && [ ! -f /system ] && echo ok", wantOut: "ok\n"},
		{name: "cd and pwd", cmd: "cd /data/local/tmp && pwd", wantOut: "/data/local/tmp\n"},
		{name: "cd missing", cmd: "cd /nope 2>/dev/null || echo failed", wantOut: "failed\n"},
		{name: "sdcard alias", cmd: "cd /sdcard && pwd; ls -d /storage/self/primary", wantOut: "/sdcard\n/storage/self/primary\n"},
		{name: "binary echo", cmd: "/system/bin/echo hi; toybox echo there", wantOut: "hi\nthere\n"},
		{name: "sh -c nested", cmd: `sh -c 'echo $0:$1:$2; exit 3' me a b; echo $?`, wantOut: "me:a:b\n3\n"},
		{name: "sh -c inherits exported", cmd: `export X=1; Y=2; sh -c 'echo ${X}${Y:-unset}'`, wantOut: "1unset\n"},
		{name: "empty command reads stdin", cmd: "", stdin: "echo $0; id -u\n", wantOut: "/system/bin/sh\n2000\n"},
		{name: "empty command without stdin", cmd: " ", wantOut: ""},
		{name: "sh reads script from stdin", cmd: "sh", stdin: "echo from-stdin; exit 5\n", wantOut: "from-stdin\n", code: 5},
		{name: "type and command -v", cmd: "command -v cat; command -v nope || echo none; type echo", wantOut: "/system/bin/cat\nnone\necho is a shell builtin\n"},
		{name: "which", cmd: "which ls grep; which nope; echo $?", wantOut: "/system/bin/ls\n/system/bin/grep\n1\n"},
		{name: "source", cmd: "echo 'V=sourced' > /data/local/tmp/s.sh; . /data/local/tmp/s.sh; echo $V", wantOut: "sourced\n"},
		{name: "source missing", cmd: ". /data/local/tmp/none.sh", wantErr: "/system/bin/sh: /data/local/tmp/none.sh: No such file or directory\n", code: 1},
	})
}

// mksh reports a bad -c script as "/system/bin/sh: syntax error: ..." with
// status 1 and runs none of it; process substitution is not mksh syntax.
func TestShellSyntaxErrors(t *testing.T) {
	d := newTestDevice(t, Config{})
	for _, cmd := range []string{"if then", "echo ok; (", "cat <(echo hi)", "echo $((1 +))", "fi"} {
		out, errs, code := run(t, d, cmd, "")
		if code != 1 || out != "" || !strings.HasPrefix(errs, "/system/bin/sh: syntax error: ") || strings.Contains(errs, ":1:") {
			t.Errorf("Shell(%q) = %q %q %d; want no output, a mksh-style syntax error without position, status 1", cmd, out, errs, code)
		}
	}
}

func TestShellCommands(t *testing.T) {
	d := newTestDevice(t, Config{})
	seed := "printf 'alpha\\nBeta\\ngamma delta\\nalphabet\\n' > /data/local/tmp/w.txt; "
	runCases(t, d, []shellCase{
		{name: "id shell", cmd: "id -u; id -un", wantOut: "2000\nshell\n"},
		{name: "id full", cmd: "id | cut -d ' ' -f 1,2", wantOut: "uid=2000(shell) gid=2000(shell)\n"},
		{name: "nproc", cmd: "nproc", wantOut: "8\n"},
		{name: "getconf", cmd: "getconf CLK_TCK; getconf PAGESIZE", wantOut: "100\n4096\n"},
		{name: "getconf bad", cmd: "getconf NOPE", wantErr: "getconf: bad 'NOPE'\n", code: 1},
		{name: "uname", cmd: "uname; uname -m; uname -sr", wantOut: "Linux\naarch64\nLinux 5.10.149-android13-4-00003-g05231a35ff43-ab9850788\n"},
		{name: "date fixed", cmd: "date -d @86400 +%Y-%m-%d_%H:%M:%S_%s_%j", wantOut: "1970-01-02_00:00:00_86400_002\n"},
		{name: "date default format", cmd: "date -d @0", wantOut: "Thu Jan  1 00:00:00 UTC 1970\n"},
		{name: "head default", cmd: "seq 12 | head", wantOut: "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"},
		{name: "head -n", cmd: "seq 5 | head -n 2; seq 5 | head -3", wantOut: "1\n2\n1\n2\n3\n"},
		{name: "head -c", cmd: "echo abcdef | head -c 3", wantOut: "abc"},
		{name: "tail", cmd: "seq 5 | tail -n 2; seq 5 | tail -n +4; seq 3 | tail -1", wantOut: "4\n5\n4\n5\n3\n"},
		{name: "head two files", cmd: seed + "head -n 1 /data/local/tmp/w.txt /data/local/tmp/w.txt", wantOut: "==> /data/local/tmp/w.txt <==\nalpha\n\n==> /data/local/tmp/w.txt <==\nalpha\n"},
		{name: "wc", cmd: seed + "wc -l /data/local/tmp/w.txt; wc < /data/local/tmp/w.txt", wantOut: "4 /data/local/tmp/w.txt\n4 5 32\n"},
		{name: "wc -c stdin", cmd: "printf abc | wc -c", wantOut: "3\n"},
		{name: "grep basic", cmd: seed + "grep alpha /data/local/tmp/w.txt", wantOut: "alpha\nalphabet\n"},
		{name: "grep -c", cmd: seed + "grep -c a /data/local/tmp/w.txt", wantOut: "4\n"},
		{name: "grep -v", cmd: seed + "grep -v a /data/local/tmp/w.txt; echo $?", wantOut: "1\n"},
		{name: "grep -i", cmd: seed + "grep -i beta /data/local/tmp/w.txt", wantOut: "Beta\n"},
		{name: "grep -w", cmd: seed + "grep -w alpha /data/local/tmp/w.txt", wantOut: "alpha\n"},
		{name: "grep -E alternation", cmd: seed + "grep -E '^(Beta|gamma)' /data/local/tmp/w.txt", wantOut: "Beta\ngamma delta\n"},
		{name: "grep BRE literal parens", cmd: "echo 'f(x)' | grep 'f(x)'", wantOut: "f(x)\n"},
		{name: "grep BRE interval", cmd: "echo aaab | grep -o 'a\\{2\\}'", wantOut: "aa\n"},
		{name: "grep BRE group", cmd: "echo abab | grep -c '\\(ab\\)*'", wantOut: "1\n"},
		{name: "grep bracket", cmd: "printf 'a1\\nb]\\n' | grep '[]]'", wantOut: "b]\n"},
		{name: "grep class", cmd: "printf 'a1\\nbb\\n' | grep '[[:digit:]]'", wantOut: "a1\n"},
		{name: "grep -F", cmd: "echo 'a.b' | grep -F '.'; echo axb | grep -F . ; echo $?", wantOut: "a.b\n1\n"},
		{name: "grep no match", cmd: "echo x | grep y", code: 1},
		{name: "grep -q", cmd: "echo yes | grep -q y && echo found", wantOut: "found\n"},
		{name: "grep -n multiple files", cmd: seed + "grep -n Beta /data/local/tmp/w.txt /sdcard/none", wantOut: "/data/local/tmp/w.txt:2:Beta\n", wantErr: "grep: /sdcard/none: No such file or directory\n", code: 2},
		{name: "grep -e twice", cmd: seed + "grep -e Beta -e delta /data/local/tmp/w.txt", wantOut: "Beta\ngamma delta\n"},
		{name: "grep bad regex", cmd: "echo x | grep -E '('", wantErr: "grep: bad REGEX '(': error parsing regexp: missing closing ): `(?:()`\n", code: 2},
		{name: "egrep", cmd: "echo ab | egrep 'a|z'", wantOut: "ab\n"},
		{name: "sleep zero", cmd: "sleep 0; sleep 0.01s; echo ok", wantOut: "ok\n"},
		{name: "sleep bad", cmd: "sleep x", wantErr: "sleep: Bad duration 'x'\n", code: 1},
		{name: "base64", cmd: "echo hello | base64; echo aGVsbG8K | base64 -d", wantOut: "aGVsbG8K\nhello\n"},
		{name: "seq", cmd: "seq 2 2 6; seq 3 1; seq 3 -1 1", wantOut: "2\n4\n6\n3\n2\n1\n"},
		{name: "sort -n -r", cmd: "printf '10\\n9\\n100\\n' | sort -n; printf 'a\\nc\\nb\\n' | sort -r", wantOut: "9\n10\n100\nc\nb\na\n"},
		{name: "uniq", cmd: "printf 'a\\na\\nb\\n' | uniq -c", wantOut: "      2 a\n      1 b\n"},
		{name: "cut", cmd: "echo a:b:c:d | cut -d: -f2-3; echo abcdef | cut -c 2,4-", wantOut: "b:c\nbdef\n"},
		{name: "tr map", cmd: "echo hello | tr a-z A-Z; echo abc | tr abc x", wantOut: "HELLO\nxxx\n"},
		{name: "tr delete squeeze", cmd: "printf 'a\r\nb\r\n' | tr -d '\r'; echo aaabbb | tr -s ab", wantOut: "a\nb\nab\n"},
		{name: "tr class", cmd: "echo 'a1b22' | tr -d '[:digit:]'", wantOut: "ab\n"},
		{name: "tr complement", cmd: "echo 'a1b2' | tr -cd '0-9'", wantOut: "12"},
		{name: "tr bad range", cmd: "echo x | tr z-a x", wantErr: "tr: range z-a out of order\n", code: 1},
		{name: "awk column", cmd: "printf 'u0_a1 123 x\nroot 1 y\n' | awk '{print $2}'", wantOut: "123\n1\n"},
		{name: "awk regex and NF", cmd: "printf 'a b c\nd e\n' | awk '/e/ {print NR, $NF, NF}'", wantOut: "2 e 2\n"},
		{name: "awk separator and concat", cmd: "echo k=v | awk -F= '{print $2 \"!\" $1}'", wantOut: "v!k\n"},
		{name: "awk END", cmd: "seq 4 | awk 'END {print NR}'", wantOut: "4\n"},
		{name: "awk whole record", cmd: "printf 'x\ny\n' | awk '/y/'", wantOut: "y\n"},
		{name: "awk unsupported", cmd: "echo x | awk '{n++}'", wantErr: "awk: syntax error at source line 1 near \"n++\"\n", code: 2},
		{name: "toybox unknown", cmd: "toybox frob", wantErr: "toybox: Unknown command frob\n", code: 1},
		{name: "cmd without service", cmd: "cmd nosuch", wantErr: "cmd: Can't find service: nosuch\n", code: 20},
		{name: "settings get unset", cmd: "settings get global nosuch_key", wantOut: "null\n"},
		{name: "getprop default", cmd: "getprop perfgate.unset fallback", wantOut: "fallback\n"},
		{name: "kill missing pid", cmd: "kill 999999", wantErr: "kill: 999999: No such process\n", code: 1},
		{name: "kill unknown signal", cmd: "kill -FROB 1", wantErr: "kill: Unknown signal 'FROB'\n", code: 1},
		{name: "kill -s another's process", cmd: "kill -s TERM 1", wantErr: "kill: 1: Operation not permitted\n", code: 1},
		{name: "perfetto traces writable", cmd: "echo t > /data/misc/perfetto-traces/t; cat /data/misc/perfetto-traces/t; ls /data/misc", wantOut: "t\n",
			wantErr: "ls: /data/misc: Permission denied\n", code: 1},
	})
}

func TestShellFiles(t *testing.T) {
	d := newTestDevice(t, Config{})
	runCases(t, d, []shellCase{
		{name: "write and read", cmd: "echo a > /data/local/tmp/f; echo b >> /data/local/tmp/f; cat /data/local/tmp/f", wantOut: "a\nb\n"},
		{name: "truncate", cmd: "echo long > /data/local/tmp/g; echo s > /data/local/tmp/g; cat /data/local/tmp/g", wantOut: "s\n"},
		{name: "relative after cd", cmd: "cd /sdcard && echo x > rel.txt && cat /storage/emulated/0/rel.txt", wantOut: "x\n"},
		{name: "system read-only", cmd: "echo a > /system/x", wantErr: "/system/bin/sh: can't create /system/x: Read-only file system\n", code: 1},
		{name: "data denied", cmd: "echo a > /data/x", wantErr: "/system/bin/sh: can't create /data/x: Permission denied\n", code: 1},
		{name: "open missing", cmd: "cat < /nope", wantErr: "/system/bin/sh: can't open /nope: No such file or directory\n", code: 1},
		{name: "dev null write", cmd: "echo a > /dev/null; echo $?", wantOut: "0\n"},
		{name: "redirect into directory", cmd: "echo a > /data/local/tmp", wantErr: "/system/bin/sh: can't create /data/local/tmp: Is a directory\n", code: 1},
		{name: "noclobber-free append creates", cmd: "echo z >> /data/local/tmp/new; cat /data/local/tmp/new", wantOut: "z\n"},
		{name: "mkdir -p and ls", cmd: "mkdir -p /data/local/tmp/d1/d2 && touch /data/local/tmp/d1/d2/f && ls /data/local/tmp/d1/d2", wantOut: "f\n"},
		{name: "mkdir without -p", cmd: "mkdir /data/local/tmp/x1/x2", wantErr: "mkdir: /data/local/tmp/x1/x2: No such file or directory\n", code: 1},
		{name: "mkdir exists", cmd: "mkdir /data/local/tmp", wantErr: "mkdir: /data/local/tmp: File exists\n", code: 1},
		{name: "mkdir read-only", cmd: "mkdir /vendor/x", wantErr: "mkdir: /vendor/x: Read-only file system\n", code: 1},
		{name: "rm", cmd: "touch /data/local/tmp/r && rm /data/local/tmp/r && ls /data/local/tmp/r", wantErr: "ls: /data/local/tmp/r: No such file or directory\n", code: 1},
		{name: "rm dir needs -r", cmd: "mkdir /data/local/tmp/rd; rm /data/local/tmp/rd; rm -r /data/local/tmp/rd; ls -d /data/local/tmp/rd 2>&1", wantOut: "ls: /data/local/tmp/rd: No such file or directory\n", wantErr: "rm: /data/local/tmp/rd: Is a directory\n", code: 1},
		{name: "rm -f missing", cmd: "rm -f /data/local/tmp/none; echo $?", wantOut: "0\n"},
		{name: "ls data denied", cmd: "ls /data", wantErr: "ls: /data: Permission denied\n", code: 1},
		{name: "ls root", cmd: "ls / | grep -c -x -E 'proc|sys|system|sdcard|data'", wantOut: "5\n"},
		{name: "ls -l", cmd: "printf 12345 > /data/local/tmp/five; chmod 640 /data/local/tmp/five; ls -l /data/local/tmp/five | cut -d ' ' -f 1-5", wantOut: "-rw-r----- 1 shell shell 5\n"},
		{name: "chmod symbolic", cmd: "touch /data/local/tmp/sx; chmod 600 /data/local/tmp/sx; chmod g+r,o+r /data/local/tmp/sx 2>/dev/null; chmod go+r /data/local/tmp/sx; stat -c %a /data/local/tmp/sx", wantOut: "644\n"},
		{name: "stat size", cmd: "printf abcd > /data/local/tmp/st; stat -c '%s %F %U' /data/local/tmp/st /data/local/tmp", wantOut: "4 regular file shell\n3452 directory shell\n"},
		{name: "glob", cmd: "mkdir -p /data/local/tmp/gl && cd /data/local/tmp/gl && touch b.txt a.txt c.log && echo *.txt && echo /data/local/tmp/gl/*.log", wantOut: "a.txt b.txt\n/data/local/tmp/gl/c.log\n"},
		{name: "glob no match stays literal", cmd: "echo /data/local/tmp/nomatch*", wantOut: "/data/local/tmp/nomatch*\n"},
		{name: "glob through unlistable data", cmd: "echo /data/*", wantOut: "/data/*\n"},
		{name: "script executable", cmd: "echo 'echo script:$1' > /data/local/tmp/s; /data/local/tmp/s a; chmod 755 /data/local/tmp/s; /data/local/tmp/s b",
			wantOut: "script:b\n", wantErr: "/system/bin/sh: /data/local/tmp/s: can't execute: Permission denied\n"},
		{name: "sh file", cmd: "echo 'echo $0 $#' > /data/local/tmp/t.sh; sh /data/local/tmp/t.sh x y", wantOut: "/data/local/tmp/t.sh 2\n"},
		{name: "build.prop", cmd: "head -n 2 /system/build.prop", wantOut: "\n# begin build properties\n"},
		{name: "cat permission denied", cmd: "echo secret > /data/local/tmp/p; chmod 000 /data/local/tmp/p; cat /data/local/tmp/p; cat < /data/local/tmp/p",
			wantErr: "cat: /data/local/tmp/p: Permission denied\n/system/bin/sh: can't open /data/local/tmp/p: Permission denied\n", code: 1},
		{name: "touch kernel file", cmd: "touch /proc/stat", wantErr: "touch: /proc/stat: Permission denied\n", code: 1},
		{name: "touch system dir", cmd: "touch /system", wantErr: "touch: /system: Read-only file system\n", code: 1},
		{name: "test -w", cmd: "[ -w /data/local/tmp ] && [ ! -w /system ] && echo ok", wantOut: "ok\n"},
	})
}

func TestShellRoot(t *testing.T) {
	d := newTestDevice(t, Config{Root: true})
	runCases(t, d, []shellCase{
		{name: "id", cmd: "id -u; id -un", wantOut: "0\nroot\n"},
		{name: "data writable", cmd: "echo r > /data/rootfile && cat /data/rootfile && ls /data | grep -c rootfile", wantOut: "r\n1\n"},
		{name: "system still read-only", cmd: "touch /system/x", wantErr: "touch: /system/x: Read-only file system\n", code: 1},
	})
}

func TestShellCancelSleep(t *testing.T) {
	d := newTestDevice(t, Config{})
	for _, cmd := range []string{"sleep 100", "echo start; sleep 100; echo never", "sleep 100 | cat", "while true; do sleep 1; done", "cat", "read x", "logcat", "logcat -v threadtime | grep Choreographer", "sh -c 'sleep 100'", "sleep 100 &"} {
		t.Run(cmd, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			pr, pw := io.Pipe() // a stream whose stdin never ends
			defer pw.Close()
			done := make(chan int, 1)
			go func() { done <- d.Shell(ctx, cmd, pr, io.Discard, io.Discard) }()
			time.Sleep(50 * time.Millisecond)
			start := time.Now()
			cancel()
			select {
			case st := <-done:
				if st == 0 {
					t.Errorf("status 0 after cancellation; want non-zero")
				}
				if el := time.Since(start); el > 2*time.Second {
					t.Errorf("took %v to stop", el)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("Shell(%q) did not return after cancellation", cmd)
			}
		})
	}
}

func TestCloseEndsShells(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	go func() { done <- d.Shell(context.Background(), "sleep 100", nil, io.Discard, io.Discard) }()
	time.Sleep(50 * time.Millisecond)
	if err := d.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Shell still running after Close")
	}
	var errb bytes.Buffer
	if st := d.Shell(context.Background(), "echo x", nil, io.Discard, &errb); st != 255 || !strings.Contains(errb.String(), "device closed") {
		t.Errorf("Shell after Close = %d %q, want 255 and device closed", st, errb.String())
	}
}

func TestShellConcurrent(t *testing.T) {
	d := newTestDevice(t, Config{})
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for i := range 32 {
		wg.Go(func() {
			f := fmt.Sprintf("/data/local/tmp/c%d", i)
			cmd := fmt.Sprintf("echo %d > %s; seq %d | wc -l; cat %s; ls /data/local/tmp >/dev/null; echo err >&2", i, f, i, f)
			var buf lockedBuffer
			st := d.Shell(context.Background(), cmd, nil, &buf, &buf)
			want := fmt.Sprintf("%d\n%d\n", i, i)
			got := strings.ReplaceAll(buf.String(), "err\n", "")
			if st != 0 || got != want {
				errs <- fmt.Sprintf("%q: status %d output %q, want %q", cmd, st, got, want)
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// lockedBuffer is a bytes.Buffer the test reads after the shell is done.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// The same writer for stdout and stderr keeps the order a terminal shows.
func TestShellSameWriter(t *testing.T) {
	d := newTestDevice(t, Config{})
	var buf bytes.Buffer
	st := d.Shell(context.Background(), "echo out; echo err >&2; echo out2", nil, &buf, &buf)
	if st != 0 || buf.String() != "out\nerr\nout2\n" {
		t.Errorf("got %d %q", st, buf.String())
	}
}

func TestHeadStopsReadingStream(t *testing.T) {
	d := newTestDevice(t, Config{})
	pr, pw := io.Pipe()
	defer pw.Close()
	go io.WriteString(pw, "l1\nl2\nl3\n") // and the stream stays open
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var out bytes.Buffer
	st := d.Shell(ctx, "head -n 2", pr, &out, io.Discard)
	if st != 0 || out.String() != "l1\nl2\n" || ctx.Err() != nil {
		t.Errorf("got %d %q (ctx %v), want 0 and two lines before the deadline", st, out.String(), ctx.Err())
	}
}

func TestGrepStreamsStdin(t *testing.T) {
	d := newTestDevice(t, Config{})
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan string, 1)
	outR, outW := io.Pipe()
	go d.Shell(ctx, "grep keep", pr, outW, io.Discard)
	go func() {
		b := make([]byte, 64)
		n, _ := outR.Read(b)
		got <- string(b[:n])
	}()
	io.WriteString(pw, "drop\nkeep me\n")
	select {
	case s := <-got:
		if s != "keep me\n" {
			t.Errorf("streamed %q, want %q", s, "keep me\n")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("grep did not pass a matching line on before its input ended")
	}
}

// A real logcat capture pushed to the device and searched with grep, wc and
// cut; the expected values are read by hand from the capture (8 lines, one
// Choreographer line reporting 79 skipped frames, one Davey! line).
func TestShellOnRealCapture(t *testing.T) {
	data := fixtures.Read(t, "logcat_choreographer/celadon188_threadtime_davey_skipped79.txt")
	d := newTestDevice(t, Config{})
	w, err := d.Create("/data/local/tmp/logcat.txt", 0o644, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	w.Close()
	runCases(t, d, []shellCase{
		{name: "skipped", cmd: "grep -o 'Skipped [0-9]* frames' /data/local/tmp/logcat.txt", wantOut: "Skipped 79 frames\n"},
		{name: "skipped ERE", cmd: "grep -E -o 'Skipped [0-9]+' /data/local/tmp/logcat.txt | cut -d ' ' -f 2", wantOut: "79\n"},
		{name: "lines", cmd: "wc -l < /data/local/tmp/logcat.txt", wantOut: "8\n"},
		{name: "davey", cmd: "cat /data/local/tmp/logcat.txt | grep -c 'Davey! duration=1354ms'", wantOut: "1\n"},
		{name: "tag column", cmd: "grep Choreographer /data/local/tmp/logcat.txt | cut -c 1-18", wantOut: "04-01 01:55:01.573\n"},
	})
}

func TestGrepContext(t *testing.T) {
	d := newTestDevice(t, Config{})
	runCases(t, d, []shellCase{
		{name: "after", cmd: "seq 10 | grep -A 1 -e 3 -e 7", wantOut: "3\n4\n--\n7\n8\n"},
		{name: "before", cmd: "seq 10 | grep -B 2 5", wantOut: "3\n4\n5\n"},
		{name: "context joins", cmd: "seq 10 | grep -C 1 -E '^(3|5)$'", wantOut: "2\n3\n4\n5\n6\n"},
		{name: "numbered context", cmd: "seq 5 | grep -n -A1 2", wantOut: "2:2\n3-3\n"},
		{name: "max count", cmd: "seq 20 | grep -m 2 1", wantOut: "1\n10\n"},
		{name: "A wins over C", cmd: "seq 5 | grep -A 0 -C 1 3", wantOut: "2\n3\n"},
	})
}

func TestLogcatDumpEnds(t *testing.T) {
	d := newTestDevice(t, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var out bytes.Buffer
	if st := d.Shell(ctx, "logcat -d | head -n 1", nil, &out, io.Discard); st != 0 || ctx.Err() != nil {
		t.Errorf("logcat -d: status %d, ctx %v", st, ctx.Err())
	}
}

// Nothing a script does reaches the host: no host users, no host files, no
// host temporary FIFOs.
func TestShellStaysOnDevice(t *testing.T) {
	d := newTestDevice(t, Config{})
	runCases(t, d, []shellCase{
		{name: "tilde", cmd: "echo ~ ~root ~shell/x ~nosuchuser", wantOut: "/ / //x ~nosuchuser\n"},
		{name: "host tmp", cmd: "ls /tmp", wantErr: "ls: /tmp: No such file or directory\n", code: 1},
		{name: "host passwd", cmd: "cat /etc/passwd", wantErr: "cat: /etc/passwd: No such file or directory\n", code: 1},
		{name: "host binary by path", cmd: "/usr/bin/env", wantErr: "/system/bin/sh: /usr/bin/env: inaccessible or not found\n", code: 127},
		{name: "cd to host dir", cmd: "cd /tmp 2>/dev/null || echo refused", wantOut: "refused\n"},
		{name: "exec builtin", cmd: "exec ls -d /system", wantOut: "/system\n"},
		{name: "redirect to host tmp", cmd: "echo x > /tmp/perfgate-should-not-exist", wantErr: "/system/bin/sh: can't create /tmp/perfgate-should-not-exist: No such file or directory\n", code: 1},
	})
}

func TestShellFileStdin(t *testing.T) {
	d := newTestDevice(t, Config{})
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	io.WriteString(pw, "first\nsecond\n")
	pw.Close()
	var out bytes.Buffer
	if st := d.Shell(context.Background(), "read a; echo got $a; cat", pr, &out, io.Discard); st != 0 || out.String() != "got first\nsecond\n" {
		t.Errorf("got %d %q", st, out.String())
	}
}

// A producer ends once its reader has gone, as SIGPIPE ends it on a phone,
// instead of running to the end of its (here practically endless) output.
func TestProducerEndsWhenReaderGoes(t *testing.T) {
	d := newTestDevice(t, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out bytes.Buffer
	st := d.Shell(ctx, "seq 1 1000000000000 | head -n 2", nil, &out, io.Discard)
	if ctx.Err() != nil || st != 0 || out.String() != "1\n2\n" {
		t.Errorf("seq | head -n 2: status %d, output %q, ctx %v", st, out.String(), ctx.Err())
	}
}

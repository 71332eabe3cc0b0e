package adbx

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// batchCases are commands whose output would trip a naive splitter.
var batchCases = []string{
	"printf abc",                     // no trailing newline
	"printf ''",                      // no output at all
	"echo out; echo err >&2; exit 3", // both streams and an exit status
	`printf '\n\n'`,                  // only newlines
	`printf 'a\000b\n'`,              // a NUL byte
	`printf '\n%s 6 0\n' 5b1d6a4e-0c2f-4f7e-9d8a-3e6b1c2d4f5a`, // a separator with another marker
	`printf '%s\n' "m=$m"`,         // the marker variable is not visible
	`read x; echo "read:$x:$?"`,    // stdin is /dev/null
	`cd /tmp && pwd; exit 0`,       // cd stays in the subshell
	`pwd`,                          // so this still runs in the start directory
	`echo "it's quoted"; exit 255`, // a quote and the largest status
}

// runLocal runs cmd alone in the host's /bin/sh the way the batch runs it
// (stdin from /dev/null), as ground truth for what the batch must return.
func runLocal(t *testing.T, dir, cmd string, merge bool) Result {
	t.Helper()
	c := exec.Command("/bin/sh", "-c", cmd)
	c.Dir = dir
	var out, errb bytes.Buffer
	c.Stdout = &out
	c.Stderr = &errb
	if merge {
		c.Stderr = &out
	}
	err := c.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %q: %v", cmd, err)
	}
	r := Result{Stdout: out.Bytes(), Stderr: errb.Bytes(), ExitCode: code}
	if merge {
		r.Stderr = nil
	}
	return r
}

// TestBatchScriptLocalShell runs the batch script in the host's POSIX shell
// and checks that every command's split output equals what the command
// prints when run alone.
func TestBatchScriptLocalShell(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	// A PATH with date alone plays a device without cat, od and tr.
	dateOnly := t.TempDir()
	if date, err := exec.LookPath("date"); err == nil {
		if err := os.Symlink(date, filepath.Join(dateOnly, "date")); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name   string
		v2     bool
		source string
		path   string
	}{
		{"v2", true, uuidPath, ""},
		{"v1", false, uuidPath, ""},
		{"v2 no uuid file", true, "/nonexistent/uuid", ""},
		{"v1 no uuid file", false, "/nonexistent/uuid", ""},
		{"v2 no cat od tr", true, uuidPath, dateOnly},
		{"v1 no cat od tr", false, uuidPath, dateOnly},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			script := batchScript(batchCases, tc.v2, tc.source)
			if tc.path != "" {
				script = "PATH=" + tc.path + "\n" + script
			}
			c := exec.Command("/bin/sh", "-c", script)
			c.Dir = dir
			var out, errb bytes.Buffer
			c.Stdout = &out
			c.Stderr = &errb
			if !tc.v2 {
				c.Stderr = &out
			}
			if err := c.Run(); err != nil {
				t.Fatalf("batch script: %v\n%s", err, errb.Bytes())
			}
			got, err := splitBatch(out.Bytes(), errb.Bytes(), len(batchCases), tc.v2)
			if err != nil {
				t.Fatalf("split: %v\nstdout %q\nstderr %q", err, out.Bytes(), errb.Bytes())
			}
			for i, cmd := range batchCases {
				want := runLocal(t, dir, cmd, !tc.v2)
				if !bytes.Equal(got[i].Stdout, want.Stdout) || !bytes.Equal(got[i].Stderr, want.Stderr) || got[i].ExitCode != want.ExitCode {
					t.Errorf("command %d %q:\n got stdout %q stderr %q exit %d\nwant stdout %q stderr %q exit %d",
						i, cmd, got[i].Stdout, got[i].Stderr, got[i].ExitCode, want.Stdout, want.Stderr, want.ExitCode)
				}
			}
		})
	}
}

// TestBatchScriptSyntaxError checks that a command that does not parse
// fails alone and the next command still runs.
func TestBatchScriptSyntaxError(t *testing.T) {
	t.Parallel()
	cmds := []string{"echo 'unterminated", "echo after"}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	c := exec.CommandContext(ctx, "/bin/sh", "-c", batchScript(cmds, true, uuidPath))
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		t.Fatalf("batch script: %v", err)
	}
	got, err := splitBatch(out.Bytes(), errb.Bytes(), 2, true)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].ExitCode == 0 || len(got[0].Stdout) != 0 || len(got[0].Stderr) == 0 {
		t.Errorf("syntax error: got %+v, want a non-zero status, no stdout and a message on stderr", got[0])
	}
	if string(got[1].Stdout) != "after\n" || got[1].ExitCode != 0 {
		t.Errorf("next command: got %+v, want stdout \"after\\n\" and status 0", got[1])
	}
}

// renderBatch is what the batch script prints for results under marker:
// the format documented in batch.go, written independently of splitBatch.
func renderBatch(marker string, rs []Result, v2 bool) (stdout, stderr []byte) {
	stdout = []byte(marker + "\n")
	if v2 {
		stderr = []byte(marker + "\n")
	}
	for i, r := range rs {
		stdout = append(stdout, r.Stdout...)
		stdout = fmt.Appendf(stdout, "\n%s %d %d\n", marker, i, r.ExitCode)
		if v2 {
			stderr = append(stderr, r.Stderr...)
			stderr = fmt.Appendf(stderr, "\n%s %d\n", marker, i)
		}
	}
	return stdout, stderr
}

func TestSplitBatch(t *testing.T) {
	t.Parallel()
	const m = "0f8e4c1a-2b3d-4e5f-8a9b-0c1d2e3f4a5b"
	other := "11111111-2222-3333-4444-555555555555"
	tests := []struct {
		name string
		rs   []Result
	}{
		{"empty outputs", []Result{{}, {}}},
		{"no trailing newline", []Result{{Stdout: []byte("abc")}, {Stdout: []byte("x\n"), ExitCode: 1}}},
		{"newlines only", []Result{{Stdout: []byte("\n\n"), Stderr: []byte("\n")}}},
		{"fake separator", []Result{{Stdout: []byte("\n" + other + " 0 0\n"), Stderr: []byte("\n" + other + " 0\n")}, {ExitCode: 255}}},
		{"partial marker", []Result{{Stdout: []byte("\n" + m[:20]), Stderr: []byte(m[:35])}, {Stdout: []byte(m[1:] + " 1 0\n")}}},
		{"marker without its newline", []Result{{Stdout: []byte(m + " 0 0\n")}}},
		{"nul bytes", []Result{{Stdout: []byte("a\x00b"), Stderr: []byte("\x00")}}},
	}
	for _, tc := range tests {
		for _, v2 := range []bool{true, false} {
			t.Run(tc.name+"/v2="+strconv.FormatBool(v2), func(t *testing.T) {
				t.Parallel()
				want := tc.rs
				if !v2 {
					want = withoutStderr(tc.rs)
				}
				out, errb := renderBatch(m, want, v2)
				got, err := splitBatch(out, errb, len(want), v2)
				if err != nil {
					t.Fatal(err)
				}
				assertResults(t, got, want)
			})
		}
	}
}

func withoutStderr(rs []Result) []Result {
	out := make([]Result, len(rs))
	for i, r := range rs {
		out[i] = Result{Stdout: r.Stdout, ExitCode: r.ExitCode}
	}
	return out
}

func assertResults(t *testing.T, got, want []Result) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d results, want %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i].Stdout, want[i].Stdout) || !bytes.Equal(got[i].Stderr, want[i].Stderr) || got[i].ExitCode != want[i].ExitCode {
			t.Errorf("result %d: got %q/%q/%d, want %q/%q/%d", i,
				got[i].Stdout, got[i].Stderr, got[i].ExitCode, want[i].Stdout, want[i].Stderr, want[i].ExitCode)
		}
	}
}

func TestSplitBatchErrors(t *testing.T) {
	t.Parallel()
	const m = "0f8e4c1a-2b3d-4e5f-8a9b-0c1d2e3f4a5b"
	full, fullErr := renderBatch(m, []Result{{Stdout: []byte("a")}, {Stdout: []byte("b")}}, true)
	tests := []struct {
		name      string
		out, errb []byte
		short     bool // errBatchShort expected
		done      int  // results returned with the error
	}{
		{"nothing", nil, nil, true, 0},
		{"cut after first command", full[:len(m)+1+1+len(m)+6], fullErr, true, 1},
		{"cut inside exit status", full[:len(full)-1], fullErr, true, 1},
		{"stderr cut", full, fullErr[:len(m)+1], true, 0},
		{"bad marker", []byte("not a marker!\n"), fullErr, false, 0},
		{"short marker", []byte("abc\n"), fullErr, false, 0},
		{"markers differ", full, []byte("ffffffff-2b3d-4e5f-8a9b-0c1d2e3f4a5b\n"), false, 0},
		{"bad exit", []byte(m + "\na\n" + m + " 0 x\n"), []byte(m + "\n\n" + m + " 0\n"), false, 0},
		{"exit out of range", []byte(m + "\na\n" + m + " 0 256\n"), []byte(m + "\n\n" + m + " 0\n"), false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rs, err := splitBatch(tc.out, tc.errb, 2, true)
			if err == nil {
				t.Fatalf("no error; results %+v", rs)
			}
			if errors.Is(err, errBatchShort) != tc.short {
				t.Errorf("error %v: errBatchShort = %v, want %v", err, !tc.short, tc.short)
			}
			if len(rs) != tc.done {
				t.Errorf("got %d completed results, want %d", len(rs), tc.done)
			}
		})
	}
}

// FuzzSplitBatch checks that any outputs and statuses round-trip through
// the batch format, whatever bytes they hold. The marker comes from the
// fuzz input too, but an output that contains it is skipped: on a device
// the marker is made up after the commands are fixed, so no output can
// hold it except by a 2^-122 chance.
func FuzzSplitBatch(f *testing.F) {
	f.Add([]byte("0123456789abcdef"), []byte("abc"), []byte(""), []byte("\n"), uint8(0), uint8(3), true)
	f.Add([]byte("0123456789abcdef"), []byte("\n11111111-2222-3333-4444-555555555555 0 0\n"), []byte("err"), []byte("\x00"), uint8(255), uint8(1), true)
	f.Add([]byte("ffffffffffffffff"), []byte("\n\n"), []byte("x\n"), []byte(""), uint8(1), uint8(0), false)
	f.Fuzz(func(t *testing.T, seed, out0, err0, out1 []byte, exit0, exit1 uint8, v2 bool) {
		if len(seed) < 16 {
			return
		}
		h := hex.EncodeToString(seed[:16])
		marker := h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
		for _, b := range [][]byte{out0, err0, out1} {
			if bytes.Contains(b, []byte(marker)) {
				t.Skip("output holds the marker")
			}
		}
		want := []Result{{Stdout: out0, Stderr: err0, ExitCode: int(exit0)}, {Stdout: out1, ExitCode: int(exit1)}}
		if !v2 {
			want = withoutStderr(want)
		}
		out, errb := renderBatch(marker, want, v2)
		got, err := splitBatch(out, errb, len(want), v2)
		if err != nil {
			t.Fatalf("split: %v", err)
		}
		for i := range want {
			if !bytes.Equal(got[i].Stdout, want[i].Stdout) || !bytes.Equal(got[i].Stderr, want[i].Stderr) || got[i].ExitCode != want[i].ExitCode {
				t.Fatalf("result %d: got %q/%q/%d, want %q/%q/%d", i,
					got[i].Stdout, got[i].Stderr, got[i].ExitCode, want[i].Stdout, want[i].Stderr, want[i].ExitCode)
			}
		}
	})
}

// FuzzSplitBatchGarbage feeds arbitrary session output to the splitter:
// it must return an error or results, never panic, and never more results
// than commands.
func FuzzSplitBatchGarbage(f *testing.F) {
	const m = "0f8e4c1a-2b3d-4e5f-8a9b-0c1d2e3f4a5b"
	out, errb := renderBatch(m, []Result{{Stdout: []byte("a")}, {Stderr: []byte("b"), ExitCode: 2}}, true)
	f.Add(out, errb, 2)
	f.Add([]byte(m+"\n\n"+m+" 0 99999999999999999999\n"), []byte(m+"\n"), 1)
	f.Add([]byte(""), []byte(""), 0)
	f.Fuzz(func(t *testing.T, out, errb []byte, n int) {
		if n < 0 || n > 64 {
			return
		}
		for _, v2 := range []bool{true, false} {
			rs, err := splitBatch(out, errb, n, v2)
			if len(rs) > n || (err == nil && len(rs) != n) {
				t.Fatalf("n=%d: %d results, err %v", n, len(rs), err)
			}
			for _, r := range rs {
				if r.ExitCode < 0 || r.ExitCode > 255 {
					t.Fatalf("exit status %d out of range", r.ExitCode)
				}
			}
		}
	})
}

// TestSplitBatchPty covers old devices whose shell: service runs commands
// on a pty that turns "\n" into "\r\n".
func TestSplitBatchPty(t *testing.T) {
	t.Parallel()
	const m = "0f8e4c1a-2b3d-4e5f-8a9b-0c1d2e3f4a5b"
	want := []Result{{Stdout: []byte("line 1\nline 2\n")}, {Stdout: []byte("x"), ExitCode: 4}}
	out, _ := renderBatch(m, want, false)
	out = bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n"))
	got, err := splitBatch(out, nil, 2, false)
	if err != nil {
		t.Fatal(err)
	}
	assertResults(t, got, want)
}

// BenchmarkSplitBatch is the host-side cost of splitting one six-command
// tick of typical size.
func BenchmarkSplitBatch(b *testing.B) {
	const m = "0f8e4c1a-2b3d-4e5f-8a9b-0c1d2e3f4a5b"
	rs := make([]Result, 6)
	for i := range rs {
		rs[i].Stdout = bytes.Repeat([]byte("cpu  2255 34 2290 22625563 6290 127 456 0 0 0\n"), 20)
	}
	out, errb := renderBatch(m, rs, true)
	b.SetBytes(int64(len(out) + len(errb)))
	for b.Loop() {
		if _, err := splitBatch(out, errb, len(rs), true); err != nil {
			b.Fatal(err)
		}
	}
}

package heapdump

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
)

// A release build's refusal, as am prints it, is ErrRefused and quotes
// the exception; nothing is pulled.
func TestRefused(t *testing.T) {
	env := Env{Poll: time.Millisecond, Timeout: time.Second,
		Batch: func(_ context.Context, cmds []string) ([]adbx.Result, error) {
			if strings.HasPrefix(cmds[0], "am dumpheap") {
				return []adbx.Result{{ExitCode: 255, Stderr: []byte("Exception occurred while executing 'dumpheap':\njava.lang.SecurityException: Process not debuggable: ProcessRecord{4b1 6837:com.example/u0a234}\n")}}, nil
			}
			return []adbx.Result{{ExitCode: 1}}, nil
		},
		Pull: func(context.Context, string, io.Writer) error { t.Fatal("pulled a refused dump"); return nil },
	}
	_, _, err := Take(context.Background(), env, 6837, Dest{Dir: t.TempDir(), Base: "T", Which: "first"})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "Process not debuggable: ProcessRecord{4b1 6837:com.example/u0a234}") {
		t.Errorf("error %v, want ErrRefused quoting the exception", err)
	}
}

// Only the app's own lines count, in logcat's brief format.
func TestCountCompleted(t *testing.T) {
	out := "I/com.example( 6837): hprof: heap dump completed (21KB) in 1.5ms objects 4 objects with stack traces 0\n" +
		"I/art(  683): hprof: heap dump completed (9KB) in 1ms\n" +
		"I/com.example( 6837): hprof: heap dump completed (22KB) in 1.7ms\n"
	if n := countCompleted([]byte(out), 6837); n != 2 {
		t.Errorf("%d of pid 6837's lines, want 2", n)
	}
	if n := countCompleted([]byte(out), 683); n != 1 {
		t.Errorf("%d of pid 683's lines, want 1", n)
	}
}

func FuzzCountCompleted(f *testing.F) {
	f.Add([]byte("I/art( 12): hprof: heap dump completed (1KB) in 1ms\n"), 12)
	f.Fuzz(func(t *testing.T, b []byte, pid int) {
		if n := countCompleted(b, pid); n < 0 || n > strings.Count(string(b), "\n")+1 {
			t.Fatalf("%d lines of %d", n, strings.Count(string(b), "\n")+1)
		}
	})
}

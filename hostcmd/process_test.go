//go:build unix

package hostcmd

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// running reports whether process pid runs (a zombie does not).
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, after, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(after, "Z")
}

// waitGone waits until pid no longer runs; a minute bounds a broken test.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); running(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs", pid)
		}
	}
}

// syncBuffer is a buffer the command's two streams write at once, which
// calls onLine with each whole line.
type syncBuffer struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	onLine func(string)
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	if b.onLine != nil && bytes.HasSuffix(p, []byte("\n")) {
		b.onLine(string(p))
	}
	return len(p), nil
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestProcessExit(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	var out, errOut syncBuffer
	exit, err := Process(context.Background(), Command{Argv: []string{"sh", "-c", `echo "out $X"; echo err >&2; exit 7`}, Env: []string{"X=1"}, Stdout: &out, Stderr: &errOut})
	if exit != 7 || err != nil || out.String() != "out 1\n" || errOut.String() != "err\n" {
		t.Errorf("exit %d, %v; stdout %q, stderr %q", exit, err, out.String(), errOut.String())
	}
	if exit, err := Process(context.Background(), Command{Argv: []string{"./no such command"}}); exit != -1 || err == nil || !strings.Contains(err.Error(), "no such command") {
		t.Errorf("a command that does not exist: exit %d, %v", exit, err)
	}
	// A command that ends leaving a process in its group, holding its
	// output: Process returns once the command ends, and the leftover goes.
	var left syncBuffer
	exit, err = Process(context.Background(), Command{Argv: []string{"sh", "-c", `sleep 600 & echo $!`}, Stdout: &left})
	pid, perr := strconv.Atoi(strings.TrimSpace(left.String()))
	if exit != 0 || err != nil || perr != nil {
		t.Fatalf("exit %d, %v; output %q", exit, err, left.String())
	}
	waitGone(t, pid)
}

// A stop (ctx ending) ends the command's group: the shell, and the sleep
// it waits on, which would ignore nothing.
func TestProcessStopped(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var pid int
	out := &syncBuffer{onLine: func(l string) {
		pid, _ = strconv.Atoi(strings.TrimSpace(l))
		cancel()
	}}
	exit, err := Process(ctx, Command{Argv: []string{"sh", "-c", `sleep 600 & echo $!; wait`}, Stdout: out})
	if exit != -1 || err == nil || !strings.Contains(err.Error(), "ended by a signal: signal: terminated") {
		t.Errorf("exit %d, %v", exit, err)
	}
	if pid == 0 {
		t.Fatalf("output %q", out.String())
	}
	waitGone(t, pid)
}

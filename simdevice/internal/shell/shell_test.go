package shell

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/simdevice/internal/vfs"
)

// mapRendered serves /proc and /sys from a map of file contents, in the
// spirit of testing/fstest.MapFS; the directories are those the paths imply.
type mapRendered map[string]string

func (m mapRendered) ReadFile(p string) ([]byte, error) {
	if s, ok := m[p]; ok {
		return []byte(s), nil
	}
	return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
}

func (m mapRendered) ReadDir(p string) ([]string, error) {
	var names []string
	for k := range m {
		if rest, ok := strings.CutPrefix(k, p+"/"); ok {
			names = append(names, strings.Split(rest, "/")[0])
		}
	}
	if names == nil {
		return nil, &fs.PathError{Op: "readdir", Path: p, Err: fs.ErrNotExist}
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}

// newTestShell is a shell on a device made of data alone: two rendered
// files, one program of the device's own (dumpsys, which prints its
// arguments) and a fixed clock.
func newTestShell(t testing.TB, root bool) *Shell {
	t.Helper()
	progs := map[string]Command{
		"dumpsys": func(_ context.Context, args []string, stdout, _ io.Writer) int {
			fmt.Fprintf(stdout, "dumpsys %q\n", args)
			return 0
		},
	}
	cmds := append(Implemented(), slices.Collect(maps.Keys(progs))...)
	slices.Sort(cmds)
	boot := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	fsys := &vfs.FS{
		Tree:      vfs.NewTree(boot),
		Rendered:  mapRendered{"/proc/stat": "cpu  1 2 3 4 5 6 7 0 0 0\n", "/proc/42/comm": "app\n"},
		Root:      root,
		BuildProp: func() []byte { return []byte("ro.build.version.sdk=33\n") },
		Commands:  cmds,
		Boot:      boot,
	}
	return New(Config{
		FS: fsys, Root: root, Hostname: "panther", Kernel: "5.10", KernelBuild: "#1 SMP", Cores: 8, Online: 6,
		Commands: cmds, Programs: progs,
		Wall:  func() time.Time { return boot },
		Props: func() map[string]string { return map[string]string{"ro.build.version.sdk": "33"} },
	})
}

// The shell needs no simulated world: its Config is the whole device.
func TestShellOnDataAlone(t *testing.T) {
	sh := newTestShell(t, false)
	for _, tc := range []struct {
		cmd, out, err string
		code          int
	}{
		{cmd: "cat /proc/stat | cut -d ' ' -f 3-5", out: "1 2 3\n"},
		{cmd: "for f in /proc/*/comm; do cat $f; done", out: "app\n"},
		{cmd: "dumpsys gfxinfo 'com.x y' | head -n 1", out: "dumpsys [\"gfxinfo\" \"com.x y\"]\n"},
		{cmd: "/system/bin/dumpsys -l", out: "dumpsys [\"-l\"]\n"},
		{cmd: "which dumpsys cat am", out: "/system/bin/dumpsys\n/system/bin/cat\n", code: 1},
		{cmd: "am start", err: "/system/bin/sh: am: inaccessible or not found\n", code: 127},
		{cmd: "nproc; getconf _NPROCESSORS_CONF; uname -n -r", out: "6\n8\npanther 5.10\n"},
		{cmd: "date +%F; getprop ro.build.version.sdk; id -u", out: "2026-11-22\n33\n2000\n"},
		{cmd: "echo x > /data/local/tmp/f && cat /sdcard/../../data/local/tmp/f", out: "x\n"},
		{cmd: "echo x > /proc/stat", err: "/system/bin/sh: can't create /proc/stat: Permission denied\n", code: 1},
		{cmd: "ls /system/bin | grep -c .", out: fmt.Sprintf("%d\n", len(Implemented())+1)},
		// toybox's words for a command line it rejects.
		{cmd: "cat -z /proc/stat", err: "cat: Unknown option 'z'\n", code: 1},
		{cmd: "cut -d", err: "cut: Missing argument to -d\n", code: 1},
		{cmd: "grep -m x y /proc/stat", err: "grep: Not integer 'x'\n", code: 2},
		{cmd: "grep -A", err: "grep: Missing argument to -A\n", code: 2},
		{cmd: "grep -y x", err: "grep: Unknown option 'y'\n", code: 2},
		{cmd: "grep", err: "grep: Needs 1 argument\n", code: 2},
	} {
		var out, errb bytes.Buffer
		code := sh.Run(t.Context(), tc.cmd, nil, &out, &errb)
		if out.String() != tc.out || errb.String() != tc.err || code != tc.code {
			t.Errorf("Run(%q) = stdout %q stderr %q status %d; want %q %q %d", tc.cmd, out.String(), errb.String(), code, tc.out, tc.err, tc.code)
		}
	}
}

// A device program that outlives its stream is cut off like any command.
func TestShellProgramSeesCancel(t *testing.T) {
	sh := newTestShell(t, false)
	started := make(chan struct{})
	sh.cfg.Programs["logcat"] = func(ctx context.Context, _ []string, _, _ io.Writer) int {
		close(started)
		<-ctx.Done()
		return 130
	}
	sh.cfg.Commands = append(sh.cfg.Commands, "logcat")
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan int)
	go func() { done <- sh.Run(ctx, "logcat; echo never", nil, io.Discard, io.Discard) }()
	<-started
	cancel()
	if st := <-done; st == 0 {
		t.Errorf("status 0 after cancellation; want non-zero")
	}
}

// grep on a stream (logcat | grep) writes the lines it selected before it
// waits for more input, and writes them together: one write for the
// lines that came in one piece.
func TestGrepStreamsMatches(t *testing.T) {
	sh := newTestShell(t, false)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int)
	go func() {
		done <- sh.Run(t.Context(), "grep -v b", inR, outW, io.Discard)
		outW.Close()
	}()
	writes := make(chan string)
	go func() {
		buf := make([]byte, 1024)
		for {
			n, err := outR.Read(buf)
			if n > 0 {
				writes <- string(buf[:n])
			}
			if err != nil {
				close(writes)
				return
			}
		}
	}()
	for _, tc := range []struct{ in, want string }{
		{"a\nb\nc\n", "a\nc\n"},
		{"bb\nd\ne", "d\n"}, // "e" waits for its newline
		{"\n", "e\n"},
	} {
		if _, err := inW.Write([]byte(tc.in)); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-writes:
			if got != tc.want {
				t.Errorf("after %q grep wrote %q, want %q", tc.in, got, tc.want)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("after %q grep wrote nothing in 30 s, want %q", tc.in, tc.want)
		}
	}
	inW.Close()
	if st := <-done; st != 0 {
		t.Errorf("status %d, want 0", st)
	}
	if rest, ok := <-writes; ok {
		t.Errorf("grep wrote %q after its input ended", rest)
	}
}

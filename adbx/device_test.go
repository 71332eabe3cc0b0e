package adbx_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/simdevice"
)

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// shellCases are commands and what a POSIX shell prints for them, written
// by hand.
var shellCases = []struct {
	cmd            string
	stdout, stderr string
	exit           int
}{
	{"echo hello", "hello\n", "", 0},
	{"exit 3", "", "", 3},
	{"printf 'no newline'", "no newline", "", 0},
	{"echo out; echo err >&2; exit 42", "out\n", "err\n", 42},
	{"echo 'a b' \"c\"", "a b c\n", "", 0},
	{"read line </dev/null; echo \"[$line]\"", "[]\n", "", 0},
	{"false", "", "", 1},
}

func TestShell(t *testing.T) {
	t.Parallel()
	for _, ep := range endpoints {
		for _, dv := range testDevices {
			v2 := dv.v2
			t.Run(ep.name+"/"+dv.name, func(t *testing.T) {
				t.Parallel()
				d, _ := ep.open(t, dv.new(t))
				if d.HasFeature("shell_v2") != v2 {
					t.Fatalf("HasFeature(shell_v2) = %v, want %v", !v2, v2)
				}
				for _, tc := range shellCases {
					r, err := d.Shell(ctxT(t, 10*time.Second), tc.cmd)
					if err != nil {
						t.Fatalf("%q: %v", tc.cmd, err)
					}
					wantOut, wantErr := tc.stdout, tc.stderr
					if !v2 {
						// Without shell_v2 stderr shares the stream.
						wantOut, wantErr = tc.stdout+tc.stderr, ""
					}
					if string(r.Stdout) != wantOut || string(r.Stderr) != wantErr || r.ExitCode != tc.exit {
						t.Errorf("%q: got %q/%q/%d, want %q/%q/%d", tc.cmd, r.Stdout, r.Stderr, r.ExitCode, wantOut, wantErr, tc.exit)
					}
				}
			})
		}
	}
}

func TestBatch(t *testing.T) {
	t.Parallel()
	const fake = "5b1d6a4e-0c2f-4f7e-9d8a-3e6b1c2d4f5a"
	cmds := []string{
		"printf 'no newline'",
		`printf '\n%s 1 0\n%s 1\n' ` + fake + " " + fake,
		"echo err >&2; exit 7",
		"printf ''",
		`printf '\n\n'`,
		`echo "m=[$m]"`,
	}
	want := []adbx.Result{
		{Stdout: []byte("no newline")},
		{Stdout: []byte("\n" + fake + " 1 0\n" + fake + " 1\n")},
		{Stderr: []byte("err\n"), ExitCode: 7},
		{},
		{Stdout: []byte("\n\n")},
		{Stdout: []byte("m=[]\n")},
	}
	for _, ep := range endpoints {
		for _, dv := range testDevices {
			v2 := dv.v2
			t.Run(ep.name+"/"+dv.name, func(t *testing.T) {
				t.Parallel()
				dev := dv.new(t)
				d, _ := ep.open(t, dev)
				got, err := d.Batch(ctxT(t, 10*time.Second), cmds)
				if err != nil {
					t.Fatal(err)
				}
				if h, ok := dev.(*hostShell); ok {
					if n := len(h.seen()); n != 1 {
						t.Errorf("batch of %d commands ran %d shell sessions, want 1", len(cmds), n)
					}
				}
				for i, w := range want {
					if !v2 {
						w = adbx.Result{Stdout: append(append([]byte{}, w.Stdout...), w.Stderr...), ExitCode: w.ExitCode}
					}
					g := got[i]
					if !bytes.Equal(g.Stdout, w.Stdout) || !bytes.Equal(g.Stderr, w.Stderr) || g.ExitCode != w.ExitCode {
						t.Errorf("command %d %q: got %q/%q/%d, want %q/%q/%d", i, cmds[i], g.Stdout, g.Stderr, g.ExitCode, w.Stdout, w.Stderr, w.ExitCode)
					}
				}
			})
		}
	}
}

func TestShellTimeout(t *testing.T) {
	t.Parallel()
	for _, ep := range endpoints {
		for _, dv := range testDevices {
			t.Run(ep.name+"/"+dv.name, func(t *testing.T) {
				t.Parallel()
				served, _ := ep.open(t, dv.new(t))
				d, err := adbx.Open(ctxT(t, 10*time.Second), adbx.Options{Server: served.Server(), Serial: served.Serial(), Timeout: 300 * time.Millisecond, Dial: served.Dial})
				if err != nil {
					t.Fatal(err)
				}
				// The default timeout applies to a context without a deadline;
				// a deadline on the context wins.
				for _, tc := range []struct {
					name string
					ctx  func() context.Context
					call func(ctx context.Context) error
				}{
					{"shell, default timeout", context.Background, func(ctx context.Context) error { _, err := d.Shell(ctx, "sleep 100"); return err }},
					{"shell, ctx deadline", func() context.Context { return ctxT(t, 200*time.Millisecond) }, func(ctx context.Context) error { _, err := d.Shell(ctx, "sleep 100"); return err }},
					{"batch", context.Background, func(ctx context.Context) error {
						_, err := d.Batch(ctx, []string{"echo fast", "sleep 100"})
						return err
					}},
				} {
					start := time.Now()
					err := tc.call(tc.ctx())
					if !errors.Is(err, adbx.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
						t.Errorf("%s: err %v, want ErrTimeout wrapping context.DeadlineExceeded", tc.name, err)
					}
					if el := time.Since(start); el < 150*time.Millisecond || el > 5*time.Second {
						t.Errorf("%s: returned after %v, want at its deadline", tc.name, el)
					}
					if err != nil && !strings.Contains(err.Error(), "sleep 100") && !strings.Contains(err.Error(), "echo fast") {
						t.Errorf("%s: error %q does not name the command", tc.name, err)
					}
				}
			})
		}
	}
}

func TestDeviceGone(t *testing.T) {
	t.Parallel()
	for _, ep := range endpoints {
		for _, dv := range testDevices {
			t.Run(ep.name+"/"+dv.name, func(t *testing.T) {
				t.Parallel()
				d, drop := ep.open(t, unplugged{dv.new(t)})
				go func() {
					time.Sleep(300 * time.Millisecond)
					drop()
				}()
				_, err := d.Shell(ctxT(t, 20*time.Second), "echo started; sleep 3")
				if !errors.Is(err, adbx.ErrDeviceGone) {
					t.Fatalf("err %v, want ErrDeviceGone", err)
				}
				if !strings.Contains(err.Error(), d.Serial()) || !strings.Contains(err.Error(), "sleep 3") {
					t.Errorf("error %q does not name the device and the command", err)
				}
			})
		}
	}
}

// unplugged is a device that, once its serving context ends, takes a while
// to report anything: a phone pulled from the cable sends no exit status.
// adbtest.Server.Remove ends the device's context just before it cuts the
// streams, and a quick device would otherwise slip an exit status through.
type unplugged struct{ adbtest.Device }

func (u unplugged) Shell(ctx context.Context, cmd string, stdin io.Reader, stdout, stderr io.Writer) int {
	code := u.Device.Shell(ctx, cmd, stdin, stdout, stderr)
	if ctx.Err() != nil {
		time.Sleep(500 * time.Millisecond)
	}
	return code
}

// TestDeviceGoneBetweenCalls checks a call on a device that was unplugged
// since Open.
func TestDeviceGoneBetweenCalls(t *testing.T) {
	t.Parallel()
	dev := newHostShell(t, "host-sh", true)
	srv := adbtest.NewServer(dev)
	defer srv.Close()
	d := srv.Open("")
	srv.Remove("host-sh")
	_, err := d.Shell(ctxT(t, 10*time.Second), "true")
	if !errors.Is(err, adbx.ErrDeviceGone) || !strings.Contains(err.Error(), "host-sh") {
		t.Fatalf("err %v, want ErrDeviceGone naming host-sh", err)
	}
}

func TestStream(t *testing.T) {
	t.Parallel()
	for _, ep := range endpoints {
		for _, dv := range testDevices {
			v2 := dv.v2
			t.Run(ep.name+"/"+dv.name, func(t *testing.T) {
				t.Parallel()
				dev := dv.new(t)
				d, _ := ep.open(t, dev)

				// Runs until closed; well past the 10 s default timeout is
				// not needed to see the reader stay open after opening.
				s, err := d.Stream(ctxT(t, 20*time.Second), "i=0; while :; do i=$((i+1)); echo tick $i; sleep 0.05; done")
				if err != nil {
					t.Fatal(err)
				}
				buf := make([]byte, 0, 64)
				tmp := make([]byte, 64)
				for !bytes.Contains(buf, []byte("tick 3\n")) {
					n, err := s.Read(tmp)
					if err != nil {
						t.Fatalf("read: %v (got %q)", err, buf)
					}
					buf = append(buf, tmp[:n]...)
				}
				if !bytes.HasPrefix(buf, []byte("tick 1\ntick 2\ntick 3\n")) {
					t.Errorf("stream starts %q", buf)
				}
				if err := s.Close(); err != nil {
					t.Errorf("close: %v", err)
				}

				// ctx ending ends the stream.
				ctx, cancel := context.WithCancel(context.Background())
				s, err = d.Stream(ctx, "sleep 100")
				if err != nil {
					t.Fatal(err)
				}
				time.AfterFunc(100*time.Millisecond, cancel)
				_, err = io.ReadAll(s)
				if !errors.Is(err, context.Canceled) {
					t.Errorf("read after cancel: %v, want context.Canceled", err)
				}
				s.Close()

				// A command that ends gives io.EOF, or its exit status under v2.
				s, err = d.Stream(ctxT(t, 10*time.Second), "echo done")
				if err != nil {
					t.Fatal(err)
				}
				b, err := io.ReadAll(s)
				if err != nil || string(b) != "done\n" {
					t.Errorf("finished stream: %q, %v", b, err)
				}
				s.Close()
				if v2 {
					s, err = d.Stream(ctxT(t, 10*time.Second), "echo partial; echo bad option >&2; exit 2")
					if err != nil {
						t.Fatal(err)
					}
					b, err := io.ReadAll(s)
					var ee *adbx.ExitError
					if string(b) != "partial\n" || !errors.As(err, &ee) || ee.Code != 2 || !strings.Contains(ee.Output, "bad option") {
						t.Errorf("failing stream: %q, %v", b, err)
					}
					s.Close()
				}
			})
		}
	}
}

func TestLogcatCommandLine(t *testing.T) {
	t.Parallel()
	since := time.Date(2026, 3, 7, 9, 5, 2, 345_000_000, time.UTC)
	dev := &adbtest.FakeDevice{Commands: map[string]adbtest.FakeResult{
		"logcat -v threadtime -T 1": {Stdout: "from now\n"},
		"logcat -v threadtime -T '03-07 09:05:02.345' -b main '*:S' ActivityManager:I": {Stdout: "since\n"},
	}}
	srv := adbtest.NewServer(dev)
	defer srv.Close()
	d := srv.Open("")
	for _, tc := range []struct {
		since time.Time
		args  []string
		want  string
	}{
		{time.Time{}, nil, "from now\n"},
		{since, []string{"-b", "main", "*:S", "ActivityManager:I"}, "since\n"},
	} {
		r, err := d.Logcat(ctxT(t, 10*time.Second), tc.since, tc.args...)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		r.Close()
		if string(b) != tc.want || err != nil {
			t.Errorf("Logcat(%v, %q) = %q, %v; want %q (the device answers only the exact command line)", tc.since, tc.args, b, err, tc.want)
		}
	}
}

func TestForward(t *testing.T) {
	t.Parallel()
	dev := &adbtest.FakeDevice{Ports: map[int]func(net.Conn){
		6790: func(c net.Conn) {
			defer c.Close()
			b, _ := io.ReadAll(io.LimitReader(c, 4))
			c.Write(append([]byte("echo:"), b...))
		},
	}}
	for _, ep := range endpoints {
		t.Run(ep.name, func(t *testing.T) {
			t.Parallel()
			d, _ := ep.open(t, dev)
			ctx := ctxT(t, 10*time.Second)
			port, err := d.Forward(ctx, 6790)
			if err != nil {
				t.Fatal(err)
			}
			if port >= 5555 && port <= 5585 {
				t.Errorf("forwarded to %d, in the emulator range", port)
			}
			c, err := d.Dial(ctxT(t, 5*time.Second), "tcp", forwardAddr(d, port))
			if err != nil {
				t.Fatal(err)
			}
			c.SetDeadline(time.Now().Add(5 * time.Second))
			c.Write([]byte("ping"))
			b, err := io.ReadAll(c)
			c.Close()
			if string(b) != "echo:ping" {
				t.Errorf("through the forward: %q, %v", b, err)
			}
			if err := d.RemoveForward(ctx, port); err != nil {
				t.Fatal(err)
			}
			if err := d.RemoveForward(ctx, port); err == nil {
				t.Error("removing a removed forward: no error")
			}
			if _, err := d.Forward(ctx, 0); err == nil {
				t.Error("Forward(0): no error")
			}
		})
	}
}

func TestPushPull(t *testing.T) {
	t.Parallel()
	// Larger than one 64 KiB sync chunk, with every byte value.
	data := make([]byte, 200_000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	mtime := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	for _, ep := range endpoints {
		t.Run(ep.name, func(t *testing.T) {
			t.Parallel()
			dev := &adbtest.FakeDevice{Files: fstest.MapFS{"data/local/tmp": {Mode: fs.ModeDir | 0o771}}}
			d, _ := ep.open(t, dev)
			ctx := ctxT(t, 10*time.Second)
			if err := d.Push(ctx, bytes.NewReader(data), "/data/local/tmp/blob", 0o640, mtime); err != nil {
				t.Fatal(err)
			}
			f := dev.Files["data/local/tmp/blob"]
			if f == nil || !bytes.Equal(f.Data, data) || f.Mode.Perm() != 0o640 || !f.ModTime.Equal(mtime) {
				t.Fatalf("device file after push: %+v", f)
			}
			var got bytes.Buffer
			if err := d.Pull(ctx, "/data/local/tmp/blob", &got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), data) {
				t.Errorf("pulled %d bytes, not what was pushed", got.Len())
			}
			err := d.Pull(ctx, "/data/local/tmp/missing", io.Discard)
			if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "/data/local/tmp/missing") {
				t.Errorf("pull of a missing file: %v, want fs.ErrNotExist naming the path", err)
			}
			if err := d.Push(ctx, strings.NewReader("x"), "", 0o644, mtime); err == nil {
				t.Error("push to an empty path: no error")
			}
		})
	}
}

// teeDevice records the command lines it ran and what they printed on
// stdout.
type teeDevice struct {
	adbtest.Device
	mu   sync.Mutex
	cmds []string
	out  bytes.Buffer
}

func (d *teeDevice) Shell(ctx context.Context, cmd string, stdin io.Reader, stdout, stderr io.Writer) int {
	d.mu.Lock()
	d.cmds = append(d.cmds, cmd)
	d.mu.Unlock()
	// Copied as it is written, so that it is all there before the client
	// sees the session end.
	return d.Device.Shell(ctx, cmd, stdin, io.MultiWriter(stdout, teeWriter{d}), stderr)
}

type teeWriter struct{ d *teeDevice }

func (w teeWriter) Write(p []byte) (int, error) {
	w.d.mu.Lock()
	defer w.d.mu.Unlock()
	return w.d.out.Write(p)
}

// take returns and clears the recorded output, and the command lines.
func (d *teeDevice) take() (string, []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := d.out.String()
	d.out.Reset()
	return out, append([]string(nil), d.cmds...)
}

// TestBatchMarkerNotInCommandLine checks that the separator marker is made
// on the device: ps or /proc/<pid>/cmdline show the command line, and a
// marker found there could be forged by any command that looks.
func TestBatchMarkerNotInCommandLine(t *testing.T) {
	t.Parallel()
	for _, dv := range testDevices {
		t.Run(dv.name, func(t *testing.T) {
			t.Parallel()
			tee := &teeDevice{Device: dv.new(t)}
			d, _ := endpoints[0].open(t, tee)
			markers := map[string]bool{}
			for range 3 {
				if _, err := d.Batch(ctxT(t, 10*time.Second), []string{"true"}); err != nil {
					t.Fatal(err)
				}
				out, cmds := tee.take()
				marker, _, _ := strings.Cut(out, "\n")
				if len(marker) < 8 {
					t.Fatalf("session output %q has no marker line", out)
				}
				markers[marker] = true
				for _, cmdline := range cmds {
					if strings.Contains(cmdline, marker) {
						t.Fatalf("marker %q appears in the command line %q", marker, cmdline)
					}
				}
			}
			if len(markers) != 3 {
				t.Errorf("three batches used %d distinct markers, want 3", len(markers))
			}
		})
	}
}

// TestConcurrentCalls runs calls from many goroutines on one Device.
func TestConcurrentCalls(t *testing.T) {
	t.Parallel()
	d, _ := endpoints[0].open(t, newSim(t, simdevice.Config{}))
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 5 {
				want := fmt.Sprintf("%d-%d", g, i)
				rs, err := d.Batch(ctxT(t, 20*time.Second), []string{"echo " + want, "exit " + strconv.Itoa(i)})
				if err != nil {
					errs <- err
					return
				}
				if string(rs[0].Stdout) != want+"\n" || rs[1].ExitCode != i {
					errs <- fmt.Errorf("goroutine %d call %d: got %q / %d", g, i, rs[0].Stdout, rs[1].ExitCode)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestStreamDeviceGone checks that a stream whose device vanishes ends
// with ErrDeviceGone under shell v2 and with io.EOF without it.
func TestStreamDeviceGone(t *testing.T) {
	t.Parallel()
	for _, ep := range endpoints {
		for _, dv := range testDevices {
			t.Run(ep.name+"/"+dv.name, func(t *testing.T) {
				t.Parallel()
				d, drop := ep.open(t, unplugged{dv.new(t)})
				s, err := d.Stream(ctxT(t, 20*time.Second), "echo up; sleep 30")
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				// The device goes once the stream has delivered its first
				// line, however long that took on a busy host.
				up := make([]byte, 3)
				if _, err := io.ReadFull(s, up); err != nil || string(up) != "up\n" {
					t.Fatalf("read %q before the drop (%v), want \"up\\n\"", up, err)
				}
				drop()
				b, err := io.ReadAll(s)
				if len(b) != 0 {
					t.Errorf("read %q after the drop, want nothing", b)
				}
				if dv.v2 && !errors.Is(err, adbx.ErrDeviceGone) {
					t.Errorf("err %v, want ErrDeviceGone", err)
				}
				if !dv.v2 && err != nil {
					t.Errorf("err %v, want io.EOF (ReadAll: nil) without shell v2", err)
				}
			})
		}
	}
}

// TestAppUIDFallbacks reads the uid on phones whose pm cannot list uids
// (before Android 8 it ignores -U), where dumpsys package answers instead,
// and checks that a package pm or dumpsys does not list is not installed.
func TestAppUIDFallbacks(t *testing.T) {
	t.Parallel()
	const pkg = "com.example.app"
	block := "Packages:\n  Package [com.example.app] (3f2a1b):\n    userId=10123\n    flags=[ HAS_CODE DEBUGGABLE ]\n"
	tests := []struct {
		name    string
		pm      adbtest.FakeResult
		dumpsys *adbtest.FakeResult
		uid     int
		err     error
		quote   string // text the error must show
	}{
		{name: "pm -U", pm: adbtest.FakeResult{Stdout: "package:com.example.app.debug uid:10200\npackage:com.example.app uid:10123,1010123\n"}, uid: 10123},
		{name: "pm lists only longer names", pm: adbtest.FakeResult{Stdout: "package:com.example.app.debug uid:10200\n"},
			err: adbx.ErrAppNotInstalled, quote: `not listed by "pm list packages -U com.example.app"`},
		{name: "pm without -U", pm: adbtest.FakeResult{Stdout: "package:com.example.app\n"}, dumpsys: &adbtest.FakeResult{Stdout: block}, uid: 10123},
		{name: "pm refuses -U", pm: adbtest.FakeResult{Stderr: "Error: Unknown option: -U\n", Exit: 1}, dumpsys: &adbtest.FakeResult{Stdout: block}, uid: 10123},
		{name: "dumpsys names another package", pm: adbtest.FakeResult{Stdout: "package:com.example.app\n"},
			dumpsys: &adbtest.FakeResult{Stdout: strings.ReplaceAll(block, "[com.example.app]", "[com.example.other]")},
			err:     adbx.ErrAppNotInstalled, quote: `the block of "com.example.other"`},
		{name: "dumpsys knows nothing", pm: adbtest.FakeResult{Stdout: "package:com.example.app\n"},
			dumpsys: &adbtest.FakeResult{Stdout: "Dexopt state:\n  Unable to find package: com.example.app\n"},
			err:     adbx.ErrAppNotInstalled, quote: "no userId= line"},
		{name: "dumpsys prints garbage", pm: adbtest.FakeResult{Stdout: "package:com.example.app\n"},
			dumpsys: &adbtest.FakeResult{Stdout: "    userId=ten\n"}, quote: `line 1: bad userId: "    userId=ten"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dev := &adbtest.FakeDevice{Commands: map[string]adbtest.FakeResult{"pm list packages -U " + pkg: tc.pm}}
			if tc.dumpsys != nil {
				dev.Commands["dumpsys package "+pkg] = *tc.dumpsys
			}
			srv := adbtest.NewServer(dev)
			defer srv.Close()
			uid, err := srv.Open("").AppUID(ctxT(t, 10*time.Second), pkg)
			if tc.quote == "" {
				if err != nil || uid != tc.uid {
					t.Errorf("AppUID = %d, %v; want %d", uid, err, tc.uid)
				}
				return
			}
			if err == nil || (tc.err != nil && !errors.Is(err, tc.err)) || !strings.Contains(err.Error(), tc.quote) {
				t.Errorf("AppUID = %d, %v; want an error (%v) showing %q", uid, err, tc.err, tc.quote)
			}
		})
	}
}

// TestDebuggable reads the DEBUGGABLE flag of the package's own block.
func TestDebuggable(t *testing.T) {
	t.Parallel()
	dev := &adbtest.FakeDevice{Commands: map[string]adbtest.FakeResult{
		"dumpsys package com.example.app":     {Stdout: "Packages:\n  Package [com.example.app] (1):\n    userId=10123\n    flags=[ HAS_CODE DEBUGGABLE ]\n"},
		"dumpsys package com.example.release": {Stdout: "Packages:\n  Package [com.example.release] (2):\n    userId=10124\n    flags=[ HAS_CODE ]\n"},
	}}
	srv := adbtest.NewServer(dev)
	defer srv.Close()
	d := srv.Open("")
	for pkg, want := range map[string]bool{"com.example.app": true, "com.example.release": false} {
		if got, err := d.Debuggable(ctxT(t, 10*time.Second), pkg); got != want || err != nil {
			t.Errorf("Debuggable(%s) = %v, %v; want %v", pkg, got, err, want)
		}
	}
}

package adbtest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// runADB runs adb and returns stdout, stderr and the exit status.
func runADB(t *testing.T, cmd *exec.Cmd, stdin string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Stdin = &o, &e, strings.NewReader(stdin)
	// A status other than 0 is an error of Run's, and what the caller
	// checks; only a command that never ran fails the test.
	if err := cmd.Run(); cmd.ProcessState == nil {
		t.Fatalf("%v: %v", cmd.Args, err)
	}
	return o.String(), e.String(), cmd.ProcessState.ExitCode()
}

func TestStockADB(t *testing.T) {
	dev := gadbDevice("ignored")
	d := NewAdbd(dev)
	defer d.Close()
	adb := StartADB(t)
	serial := adb.Connect(d.Addr)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	if out := adb.Run("devices"); !strings.Contains(out, serial+"\tdevice\n") {
		t.Errorf("adb devices:\n%s", out)
	}
	if out := adb.Run("-s", serial, "get-state"); out != "device\n" {
		t.Errorf("get-state %q", out)
	}

	t.Run("shell exit status and streams", func(t *testing.T) {
		stdout, stderr, code := runADB(t, adb.Command(ctx, "-s", serial, "shell", "split"), "")
		if stdout != "to stdout\n" || stderr != "to stderr\n" || code != 3 {
			t.Errorf("adb shell split: stdout %q stderr %q exit %d, want %q %q 3", stdout, stderr, code, "to stdout\n", "to stderr\n")
		}
		_, stderr, code = runADB(t, adb.Command(ctx, "-s", serial, "shell", "nonexistent-cmd"), "")
		if code != 127 || stderr != "sh: nonexistent-cmd: not found\n" {
			t.Errorf("unknown command: exit %d stderr %q", code, stderr)
		}
	})
	t.Run("one stream per shell", func(t *testing.T) {
		before := d.Streams()
		adb.Run("-s", serial, "shell", "echo", "hi")
		if got := d.Streams() - before; got != 1 {
			t.Errorf("adb shell opened %d streams on the device, want 1", got)
		}
	})
	t.Run("shell stdin", func(t *testing.T) {
		stdout, _, code := runADB(t, adb.Command(ctx, "-s", serial, "shell", "cat"), "piped\ninput\n")
		if stdout != "piped\ninput\n" || code != 0 {
			t.Errorf("adb shell cat < input = %q exit %d", stdout, code)
		}
	})
	t.Run("exec-out binary", func(t *testing.T) {
		stdout, _, code := runADB(t, adb.Command(ctx, "-s", serial, "exec-out", "bytes 3000000"), "")
		if !bytes.Equal([]byte(stdout), pattern(3000000)) || code != 0 {
			t.Errorf("exec-out: %d bytes exit %d, want the device's 3000000", len(stdout), code)
		}
	})
	t.Run("push and pull", func(t *testing.T) {
		dir := t.TempDir()
		src := filepath.Join(dir, "blob.bin")
		content := pattern(3<<20 + 7)
		if err := os.WriteFile(src, content, 0o644); err != nil {
			t.Fatal(err)
		}
		adb.Run("-s", serial, "push", src, "/data/local/tmp/blob.bin")
		f, ok := dev.Files["data/local/tmp/blob.bin"]
		if !ok || !bytes.Equal(f.Data, content) {
			t.Fatalf("the device holds %d bytes after the push of %d", len(f.Data), len(content))
		}
		dst := filepath.Join(dir, "back.bin")
		adb.Run("-s", serial, "pull", "/data/local/tmp/blob.bin", dst)
		got, err := os.ReadFile(dst)
		if err != nil || !bytes.Equal(got, content) {
			t.Errorf("pulled %d bytes (%v), pushed %d", len(got), err, len(content))
		}
		// adb 29 prints this error on stdout.
		stdout, stderr, code := runADB(t, adb.Command(ctx, "-s", serial, "pull", "/sdcard/missing", dst), "")
		if code == 0 || !strings.Contains(stdout+stderr, "failed to stat remote object '/sdcard/missing': No such file or directory") {
			t.Errorf("pull of a missing file: exit %d output %q", code, stdout+stderr)
		}
	})
	t.Run("forward", func(t *testing.T) {
		out := strings.TrimSpace(adb.Run("-s", serial, "forward", "tcp:0", "tcp:6790"))
		port, err := strconv.Atoi(out)
		if err != nil {
			t.Fatalf("adb forward tcp:0 printed %q", out)
		}
		defer adb.Run("-s", serial, "forward", "--remove", "tcp:"+out)
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		msg := pattern(2 << 20)
		go func() { _, _ = c.Write(msg) }()
		got := make([]byte, len(msg))
		if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, msg) {
			t.Errorf("echo through adb forward: %v", err)
		}
		if list := strings.TrimSpace(adb.Run("forward", "--list")); list != serial+" tcp:"+out+" tcp:6790" {
			t.Errorf("forward --list = %q", list)
		}
	})
	t.Run("concurrent shells", func(t *testing.T) {
		errs := make(chan string, 16)
		for i := range 16 {
			go func() {
				want := "n" + strconv.Itoa(i)
				out, _, code := runADB(t, adb.Command(ctx, "-s", serial, "shell", "echo", want), "")
				if out != want+"\n" || code != 0 {
					errs <- "echo " + want + ": " + strconv.Quote(out)
					return
				}
				errs <- ""
			}()
		}
		for range 16 {
			if e := <-errs; e != "" {
				t.Error(e)
			}
		}
	})
	t.Run("device vanishes", func(t *testing.T) {
		dev2, started, cancelled := blockingDevice("x")
		d2 := NewAdbd(dev2)
		defer d2.Close()
		serial2 := adb.Connect(d2.Addr)
		cmd := adb.Command(ctx, "-s", serial2, "shell", "sleep")
		cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, started, "the command")
		d2.Close()
		waitFor(t, cancelled, "the command's context to end")
		// adb 29's client exits 0 when a v2 stream ends without a status,
		// so only its end is checked, and that the server lost the device.
		if err := cmd.Wait(); err != nil {
			t.Logf("adb shell on a vanished device: %v", err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			out, err := adb.Command(ctx, "-s", serial2, "get-state").CombinedOutput()
			if err != nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("adb still finds the vanished device: %q", out)
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
}

// TestStockClientHostServer points the stock adb client at the pure-Go
// Server, which it must take for a running adb server.
func TestStockClientHostServer(t *testing.T) {
	path := StartADB(t).Path // skips without adb; its own server is unused
	s := NewServer(gadbDevice("sim-1"))
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	adb := &ADB{Path: path, Port: s.Port(), home: t.TempDir(), t: t}

	if out := adb.Run("devices", "-l"); !regexp.MustCompile(`(?m)^sim-1 +device product:fake model:Fake_Phone device:fake transport_id:1$`).MatchString(out) {
		t.Errorf("adb devices -l:\n%s", out)
	}
	stdout, stderr, code := runADB(t, adb.Command(ctx, "-s", "sim-1", "shell", "split"), "")
	if stdout != "to stdout\n" || stderr != "to stderr\n" || code != 3 {
		t.Errorf("adb shell split: %q %q exit %d", stdout, stderr, code)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "a.bin")
	content := pattern(1<<20 + 1)
	if err := os.WriteFile(src, content, 0o600); err != nil {
		t.Fatal(err)
	}
	adb.Run("-s", "sim-1", "push", src, "/data/local/tmp/a.bin")
	adb.Run("-s", "sim-1", "pull", "/data/local/tmp/a.bin", filepath.Join(dir, "b.bin"))
	if got, err := os.ReadFile(filepath.Join(dir, "b.bin")); err != nil || !bytes.Equal(got, content) {
		t.Errorf("push/pull through the Go server: %d bytes, %v", len(got), err)
	}
	out := strings.TrimSpace(adb.Run("-s", "sim-1", "forward", "tcp:0", "tcp:6790"))
	if _, err := strconv.Atoi(out); err != nil {
		t.Errorf("forward tcp:0 printed %q", out)
	}
	if list := strings.TrimSpace(adb.Run("forward", "--list")); list != "sim-1 tcp:"+out+" tcp:6790" {
		t.Errorf("forward --list = %q", list)
	}
}

func TestStartADBCleansUp(t *testing.T) {
	var port int
	var home string
	t.Run("server", func(t *testing.T) {
		adb := StartADB(t)
		port, home = adb.Port, adb.home
		if reservedPort(port) || port == 5037 {
			t.Errorf("server on port %d", port)
		}
		if out := adb.Run("devices"); !strings.HasPrefix(out, "List of devices attached") {
			t.Errorf("adb devices: %q", out)
		}
		// The key store is the private HOME's, not the developer's.
		if _, err := os.Stat(filepath.Join(home, ".android", "adbkey")); err != nil {
			t.Errorf("no adbkey in the private HOME: %v", err)
		}
	})
	if port == 0 {
		t.Skip("the server did not start")
	}
	if c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second); err == nil {
		c.Close()
		t.Errorf("an adb server still listens on %d after the test", port)
	}
}

// TestStartADBDiesWithTest kills a test process that started a server and
// checks that the server goes with it.
func TestStartADBDiesWithTest(t *testing.T) {
	if os.Getenv("ADBTEST_CHILD") == "1" {
		a := StartADB(t)
		fmt.Printf("PORT %d\n", a.Port)
		time.Sleep(time.Minute)
		return
	}
	StartADB(t) // skips without adb
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	child := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestStartADBDiesWithTest$", "-test.v")
	// The killed child cannot remove its temporary directory; ours will.
	child.Env = append(os.Environ(), "ADBTEST_CHILD=1", "TMPDIR="+t.TempDir())
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Wait()
	defer child.Process.Kill()
	var port int
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if _, err := fmt.Sscanf(sc.Text(), "PORT %d", &port); err == nil {
			break
		}
	}
	if port == 0 {
		t.Fatal("the child test printed no port")
	}
	_ = child.Process.Kill()
	_ = child.Wait()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatalf("the adb server on %s outlived its killed test", addr)
		}
	}
}

// A port reserved for one adb server is not handed to another until it is
// released, even when the port chooser offers it again (as the kernel may
// to two test binaries that look for a free port at the same moment).
func TestReservePortHeldAgainstOthers(t *testing.T) {
	// Ports of this process's own, so two copies of the test do not
	// contend for the same lock files.
	a, b := 2000+2*(os.Getpid()%30000), 2001+2*(os.Getpid()%30000)
	offers := []int{a, a, b, a}
	pick := func() (int, error) {
		p := offers[0]
		offers = offers[1:]
		return p, nil
	}
	p1, release1, err := reservePortFrom(pick)
	if err != nil || p1 != a {
		t.Fatalf("first: %d, %v; want %d", p1, err, a)
	}
	p2, release2, err := reservePortFrom(pick)
	if err != nil || p2 != b {
		t.Fatalf("second: %d, %v; want %d, the one not held", p2, err, b)
	}
	release1()
	release2()
	p3, release3, err := reservePortFrom(pick)
	if err != nil || p3 != a {
		t.Fatalf("after release: %d, %v; want %d again", p3, err, a)
	}
	release3()
}

//go:build unix

package perftest_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/simdevice"
)

// guardChildEnv names the adb server a child test binary measures through.
const guardChildEnv = "PERFGATE_GUARD_CHILD_ADB"

// A test binary interrupted (Ctrl-C) while its session runs puts the
// Looper property back before it dies, as the signal would have it die:
// the phone is served by this process, and a child test binary, with a
// session open on it, gets SIGINT.
func TestLooperPropertyRestoredOnInterrupt(t *testing.T) {
	if os.Getenv(guardChildEnv) != "" {
		t.Skip("the child's own run")
	}
	wl, err := simdevice.Preset("janky-feed")
	if err != nil {
		t.Fatal(err)
	}
	dev, err := simdevice.New(simdevice.Config{Workload: wl, Serial: "sim-guard"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	srv := adbtest.NewServer(dev)
	t.Cleanup(srv.Close)
	prop := metrics.LooperSlowProperty(wl.UID, "main")

	cmd := exec.Command(os.Args[0], "-test.run=^TestLooperGuardChild$", "-test.v")
	// The interrupted child cannot remove its own temporary directories,
	// so they go under this test's.
	cmd.Env = append(os.Environ(), guardChildEnv+"="+srv.Addr, "TMPDIR="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	started := false
	var seen []string
	for lines.Scan() {
		seen = append(seen, lines.Text())
		if strings.Contains(lines.Text(), "guard child: session started") {
			started = true
			break
		}
	}
	if !started {
		cmd.Wait()
		t.Fatalf("the child never started its session:\n%s", strings.Join(seen, "\n"))
	}
	if v, _ := dev.World().Prop(prop); v != "16" {
		t.Fatalf("%s = %q while the child's session runs, want 16", prop, v)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	go func() {
		for lines.Scan() {
		}
	}()
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGINT {
		t.Errorf("child: %v, want it ended by SIGINT", err)
	}
	if v, set := dev.World().Prop(prop); set {
		t.Errorf("%s = %q after the interrupt, want it unset as before", prop, v)
	}
}

// TestLooperGuardChild is the child of TestLooperPropertyRestoredOnInterrupt:
// it opens a session and waits to be interrupted.
func TestLooperGuardChild(t *testing.T) {
	addr := os.Getenv(guardChildEnv)
	if addr == "" {
		t.Skip("runs as the child of TestLooperPropertyRestoredOnInterrupt")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	d, err := adbx.Open(ctx, adbx.Options{Serial: "sim-guard", Server: addr})
	if err != nil {
		t.Fatal(err)
	}
	s := perftest.Start(t, d, perftest.WithConfig(perftest.Config{Package: pkg, Name: t.Name(), ResultsDir: t.TempDir(), WaitForApp: true}))
	s.Begin("waiting")
	os.Stdout.WriteString("guard child: session started\n")
	// The parent interrupts this process; a minute bounds a broken parent.
	select {
	case <-time.After(time.Minute):
		t.Fatal("never interrupted")
	case <-s.Done():
	}
}

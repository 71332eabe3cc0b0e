//go:build unix

package perftest_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/android/logcat"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
)

// guardChildEnv names the adb server a child test binary measures through.
const guardChildEnv = "PERFGATE_GUARD_CHILD_ADB"

// guardResultsEnv names the folder the guard child writes its Result in.
const guardResultsEnv = "PERFGATE_GUARD_CHILD_RESULTS"

// A test binary interrupted (Ctrl-C) while its session runs puts the
// Looper property back before it dies, as the signal would have it die:
// the phone is served by this process, and a child test binary, with a
// session open on it, gets SIGINT. A test binary that runs with SIGINT
// ignored, as a script's background job does, keeps ignoring it: the
// session leaves the property set, and SIGTERM still ends the binary with
// the property restored.
func TestLooperPropertyRestoredOnInterrupt(t *testing.T) {
	if os.Getenv(guardChildEnv) != "" {
		t.Skip("the child's own run")
	}
	t.Run("SIGINT", func(t *testing.T) {
		// The child must start with SIGINT's default action whatever this
		// binary runs with: a signal this process handles is reset to it
		// in a child, one it ignores stays ignored.
		if signal.Ignored(os.Interrupt) {
			handled := make(chan os.Signal, 1)
			signal.Notify(handled, os.Interrupt)
			defer signal.Stop(handled)
		}
		child := startGuardChild(t, false)
		child.signal(t, os.Interrupt)
		child.endsBy(t, syscall.SIGINT)
	})
	t.Run("SIGINT ignored", func(t *testing.T) {
		child := startGuardChild(t, true)
		// Ignored, SIGINT is dropped as it is sent: nothing can follow it.
		child.signal(t, os.Interrupt)
		child.signal(t, syscall.SIGTERM)
		child.endsBy(t, syscall.SIGTERM)
	})
}

// guardChild is a child test binary with a session open on a simulated
// phone served by the test.
type guardChild struct {
	cmd     *exec.Cmd
	dev     *simdevice.Device
	prop    string
	results string
}

// startGuardChild starts TestLooperGuardChild, with SIGINT ignored when
// ignoreINT, and waits for its session to run: the Looper property is set
// then, and SIGINT is still ignored in the child when ignoreINT.
func startGuardChild(t *testing.T, ignoreINT bool) *guardChild {
	t.Helper()
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
	c := &guardChild{dev: dev, prop: logcat.LooperSlowProperty(wl.UID, "main"), results: t.TempDir()}
	args := []string{os.Args[0], "-test.run=^TestLooperGuardChild$", "-test.v"}
	if ignoreINT {
		// A shell's trap "" is an ignored signal that exec keeps.
		args = append([]string{"sh", "-c", `trap "" INT; exec "$@"`, "sh"}, args...)
	}
	c.cmd = exec.Command(args[0], args[1:]...)
	// The interrupted child cannot remove its own temporary directories,
	// so they go under this test's.
	c.cmd.Env = append(os.Environ(), guardChildEnv+"="+srv.Addr, guardResultsEnv+"="+c.results, "TMPDIR="+t.TempDir())
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.cmd.Stderr = c.cmd.Stdout
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c.cmd.ProcessState == nil {
			c.cmd.Process.Kill()
			c.cmd.Wait()
		}
	})
	lines := bufio.NewScanner(out)
	started := ""
	var seen []string
	for lines.Scan() {
		seen = append(seen, lines.Text())
		if s, ok := strings.CutPrefix(lines.Text(), "guard child: session started"); ok {
			started = s
			break
		}
	}
	go func() {
		for lines.Scan() {
		}
	}()
	if started == "" {
		c.cmd.Wait()
		t.Fatalf("the child never started its session:\n%s", strings.Join(seen, "\n"))
	}
	if want := fmt.Sprintf("; SIGINT ignored: %v", ignoreINT); started != want {
		t.Errorf("child: %q, want %q", started, want)
	}
	if v, _ := dev.World().Prop(c.prop); v != "16" {
		t.Fatalf("%s = %q while the child's session runs, want 16", c.prop, v)
	}
	return c
}

func (c *guardChild) signal(t *testing.T, sig os.Signal) {
	t.Helper()
	if err := c.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
}

// endsBy checks that the child died of sig with the property unset again.
func (c *guardChild) endsBy(t *testing.T, sig syscall.Signal) {
	t.Helper()
	err := c.cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != sig {
		t.Errorf("child: %v, want %q", err, "signal: "+sig.String())
	}
	if v, set := c.dev.World().Prop(c.prop); set {
		t.Errorf("%s = %q after the signal, want it unset as before", c.prop, v)
	}
	// The session stopped before the signal ended the process: its Result
	// is written, the step cut short marked unfinished, the signal its
	// error.
	files, _ := filepath.Glob(filepath.Join(c.results, "*.json"))
	if len(files) != 1 {
		t.Fatalf("the interrupted child wrote %v, want one Result", files)
	}
	r, err := result.ReadResult(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.Error, "perftest: interrupted by ") || len(r.Steps) != 1 || !r.Steps[0].Unfinished || r.Steps[0].Name != "waiting" {
		t.Errorf("the interrupted child's Result: error %q, steps %+v", r.Error, r.Steps)
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
	s := perftest.Start(t, d, perftest.WithConfig(perftest.Config{Package: pkg, Name: t.Name(), ResultsDir: os.Getenv(guardResultsEnv), WaitForApp: true}))
	s.Begin("waiting")
	// The session's guard must not have stopped the process ignoring SIGINT.
	fmt.Printf("guard child: session started; SIGINT ignored: %v\n", signal.Ignored(os.Interrupt))
	// The parent signals this process, whose guard stops the session and
	// raises the signal again; a minute bounds a broken parent.
	time.Sleep(time.Minute)
	t.Fatalf("never interrupted (session done: %v)", s.Err())
}

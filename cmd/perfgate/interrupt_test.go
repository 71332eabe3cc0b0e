package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/perfgate/perfgate/android/logcat"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
)

// perfgateProcess starts `perfgate args...` (the test binary, which
// TestMain installs as the command), and returns its stderr lines as they
// come.
func perfgateProcess(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer, <-chan string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("no signals to send a process here")
	}
	cmd := exec.Command("perfgate", args...)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			lines <- sc.Text()
		}
		io.Copy(io.Discard, errPipe)
	}()
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, &stdout, lines
}

// waitLine reads lines until one holds want; it fails the test when the
// process ends first.
func waitLine(t *testing.T, lines <-chan string, want string) {
	t.Helper()
	var seen []string
	for l := range lines {
		if strings.Contains(l, want) {
			return
		}
		seen = append(seen, l)
	}
	t.Fatalf("the process ended without printing %q:\n%s", want, strings.Join(seen, "\n"))
}

// signalAndWait sends sig to the process, waits for it to end and checks
// its exit status.
func signalAndWait(t *testing.T, cmd *exec.Cmd, lines <-chan string, sig os.Signal, code int, stdout *bytes.Buffer) {
	t.Helper()
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	for range lines {
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != code {
		t.Fatalf("exit: %v, want status %d\n%s", err, code, stdout.String())
	}
}

// idleScenario launches the simulated app, scrolls, then idles for the
// longest sleep; a third step follows.
const idleScenario = `{
  "package": "com.perfgate.demo",
  "simulated": { "workload": "smooth-scroll" },
  "steps": [
    { "name": "scroll", "actions": [ { "action": "launch", "kind": "hot" }, { "action": "swipe", "direction": "up", "count": 2 } ] },
    { "name": "idle", "actions": [ { "action": "sleep", "ms": 600000 } ] },
    { "name": "never", "actions": [ { "action": "back" } ] }
  ],
  "budgets": { "scroll": { "jank": { "max": 0 } } }
}
`

// checkInterruptedRun reads back the Result of idleScenario stopped in
// its second step.
func checkInterruptedRun(t *testing.T, out, scenarioPath string) {
	t.Helper()
	p := filepath.Join(filepath.Dir(scenarioPath), "perf-results", "feed.json")
	if !strings.Contains(out, "STOP idle (") || !strings.Contains(out, ", unfinished): ") || !strings.Contains(out, "result: "+p+"\n") {
		t.Errorf("output:\n%s", out)
	}
	r, err := result.ReadResult(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Steps) != 2 || r.Steps[0].Name != "scroll" || r.Steps[0].Unfinished || !r.Steps[1].Unfinished {
		t.Fatalf("steps %+v, want scroll and an unfinished idle", r.Steps)
	}
	if r.Step("scroll").Frames().Frames == 0 {
		t.Error("the finished step lost its frames")
	}
}

// `perfgate run` signalled mid-step (SIGHUP here, through the channel the
// command reads signals from): the open step is unfinished, the Result has
// every step so far, budgets are not checked, and the status is 129.
func TestRunInterrupted(t *testing.T) {
	t.Parallel()
	p := writeScenario(t, idleScenario)
	sigs := make(chan os.Signal, 1)
	stderr := watchLines("run: step 2 of 3: idle", 1, func() { sigs <- syscall.SIGHUP })
	var stdout bytes.Buffer
	err := scenarioRun(sigs, []string{p}, &stdout, stderr)
	var ec exitCoder
	if !errors.As(err, &ec) || ec.ExitCode() != 129 || err.Error() != "run: hung up (SIGHUP) after 1 of 3 steps; budgets not checked" {
		t.Fatalf("err = %v, want exit status 129\n%s", err, stdout.String())
	}
	if !strings.Contains(stdout.String(), `scenario step "idle": sleep 10m0s: interrupted: hung up (SIGHUP); the step is marked unfinished`) {
		t.Errorf("output:\n%s", stdout.String())
	}
	checkInterruptedRun(t, stdout.String(), p)
}

// A real perfgate process gets SIGTERM in the middle of a step: it writes
// the Result of what it measured, says where, and exits with 143.
func TestRunProcessTerminated(t *testing.T) {
	t.Parallel()
	p := writeScenario(t, idleScenario)
	cmd, stdout, lines := perfgateProcess(t, "run", p)
	waitLine(t, lines, "run: step 2 of 3: idle")
	signalAndWait(t, cmd, lines, syscall.SIGTERM, 143, stdout)
	checkInterruptedRun(t, stdout.String(), p)
}

// A real `perfgate record -duration 1h` interrupted with Ctrl-C writes the
// Result, the step unfinished, and exits with 130; the app's Looper
// property it set is as it was before.
func TestRecordProcessInterrupted(t *testing.T) {
	t.Parallel()
	dev, srv := recordDevice(t)
	out := filepath.Join(t.TempDir(), "result.json")
	cmd, stdout, lines := perfgateProcess(t, "record", "-serial", dev.Serial(), "-package", simdevice.PresetPackage, "-duration", "1h", "-out", out, "-adb", srv.Addr)
	waitLine(t, lines, "fps")
	waitLine(t, lines, "fps")
	signalAndWait(t, cmd, lines, os.Interrupt, 130, stdout)
	if !strings.HasPrefix(stdout.String(), "wrote "+out+": ") {
		t.Errorf("stdout %q", stdout.String())
	}
	r, err := result.ReadResult(out)
	if err != nil {
		t.Fatal(err)
	}
	if st := r.Step("record"); !st.Unfinished || st.Frames().Frames == 0 {
		t.Errorf("step unfinished %v, %d frames", st.Unfinished, st.Frames().Frames)
	}
	prop := logcat.LooperSlowProperty(simdevice.PresetUID, "main")
	if v, set := dev.World().Prop(prop); set || r.Causes == nil || r.Causes.LooperProperty != prop {
		t.Errorf("%s after the interrupt: %q (set %v); the run set %+v", prop, v, set, r.Causes)
	}
}

//go:build unix

package perftest_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
)

// The kill harness: a child test binary (TestKillChild) measures the
// janky-feed app on a simulated phone this process serves, with a trace,
// the Looper property and the profiler, through two steps, and is killed
// (SIGKILL: no handler, no Stop) at one chosen point of its session. The
// child kills itself at its own points (killPointEnv); this process kills
// it when the phone gets a request (a command run or about to run, a file
// pulled). After each kill:
//
//   - every step the child finished is in the Result on disk, marked
//     unfinished, with the phone's true frames once a poll after the
//     step's end had come back;
//   - the next session on the phone (after the killed one's leases ran
//     out) puts back what the killed one changed, and says so in a note
//     for each thing: the Looper property, perfetto still recording, the
//     trace file, its lease, the profiler's file;
//   - and after it the phone is as it was before the killed session: the
//     property, no mark, no perfgate trace or lease or profiler file, no
//     perfetto or simpleperf running.
//
// A point is one line of killPoints.

// Environment of the child.
const (
	killChildEnv   = "PERFGATE_KILL_CHILD_ADB"     // the adb server it measures through
	killResultsEnv = "PERFGATE_KILL_CHILD_RESULTS" // its results folder
	killPointEnv   = "PERFGATE_KILL_CHILD_POINT"   // the point it kills itself at
	killSerial     = "sim-kill"
)

// killPoint is where in a session the child is killed.
type killPoint struct {
	name string
	// child is the child's own point (see TestKillChild), "" for one of
	// the phone's.
	child string
	// on, for a point of the phone's, picks the request (a command line,
	// or "pull <path>") the kill comes with: before the phone runs it,
	// or, with after, once it ran.
	on    func(req string) bool
	after bool
	// steps are the steps the Result on disk holds after the kill, in
	// order; a "+" after a name says its frames are measured (a poll
	// after its end had come back). None: no Result was written.
	steps []string
}

// has picks the requests that contain every one of parts.
func has(parts ...string) func(string) bool {
	return func(req string) bool {
		for _, p := range parts {
			if !strings.Contains(req, p) {
				return false
			}
		}
		return true
	}
}

var killPoints = []killPoint{
	{name: "before Start's first round trip", on: func(string) bool { return true }},
	{name: "after the trace started", on: has("perfetto --txt -c -"), after: true},
	{name: "after the Looper property was set", on: has("setprop log.looper.10234.main.slow 16"), after: true},
	{name: "in the first step", child: "mid-first"},
	{name: "after the first step's write", child: "after-first-end", steps: []string{"first"}},
	{name: "after the first step's write with its frames", child: "after-first-polled", steps: []string{"first+"}},
	{name: "in the second step", child: "mid-second", steps: []string{"first+"}},
	{name: "between the last step and Stop", child: "before-stop", steps: []string{"first+", "second+"}},
	{name: "during Stop's log reads", on: has("logcat"), steps: []string{"first+", "second+"}},
	{name: "as Stop stops the profiler", on: has("pkill -INT -f"), steps: []string{"first+", "second+"}},
	{name: "after the profiler wrote its file, before Stop read it", on: has("simpleperf report-sample"), steps: []string{"first+", "second+"}},
	{name: "during the Looper restore", on: has(`rm -f "$d/owner.`, "setprop"), steps: []string{"first+", "second+"}},
	{name: "as Stop stops the trace", on: has("kill -TERM", "while kill -0"), steps: []string{"first+", "second+"}},
	{name: "during the trace pull", on: has("pull " + traceDir + "/perfgate-"), steps: []string{"first+", "second+"}},
	{name: "after the pull, before the trace is removed", on: has("rm -f", ".perfetto-trace"), steps: []string{"first+", "second+"}},
}

// TestKilledSessionLeavesNothingBehind kills the child at each of
// killPoints (see the top of this file).
func TestKilledSessionLeavesNothingBehind(t *testing.T) {
	if os.Getenv(killChildEnv) != "" {
		t.Skip("the child's own run")
	}
	t.Parallel()
	for _, kp := range killPoints {
		t.Run(kp.name, func(t *testing.T) {
			t.Parallel()
			killRun(t, kp)
		})
	}
}

// killPhone is the simulated phone as the child sees it: it kills the
// child when the point's request comes. It holds the child's requests
// until ready is closed, once kill is set.
type killPhone struct {
	*simdevice.Device
	point killPoint
	ready chan struct{}
	kill  func() // kills the child and waits for it to end
	fired sync.Once
}

func (k *killPhone) fire(req string, after bool) {
	<-k.ready
	if k.point.on != nil && k.point.after == after && k.point.on(req) {
		k.fired.Do(k.kill)
	}
}

func (k *killPhone) Shell(ctx context.Context, cmd string, stdin io.Reader, stdout, stderr io.Writer) int {
	k.fire(cmd, false)
	st := k.Device.Shell(ctx, cmd, stdin, stdout, stderr)
	k.fire(cmd, true)
	return st
}

func (k *killPhone) Open(p string) (io.ReadCloser, error) {
	k.fire("pull "+p, false)
	return k.Device.Open(p)
}

// killRun runs the child to the point, kills it there, and checks what it
// left.
func killRun(t *testing.T, kp killPoint) {
	dev := markPhone(t, killSerial, "100")
	before := readPhone(t, dev)
	// The child reaches the phone through a server of its own; this
	// process, through another.
	kph := &killPhone{Device: dev, point: kp, ready: make(chan struct{})}
	srv := adbtest.NewServer(kph)
	t.Cleanup(srv.Close)
	d, _ := openHost(t, dev, nil)
	launch(t, d, dev)

	results := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillChild$", "-test.v")
	// The killed child cannot remove its temporary directories.
	cmd.Env = append(os.Environ(), killChildEnv+"="+srv.Addr, killResultsEnv+"="+results, killPointEnv+"="+kp.child, "TMPDIR="+t.TempDir())
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var werr error
	go func() { werr = cmd.Wait(); close(exited) }()
	kph.kill = func() {
		cmd.Process.Kill()
		<-exited
	}
	close(kph.ready)
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	// A minute bounds a broken child, not the wait.
	select {
	case <-exited:
	case <-time.After(time.Minute):
		t.Fatalf("the child still runs after a minute:\n%s", out.String())
	}
	var ee *exec.ExitError
	if !errors.As(werr, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the child ended with %v, not killed at the point:\n%s", werr, out.String())
	}

	// The phone may still run a request the child sent before it died
	// (the pkill it was killed at, say): what the phone holds is read once
	// the child's server has ended every request it was given.
	srv.Close()
	checkKilledResult(t, dev, results, kp.steps)

	cleanedByNext(t, dev, d, before)
}

// checkKilledResult checks the Result the killed child left in dir: the
// steps named (see killPoint.steps), marked unfinished, with the phone's
// true frames where they are measured; no Result when none are named.
func checkKilledResult(t *testing.T, dev *simdevice.Device, dir string, steps []string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(steps) == 0 {
		if len(files) > 0 {
			t.Errorf("Results %q of a session killed before its first step ended", files)
		}
		return
	}
	if len(files) != 1 {
		t.Fatalf("Results %q, want one", files)
	}
	r, err := result.ReadResult(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if r.Unfinished == nil || len(r.Failed()) == 0 {
		t.Errorf("the killed session's Result: unfinished %+v, failed %q", r.Unfinished, r.Failed())
	}
	if len(r.Steps) != len(steps) {
		t.Fatalf("the killed session's Result has %d steps, want %q", len(r.Steps), steps)
	}
	for i, want := range steps {
		name, polled := strings.CutSuffix(want, "+")
		st := r.Steps[i]
		if st.Name != name {
			t.Errorf("step %d is %q, want %q", i, st.Name, name)
			continue
		}
		if !polled {
			absent(t, st, []metrics.Name{metrics.Frames}, "no frame poll succeeded after the step ended")
			continue
		}
		truth, _, late := truthInStep(r, st, dev.World().TruthFrames(), false)
		if got := metric(t, st, metrics.Frames); got != float64(len(truth)) || late > 0 {
			t.Errorf("%s: %v frames on disk; the phone drew %d in it (%d after the last poll)", name, got, len(truth), late)
		}
	}
}

// syncBuffer is a bytes.Buffer for a child's output.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestKillChild is the child of TestKilledSessionLeavesNothingBehind: it
// measures two steps and stops, killing itself at the point
// killPointEnv names.
func TestKillChild(t *testing.T) {
	addr := os.Getenv(killChildEnv)
	if addr == "" {
		t.Skip("runs as the child of TestKilledSessionLeavesNothingBehind")
	}
	point, dir := os.Getenv(killPointEnv), os.Getenv(killResultsEnv)
	at := func(p string) {
		if p == point {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	d, err := adbx.Open(ctx, adbx.Options{Serial: killSerial, Server: addr})
	if err != nil {
		t.Fatal(err)
	}
	tk := newTicker()
	s := perftest.Start(t, d, perftest.WithConfig(perftest.Config{Package: pkg, Name: t.Name(), ResultsDir: dir, WaitForApp: true,
		Trace: &perftest.TraceConfig{}, OnTick: tk.onTick}))
	s.Begin("first")
	tk.wait(t, 3)
	at("mid-first")
	s.End()
	at("after-first-end")
	waitPolled(t, tk, dir, "first")
	at("after-first-polled")
	s.Begin("second")
	tk.wait(t, 3)
	at("mid-second")
	s.End()
	waitPolled(t, tk, dir, "second")
	at("before-stop")
	s.Stop()
}

// waitPolled waits for the Result in dir to hold the step with its frames,
// written once a poll after its end came back. A hundred ticks bound a
// broken session, not the wait.
func waitPolled(t *testing.T, tk ticker, dir, step string) {
	t.Helper()
	for range 100 {
		tk.wait(t, 1)
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		if len(files) != 1 {
			continue
		}
		r, err := result.ReadResult(files[0])
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if st := r.Step(step); !st.Missing && st.NotMeasured[metrics.Frames] == "" {
			return
		}
	}
	t.Fatalf("no Result with step %q's frames after 100 ticks", step)
}

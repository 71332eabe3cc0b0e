package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
)

// recordDevice serves a simulated phone with the preset app drawing.
func recordDevice(t *testing.T) (*simdevice.Device, *adbtest.Server) {
	t.Helper()
	wl, err := simdevice.Preset("janky-scroll")
	if err != nil {
		t.Fatal(err)
	}
	dev, srv := simtest.Serve(t, simdevice.Config{Workload: simtest.QuickStart(wl), RefreshHz: 60})
	simtest.Launch(t, srv.Open(dev.Serial()), dev)
	return dev, srv
}

func TestRecordDuration(t *testing.T) {
	t.Parallel()
	dev, srv := recordDevice(t)
	out := filepath.Join(t.TempDir(), "result.json")
	var stdout, stderr bytes.Buffer
	err := runRecord([]string{"-serial", dev.Serial(), "-package", simdevice.PresetPackage,
		"-duration", "2500ms", "-out", out, "-adb", srv.Addr}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("record: %v\n%s", err, stderr.String())
	}
	// A live line a second, at most (a busy machine may delay one past the
	// end), and the last one shows the figures.
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) < 1 || len(lines) > 4 || !strings.Contains(lines[len(lines)-1], "fps") || !strings.Contains(lines[len(lines)-1], "pss") {
		t.Errorf("live lines:\n%s", stderr.String())
	}
	if !strings.Contains(stdout.String(), "wrote "+out) {
		t.Errorf("stdout %q", stdout.String())
	}
	r, err := result.ReadResult(out)
	if err != nil {
		t.Fatal(err)
	}
	st := r.Step("record")
	// The step lasts the duration asked for; how much longer depends on
	// how busy the machine is, but it ends before the session does.
	if d := st.Duration(); d < 2500*time.Millisecond || st.HostEnd.After(r.End) {
		t.Errorf("step lasted %v, ended %v, session ended %v", d, st.HostEnd, r.End)
	}
	checkTruthFrames(t, dev, r)
	if st.CPU().Mean <= 0 || st.Memory().PSSMaxKB <= 0 {
		t.Errorf("cpu %v pss %v", st.CPU().Mean, st.Memory().PSSMaxKB)
	}
	if r.Name != "record" || r.App.Package != simdevice.PresetPackage {
		t.Errorf("name %q package %q", r.Name, r.App.Package)
	}
}

// Without -duration, Ctrl-C is the end of the recording: the step is
// whole, the Result written, and the exit status 0.
func TestRecordUntilInterrupted(t *testing.T) {
	t.Parallel()
	dev, srv := recordDevice(t)
	out := filepath.Join(t.TempDir(), "result.json")
	sigs := make(chan os.Signal, 1)
	stderr := watchLines("fps", 2, func() { sigs <- os.Interrupt }) // the Ctrl-C, a second in
	var stdout bytes.Buffer
	err := record(sigs, []string{"-serial", dev.Serial(), "-package", simdevice.PresetPackage, "-out", out, "-adb", srv.Addr}, &stdout, stderr)
	if err != nil {
		t.Fatalf("record: %v", err)
	}
	r, err := result.ReadResult(out)
	if err != nil {
		t.Fatal(err)
	}
	st := r.Step("record")
	if st.Unfinished || st.Duration() < time.Second {
		t.Errorf("step unfinished %v, %v long", st.Unfinished, st.Duration())
	}
	checkTruthFrames(t, dev, r)
}

// With -duration, a signal before the time is up cuts the step short: the
// Result is written with the step marked unfinished, and the exit status
// is the signal's.
func TestRecordSignalled(t *testing.T) {
	t.Parallel()
	dev, srv := recordDevice(t)
	out := filepath.Join(t.TempDir(), "result.json")
	sigs := make(chan os.Signal, 1)
	stderr := watchLines("fps", 2, func() { sigs <- syscall.SIGTERM })
	var stdout bytes.Buffer
	err := record(sigs, []string{"-serial", dev.Serial(), "-package", simdevice.PresetPackage, "-duration", "1h", "-out", out, "-adb", srv.Addr}, &stdout, stderr)
	var ec exitCoder
	if !errors.As(err, &ec) || ec.ExitCode() != 143 || !strings.Contains(err.Error(), "record: terminated (SIGTERM) ") || !strings.Contains(err.Error(), "(result in "+out+")") {
		t.Fatalf("err = %v, want exit status 143 saying where the result is", err)
	}
	if first, _, _ := strings.Cut(stdout.String(), "\n"); !strings.HasPrefix(first, "wrote "+out+": ") || !strings.HasSuffix(first, ", unfinished") {
		t.Errorf("stdout %q", stdout.String())
	}
	r, err := result.ReadResult(out)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Step("record").Unfinished {
		t.Error("the cut step is not marked unfinished")
	}
	checkTruthFrames(t, dev, r)
}

// checkTruthFrames compares the recorded step's frames with every frame
// the phone presented inside the step's device window, but for up to two
// still in flight at the last poll. A tick past its deadline on a loaded
// host may lose frames; the gap says so, and the count is then not
// comparable.
func checkTruthFrames(t *testing.T, dev *simdevice.Device, r *result.Result) {
	t.Helper()
	st := r.Step("record")
	truth := 0
	for _, f := range dev.World().TruthFrames() {
		if f.IntendedVsync >= st.DeviceStartNs && f.IntendedVsync < st.DeviceEndNs {
			truth++
		}
	}
	if n := st.Frames().Frames; len(r.Gaps) == 0 && (n < truth-2 || n > truth) || n == 0 {
		t.Errorf("%d frames, truth %d", n, truth)
	}
	if len(r.Gaps) > 0 {
		t.Logf("gaps on a loaded host: %+v", r.Gaps)
	}
}

// lineWatch is an io.Writer that runs fn once the n-th line holding want
// has been written.
type lineWatch struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	n    int
	fn   func()
}

func watchLines(want string, n int, fn func()) *lineWatch {
	return &lineWatch{want: want, n: n, fn: fn}
}

func (w *lineWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if w.fn != nil && strings.Count(w.buf.String(), w.want) >= w.n {
		w.fn()
		w.fn = nil
	}
	return len(p), nil
}

func (w *lineWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

func TestRecordDeviceGone(t *testing.T) {
	t.Parallel()
	dev, srv := recordDevice(t)
	out := filepath.Join(t.TempDir(), "result.json")
	// The phone goes away once the recording has begun.
	stderr := watchLines("fps", 2, func() { go srv.Remove(dev.Serial()) })
	var stdout bytes.Buffer
	err := record(nil, []string{"-serial", dev.Serial(), "-package", simdevice.PresetPackage, "-out", out, "-adb", srv.Addr, "-give-up", "2s"}, &stdout, stderr)
	if err == nil || !strings.Contains(err.Error(), "partial result in "+out) {
		t.Fatalf("err = %v, want the loss and where the partial result is", err)
	}
	r, rerr := result.ReadResult(out)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if r.Error == "" || r.Step("record").Frames().Frames == 0 {
		t.Errorf("partial result: error %q frames %d", r.Error, r.Step("record").Frames().Frames)
	}
}

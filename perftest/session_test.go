package perftest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest/internal/samples"
	"github.com/perfgate/perfgate/result"
)

// fastConfig is a session config for the scripted fake: quick ticks, no
// frames (the frame path has its own tests), results in a temp dir.
func fastConfig(t *testing.T) Config {
	return Config{
		Package:      "com.perfgate.demo",
		Name:         t.Name(),
		Collectors:   []Collector{CollectCPU, CollectMemory, CollectTraffic},
		Interval:     10 * time.Millisecond,
		SlowInterval: 30 * time.Millisecond,
		Settle:       10 * time.Millisecond,
		TickTimeout:  200 * time.Millisecond,
		ResultsDir:   t.TempDir(),
	}
}

func startFake(t *testing.T, f *fakeDevice, cfg Config) *Session {
	t.Helper()
	s, err := newSession(context.Background(), f, cfg)
	if err != nil {
		t.Fatalf("newSession: %v", err)
	}
	return s
}

// waitTicks lets the cheap lane run n more ticks: it waits on the fake's
// batches, not on the clock.
func waitTicks(t *testing.T, f *fakeDevice, n int) {
	t.Helper()
	want := f.batchCount() + n
	if !f.await(func() bool { return f.batchCount() >= want }) {
		t.Fatalf("device saw %d batches in a minute, want %d", f.batchCount(), want)
	}
}

func TestSessionCPUMemoryTraffic(t *testing.T) {
	f := newFake()
	s := startFake(t, f, fastConfig(t))
	s.Step("scroll", func() { waitTicks(t, f, 12) })
	r := s.Stop()
	if r.Error != "" {
		t.Fatalf("session error: %s", r.Error)
	}
	st := r.Step("scroll")
	if st.Missing {
		t.Fatalf("step scroll missing: %+v", r.Steps)
	}
	// Per tick the fake adds busy 200, idle 600, app 40 ticks: device
	// 200/800 = 25 %, app 40/800 = 5 %, × 8 cores = 40 % top-style.
	cpu := st.CPU()
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"device_pct", cpu.DeviceMean, 25},
		{"device_pct_max", cpu.DeviceMax, 25},
		{"app_pct", cpu.Mean, 5},
		{"app_pct_max", cpu.Max, 5},
		{"app_core_pct", cpu.MeanPerCore, 40},
	} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("cpu %s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if cpu.Intervals < 11 {
		t.Errorf("cpu over %d intervals, want ≥ 11", cpu.Intervals)
	}
	if len(cpu.Threads) == 0 || cpu.Threads[0].Name != "com.perfgate.demo" {
		t.Errorf("top threads = %+v, want the main thread first", cpu.Threads)
	}
	mem := st.Memory()
	if mem.RSSMaxKB != 150000 || mem.RSSLastKB != 150000 || mem.RSSSamples < 11 {
		t.Errorf("rss = max %d last %d over %d samples, want 150000 over ≥ 11", mem.RSSMaxKB, mem.RSSLastKB, mem.RSSSamples)
	}
	if mem.PSSMaxKB != 13000 || mem.PSSSamples == 0 {
		t.Errorf("pss max = %d over %d samples, want 13000 (the fake's TOTAL)", mem.PSSMaxKB, mem.PSSSamples)
	}
	if mem.Summary["java_heap_kb"] != 1000 || mem.Summary["system_kb"] != 6000 {
		t.Errorf("app summary = %v", mem.Summary)
	}
	tr := st.Traffic()
	if tr.Scope != "uid" || tr.Source != samples.TrafficQtaguid {
		t.Errorf("traffic scope %q source %q, want uid from xt_qtaguid", tr.Scope, tr.Source)
	}
	// 1000 rx and 100 tx bytes a tick, only for the app's uid.
	if tr.RxBytes == 0 || tr.RxBytes%1000 != 0 || tr.TxBytes*10 != tr.RxBytes {
		t.Errorf("traffic rx %d tx %d, want whole ticks of 1000/100", tr.RxBytes, tr.TxBytes)
	}
	if st.Crashed() || len(r.Gaps) != 0 {
		t.Errorf("crashes %v gaps %v, want none", st.Crashes, r.Gaps)
	}
}

func TestSessionOneRoundTripPerTick(t *testing.T) {
	f := newFake()
	cfg := fastConfig(t)
	cfg.Collectors = []Collector{CollectCPU, CollectTraffic} // no slow lane
	s := startFake(t, f, cfg)
	waitTicks(t, f, 5)
	r := s.Stop()
	// Setup's one probe batch (facts, uid and processes are the fake's own
	// calls), then one batch per sample, Stop's last tick included.
	if got, want := f.batches, len(r.Samples)+1; got != want {
		t.Errorf("%d batches for %d ticks, want one each after the probe", got, len(r.Samples))
	}
}

func TestClockMapping(t *testing.T) {
	f := newFake()
	cfg := fastConfig(t)
	s := startFake(t, f, cfg)
	waitTicks(t, f, 20)
	r := s.Stop()
	// The fake's clock: device = bootNs + (now − t0); host ns count from
	// s.start, so the true offset is bootNs + (s.start − t0).
	trueOffset := f.bootNs + int64(s.start.Sub(f.t0))
	errMs := math.Abs(float64(r.Clock.OffsetNs-trueOffset)) / 1e6
	if r.Clock.Source != "/proc/uptime" {
		t.Errorf("clock source %q", r.Clock.Source)
	}
	if errMs > r.Clock.UncertaintyMs+1e-6 {
		t.Errorf("offset off by %.3f ms, beyond the stated uncertainty %.3f ms", errMs, r.Clock.UncertaintyMs)
	}
	// One read of /proc/uptime (10 ms resolution) bounds the offset within
	// 10 ms + RTT; intersecting many reads narrows it, never widens it.
	if r.Clock.UncertaintyMs <= 0 || r.Clock.UncertaintyMs > 10 || r.Clock.Samples < 20 {
		t.Errorf("uncertainty %.3f ms from %d samples, want within (0, 10] from ≥ 20", r.Clock.UncertaintyMs, r.Clock.Samples)
	}
}

func TestDeviceLostMidStep(t *testing.T) {
	f := newFake()
	lose := losable(f)
	cfg := fastConfig(t)
	cfg.GiveUpAfter = 100 * time.Millisecond
	s := startFake(t, f, cfg)
	s.Begin("scroll")
	waitTicks(t, f, 5)
	lose()
	select {
	case <-s.Done():
	case <-time.After(time.Minute): // a hang, not a slow machine
		t.Fatal("session did not end after the device went away")
	}
	s.End()
	r := s.Stop()
	if !errors.Is(s.Err(), ErrDeviceLost) || !strings.Contains(r.Error, "device gone") {
		t.Errorf("session error %v / %q, want ErrDeviceLost naming the cause", s.Err(), r.Error)
	}
	if len(r.Gaps) < 2 || r.Gaps[0].Step != "scroll" || r.Gaps[0].Error != "device gone" {
		t.Errorf("gaps = %+v, want the failed ticks inside scroll", r.Gaps)
	}
	st := r.Step("scroll")
	if st.Gaps < 2 || st.CPU().Intervals < 4 {
		t.Errorf("step gaps %d cpu intervals %d: the samples before the loss must be kept", st.Gaps, st.CPU().Intervals)
	}
	// The partial result is on disk.
	back, err := result.ReadResult(r.Path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Error == "" || len(back.Samples) < 5 {
		t.Errorf("on disk: error %q, %d samples", back.Error, len(back.Samples))
	}
}

func TestHangingCommandIsAGap(t *testing.T) {
	f := newFake()
	hung := make(chan struct{}, 1)
	hangs := 1
	f.fail = func(ctx context.Context, cmds []string) error {
		// A tick's batch (the one that asks for the app's pids), not the
		// slow lane's meminfo or Stop's reads, whichever comes fourth.
		tick := slices.ContainsFunc(cmds, func(c string) bool { return strings.HasPrefix(c, "pidof ") })
		f.mu.Lock()
		hang := tick && hangs > 0 && f.batches > 3
		if hang {
			hangs--
		}
		f.mu.Unlock()
		if hang {
			hung <- struct{}{}
			<-ctx.Done() // like `sleep 100` in a command: only the deadline ends it
			return ctx.Err()
		}
		return nil
	}
	cfg := fastConfig(t)
	cfg.TickTimeout = 50 * time.Millisecond
	s := startFake(t, f, cfg)
	<-hung
	waitTicks(t, f, 3)
	r := s.Stop()
	if r.Error != "" {
		t.Fatalf("one hung tick ended the session: %s", r.Error)
	}
	if len(r.Gaps) != 1 || !strings.Contains(r.Gaps[0].Error, "deadline exceeded") {
		t.Fatalf("gaps = %+v, want one deadline gap", r.Gaps)
	}
	// At least the deadline; the deadline's error above says what ended
	// it, however late a busy host let the tick see it.
	if d := time.Duration(r.Gaps[0].DurationNs); d < 50*time.Millisecond || d > 10*time.Second {
		t.Errorf("hung tick took %v, want the 50ms deadline", d)
	}
}

// crashInTap runs a step "open", then a step "tap" in which the app dies
// and is restarted.
func crashInTap(t *testing.T, f *fakeDevice, s *Session) {
	t.Helper()
	s.Step("open", func() { waitTicks(t, f, 3) })
	s.Step("tap", func() {
		waitTicks(t, f, 3)
		f.setPIDs(5151) // the app died and was restarted
		waitTicks(t, f, 3)
	})
}

func TestAppCrashInStep(t *testing.T) {
	f := newFake()
	s := startFake(t, f, fastConfig(t))
	crashInTap(t, f, s)
	r := s.Stop()
	if r.Step("open").Crashed() {
		t.Error("open crashed")
	}
	tap := r.Step("tap")
	if !tap.Crashed() || len(r.Crashes) != 1 {
		t.Fatalf("crashes = %+v, want one in tap", r.Crashes)
	}
	cr := tap.Crashes[0]
	if len(cr.OldPIDs) != 1 || cr.OldPIDs[0] != 4242 || len(cr.NewPIDs) != 1 || cr.NewPIDs[0] != 5151 {
		t.Errorf("crash pids %v → %v", cr.OldPIDs, cr.NewPIDs)
	}
	if len(cr.Logcat) != 1 || !strings.Contains(cr.Logcat[0], "FATAL EXCEPTION") {
		t.Errorf("crash logcat = %q, want the dead pid's FATAL line only", cr.Logcat)
	}
	if r.Crashes[0].DeviceNs == 0 {
		t.Error("crash has no device time")
	}
}

// TestPidofGarbage: output of pidof that is not a list of pids says
// nothing about the app, so a number in it is not taken for a pid and the
// app's own pid vanishing from it is no crash.
func TestPidofGarbage(t *testing.T) {
	f := newFake()
	s := startFake(t, f, fastConfig(t))
	s.Step("tap", func() {
		waitTicks(t, f, 3)
		f.mu.Lock()
		f.pidofOut = "pidof: 2 arguments expected\n"
		f.mu.Unlock()
		waitTicks(t, f, 3)
	})
	r := s.Stop()
	if len(r.Crashes) != 0 || len(r.ProcessEnds) != 0 {
		t.Errorf("crashes %+v, ends %+v; want none", r.Crashes, r.ProcessEnds)
	}
	want := `pids: pidof: line 1: bad pid "pidof:": "pidof: 2 arguments expected"; the app's processes are not tracked while it fails`
	if !slices.Contains(r.Notes, want) {
		t.Errorf("notes %q\nwant %q", r.Notes, want)
	}
}

func TestAppNotInstalled(t *testing.T) {
	f := newFake()
	f.uidErr = errors.Join(adbx.ErrAppNotInstalled, errors.New(`pm list packages -U com.perfgate.demo: ""`))
	cfg := fastConfig(t)
	_, err := newSession(context.Background(), f, cfg)
	if !errors.Is(err, adbx.ErrAppNotInstalled) || !strings.Contains(err.Error(), "com.perfgate.demo") {
		t.Fatalf("err = %v, want adbx.ErrAppNotInstalled naming the package", err)
	}
	r, rerr := result.ReadResult(filepath.Join(cfg.ResultsDir, t.Name()+"@perftest.json"))
	if rerr != nil {
		t.Fatalf("no result on disk: %v", rerr)
	}
	if !strings.Contains(r.Error, "not installed") {
		t.Errorf("result error %q", r.Error)
	}
}

func TestAppNotRunning(t *testing.T) {
	f := newFake()
	f.setPIDs()
	cfg := fastConfig(t)
	_, err := newSession(context.Background(), f, cfg)
	if !errors.Is(err, ErrAppNotRunning) {
		t.Fatalf("err = %v, want ErrAppNotRunning", err)
	}
	// The way out in the user's words: the CLI's flag, and Go's field.
	if want := "perftest: app com.perfgate.demo: app not running (start it first, or let the session wait for it: -wait with perfgate record, Config.WaitForApp in Go)"; err.Error() != want {
		t.Errorf("err\n %v\nwant\n %s", err, want)
	}

	// With WaitForApp the session starts, and the app appearing is no crash.
	cfg.WaitForApp = true
	s := startFake(t, f, cfg)
	s.Step("launch", func() {
		waitTicks(t, f, 3)
		f.setPIDs(4242)
		waitTicks(t, f, 5)
	})
	r := s.Stop()
	if r.App.RunningAtStart || len(r.Crashes) != 0 {
		t.Errorf("running_at_start %v crashes %v", r.App.RunningAtStart, r.Crashes)
	}
	if r.Step("launch").Memory().RSSMaxKB != 150000 {
		t.Errorf("rss after launch = %d", r.Step("launch").Memory().RSSMaxKB)
	}
}

func TestProcStatPermissionDenied(t *testing.T) {
	f := newFake()
	f.statDenied = true
	s := startFake(t, f, fastConfig(t))
	start := time.Now()
	s.Step("work", func() { waitTicks(t, f, 10) })
	elapsed := time.Since(start)
	r := s.Stop()
	if r.Error != "" {
		t.Fatalf("session error %q", r.Error)
	}
	if len(r.Notes) == 0 || !strings.Contains(strings.Join(r.Notes, "\n"), "cat /proc/stat: exit status 1: cat: /proc/stat: Permission denied") {
		t.Errorf("notes = %q, want the denied read quoted", r.Notes)
	}
	cpu := r.Step("work").CPU()
	if !strings.Contains(cpu.Source, "wall time") || cpu.DeviceMean != 0 {
		t.Errorf("cpu = %+v, want the wall-time fallback and no device figure", cpu)
	}
	// 40 ticks of app time per tick over ≥ 10 ms ticks on 8 cores at
	// 100 ticks/s: at most 40/(100 × 0.01 × 8) × 100 = 500 %; at least
	// what the whole step's elapsed time allows.
	if cpu.Mean <= 0 || cpu.Mean > 500 {
		t.Errorf("app cpu %v %% out of range (step took %v)", cpu.Mean, elapsed)
	}
}

func TestStepNamesAndWindows(t *testing.T) {
	f := newFake()
	s := startFake(t, f, fastConfig(t))
	s.Step("a", func() { time.Sleep(5 * time.Millisecond) })
	s.Step("a", func() { time.Sleep(5 * time.Millisecond) })
	s.Begin("b")
	s.Begin("c") // ends b
	r := s.Stop()
	var names []string
	for _, st := range r.Steps {
		names = append(names, st.Name)
		if st.HostEndNs < st.HostStartNs || st.DeviceEndNs-st.DeviceStartNs != st.HostEndNs-st.HostStartNs {
			t.Errorf("step %s window host [%d,%d] device [%d,%d]", st.Name, st.HostStartNs, st.HostEndNs, st.DeviceStartNs, st.DeviceEndNs)
		}
	}
	if got := strings.Join(names, ","); got != "a,a#2,b,c" {
		t.Errorf("steps %s, want a,a#2,b,c", got)
	}
	if !r.Step("c").Unfinished || r.Step("b").Unfinished {
		t.Error("only the step open at Stop is unfinished")
	}
	if !r.Step("nope").Missing {
		t.Error("unknown step not marked missing")
	}
}

func TestResultRoundTrip(t *testing.T) {
	f := newFake()
	s := startFake(t, f, fastConfig(t))
	s.Step("x", func() { waitTicks(t, f, 3) })
	r := s.Stop()
	back, err := result.ReadResult(r.Path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Schema != result.Schema || back.Step("x").CPU().Mean != r.Step("x").CPU().Mean || len(back.Samples) != len(r.Samples) {
		t.Errorf("read back differs: %+v", back.Step("x"))
	}
	// Another schema is refused.
	p := filepath.Join(t.TempDir(), "old.json")
	os.WriteFile(p, []byte(`{"schema":"perfgate.result/v0"}`), 0o644)
	if _, err := result.ReadResult(p); !errors.Is(err, result.ErrSchema) {
		t.Errorf("v0 schema: err = %v, want ErrSchema", err)
	}
}

// recordingT is a TestingT that records instead of failing.
type recordingT struct {
	errs     []string
	failed   bool
	cleanups []func()
}

func (r *recordingT) Errorf(format string, args ...any) {
	r.errs = append(r.errs, strings.TrimSpace(fmt.Sprintf(format, args...)))
}
func (r *recordingT) FailNow()          { r.failed = true }
func (r *recordingT) Helper()           {}
func (r *recordingT) Name() string      { return "TestRecording/sub" }
func (r *recordingT) Cleanup(fn func()) { r.cleanups = append(r.cleanups, fn) }

// TestCrashSeenByStopsLastTick runs on the bubble's clock, which the
// fake's clock then follows: the app dies 100 ms into the step, so its
// FATAL line (20 ms before the death) is inside the step however the
// session places it. On the host's clock the death came within
// microseconds of the step's start, and the line's placement, within the
// clock's 10 ms resolution, fell before the step now and then.
func TestCrashSeenByStopsLastTick(t *testing.T) {
	simtest.Bubble(t, func(t *testing.T) {
		f := newFake()
		cfg := fastConfig(t)
		cfg.Interval = time.Hour // only the first tick and Stop's last one
		first := make(chan struct{})
		var once sync.Once
		cfg.OnTick = func(result.Live) { once.Do(func() { close(first) }) }
		s := startFake(t, f, cfg)
		<-first
		s.Begin("tap")
		time.Sleep(100 * time.Millisecond)
		f.setPIDs(5151)
		done := make(chan *result.Result)
		go func() { done <- s.Stop() }()
		select {
		case r := <-done:
			if len(r.Crashes) != 1 || r.Crashes[0].Step != "tap" || len(r.Crashes[0].Logcat) == 0 {
				t.Errorf("crashes %+v", r.Crashes)
			}
		case <-time.After(time.Minute): // a hang, not a slow machine
			t.Fatal("Stop hung waiting for the crash's logcat read")
		}
	})
}

// The results folder is the Result's, and stays where a Result would go
// when none is written ("-"), so screenshots and reports have a home.
func TestResultsDir(t *testing.T) {
	t.Setenv("PERFGATE_RESULTS", "")
	cases := []struct {
		cfg  Config
		env  string
		want string
	}{
		{Config{}, "", filepath.Join("testdata", "perf-results")},
		{Config{}, "/tmp/ci-results", "/tmp/ci-results"},
		{Config{ResultsDir: "out"}, "/tmp/ci-results", "out"},
		{Config{ResultFile: "a/b/r.json", ResultsDir: "out"}, "", filepath.Join("a", "b")},
		{Config{ResultFile: "-", ResultsDir: "out"}, "", "out"},
	}
	for _, c := range cases {
		t.Setenv("PERFGATE_RESULTS", c.env)
		s := &Session{cfg: c.cfg}
		if got := s.ResultsDir(); got != c.want {
			t.Errorf("%+v with PERFGATE_RESULTS=%q: %q, want %q", c.cfg, c.env, got, c.want)
		}
	}
}

// TestLateTicksRecorded holds one tick's round trip for five intervals:
// the tick after it starts late, and the Result says so per step, for the
// session and in a note.
func TestLateTicksRecorded(t *testing.T) {
	f := newFake()
	cfg := fastConfig(t)
	entered, release := make(chan struct{}), make(chan struct{})
	var armed atomic.Bool
	var once sync.Once
	f.fail = func(ctx context.Context, cmds []string) error {
		if armed.Load() && slices.ContainsFunc(cmds, func(c string) bool { return strings.HasPrefix(c, "pidof ") }) {
			once.Do(func() { close(entered); <-release })
		}
		return nil
	}
	s := startFake(t, f, cfg)
	s.Step("steady", func() { waitTicks(t, f, 3) })
	s.Step("stalled", func() {
		armed.Store(true)
		<-entered
		time.Sleep(5 * cfg.Interval) // the tick is held at least this long
		close(release)
		// The fake counts a batch when it starts, and a tick starts once
		// the one before it is absorbed: four starts from the held one on
		// leave at least three ticks in the step.
		waitTicks(t, f, 4)
	})
	r := s.Stop()
	st := r.Step("stalled").Ticks
	hold := float64(5*cfg.Interval) / 1e6
	if st.Ticks < 3 || st.Late < 1 || st.MaxLateMs < hold-float64(cfg.Interval)/1e6 || st.MaxSpacingMs < hold || st.P95SpacingMs <= 0 {
		t.Errorf("stalled step ticks %+v, want a tick over %.0f ms late", st, hold-float64(cfg.Interval)/1e6)
	}
	late := 0
	for _, smp := range r.Samples {
		if smp.LateNs >= int64(4*cfg.Interval) {
			late++
		}
	}
	if late < 1 || r.Whole.Ticks.Late < st.Late || r.Whole.Ticks.Ticks != len(r.Samples) {
		t.Errorf("%d samples marked late; session ticks %+v over %d samples", late, r.Whole.Ticks, len(r.Samples))
	}
	if !slices.ContainsFunc(r.Notes, func(n string) bool {
		return strings.HasPrefix(n, "ticks: ") && strings.Contains(n, "behind their 10ms schedule")
	}) {
		t.Errorf("notes %q: none on the late ticks", r.Notes)
	}
}

// TestIntervalCapNoted asks for a 3 s interval: with frames collected it is
// lowered to what the device's 120-frame buffers allow at 60 Hz, and the
// Result says so; without frames nothing needs lowering.
func TestIntervalCapNoted(t *testing.T) {
	for _, tc := range []struct {
		collectors []Collector
		wantMs     float64
		note       string
	}{
		{[]Collector{CollectFrames, CollectCPU}, 1000, "config: interval 3s lowered to 1s: the device keeps its last 120 frames (2s at 60 Hz)"},
		{[]Collector{CollectCPU}, 3000, ""},
	} {
		f := newFake()
		cfg := fastConfig(t)
		cfg.Interval, cfg.Collectors = 3*time.Second, tc.collectors
		s := startFake(t, f, cfg)
		r := s.Stop()
		noted := slices.ContainsFunc(r.Notes, func(n string) bool { return strings.HasPrefix(n, "config: interval") })
		if r.Config.IntervalMs != tc.wantMs || noted != (tc.note != "") ||
			tc.note != "" && !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.HasPrefix(n, tc.note) }) {
			t.Errorf("collectors %v: interval %gms, notes %q; want %gms and a note %q", tc.collectors, r.Config.IntervalMs, r.Notes, tc.wantMs, tc.note)
		}
	}
	cfg := fastConfig(t)
	cfg.Interval = -time.Second
	if _, err := newSession(context.Background(), newFake(), cfg); err == nil || !strings.Contains(err.Error(), "Interval -1s is negative") {
		t.Errorf("negative interval: %v", err)
	}
}

// meminfoReads counts the meminfo reads the fake answered.
func (f *fakeDevice) meminfoReads() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, b := range f.cmds {
		for _, c := range b {
			if strings.HasPrefix(c, "dumpsys meminfo ") {
				n++
			}
		}
	}
	return n
}

// Every step has a meminfo read of its own, however short it is and
// however rarely the slow lane reads on its own schedule: a step's start
// calls for one, and Stop takes one for a step that began after the last.
// (On a busy machine a 0.5 s step between 1 s reads used to hold none, and
// its pss_max budget failed as "not measured".)
func TestEveryStepHasMeminfo(t *testing.T) {
	f := newFake()
	cfg := fastConfig(t)
	cfg.SlowInterval = time.Hour // only the lane's first read, on its schedule
	s := startFake(t, f, cfg)
	reads := func(n int) func() bool { return func() bool { return f.meminfoReads() >= n } }
	if !f.await(reads(1)) { // the first read, at the lane's start
		t.Fatal("no meminfo read at the lane's start in a minute")
	}
	s.Begin("tap")
	if !f.await(reads(2)) { // the read tap's start called for
		t.Fatal("no meminfo read for tap's start in a minute")
	}
	s.Begin("leave") // ends tap; Stop must read for leave
	r := s.Stop()
	if n := f.meminfoReads(); n != 3 {
		t.Errorf("%d meminfo reads, want 3 (the first, tap's, leave's)", n)
	}
	for _, name := range []string{"tap", "leave"} {
		st := r.Step(name)
		if m := st.Memory(); m.PSSMaxKB != 13000 || m.PSSSamples != 1 {
			t.Errorf("%s: pss max %d over %d reads, want 13000 over 1; not measured: %v", name, m.PSSMaxKB, m.PSSSamples, st.NotMeasured)
		}
	}
}

// A crash belongs to the step it happened in, by its log line's time, even
// when the tick that finds the process gone comes after that step ended (a
// busy host delays ticks).
func TestCrashPlacedByItsLogTime(t *testing.T) {
	f := newFake()
	cfg := fastConfig(t)
	ticks := make(chan struct{}, 1)
	cfg.OnTick = func(result.Live) {
		select {
		case ticks <- struct{}{}:
		default:
		}
	}
	var gateMu sync.Mutex
	var gate chan struct{} // ticks wait while it is open
	blocked := make(chan struct{}, 1)
	f.fail = func(ctx context.Context, cmds []string) error {
		gateMu.Lock()
		g := gate
		gateMu.Unlock()
		if g != nil && slices.ContainsFunc(cmds, func(c string) bool { return strings.HasPrefix(c, "pidof ") }) {
			select {
			case blocked <- struct{}{}:
			default:
			}
			<-g
		}
		return nil
	}
	s := startFake(t, f, cfg)
	s.Begin("tap")
	for range 4 {
		<-ticks // the step is some ticks old: the crash's log line falls inside it
	}
	gateMu.Lock()
	gate = make(chan struct{})
	gateMu.Unlock()
	<-blocked // no tick can see the death before the step ends
	f.setPIDs(5151)
	s.Begin("after")
	gateMu.Lock()
	close(gate)
	gate = nil
	gateMu.Unlock()
	<-ticks
	<-ticks
	r := s.Stop()
	if len(r.Crashes) != 1 || r.Crashes[0].Step != "tap" {
		t.Fatalf("crashes %+v, want one in tap", r.Crashes)
	}
	if tap := r.Step("tap"); !tap.Crashed() || r.Step("after").Crashed() {
		t.Errorf("tap crashed %v, after crashed %v", tap.Crashed(), r.Step("after").Crashed())
	}
}

// A crash fails the test at Stop, with no crash budget, with the line a
// crashes budget gives; a test that says it expects the crash in that
// step (ExpectCrash) gets it recorded and passes.
func TestCrashFailsUnlessExpected(t *testing.T) {
	for _, expect := range [][]string{nil, {"tap"}, {"*"}, {"open"}} {
		f := newFake()
		cfg := fastConfig(t)
		ExpectCrash(expect...)(&cfg)
		s := startFake(t, f, cfg)
		rt := &recordingT{}
		s.t = rt
		crashInTap(t, f, s)
		r := s.Stop()
		tap := r.Step("tap")
		if !tap.Crashed() {
			t.Fatalf("expect %q: no crash in tap: %+v", expect, r.Crashes)
		}
		wantFail := len(expect) == 0 || expect[0] == "open"
		if tap.CrashExpected == wantFail || r.Step("open").CrashExpected {
			t.Errorf("expect %q: crash_expected tap %v, open %v", expect, tap.CrashExpected, r.Step("open").CrashExpected)
		}
		var crashLines []string
		for _, e := range rt.errs {
			if strings.HasPrefix(e, "perf budget exceeded: tap: crashes 1 > 0 (") {
				crashLines = append(crashLines, e)
			}
		}
		if wantFail && (len(crashLines) != 1 || !strings.HasSuffix(crashLines[0], `; perftest.ExpectCrash("tap") if the test expects it`)) {
			t.Errorf("expect %q: errors %q, want the crash line", expect, rt.errs)
		}
		if !wantFail && len(crashLines) != 0 {
			t.Errorf("expect %q: errors %q, want no crash line", expect, rt.errs)
		}
	}
}

// A device that answers part of each tick before the tick's deadline (a
// busy host or phone: "4 of 7 commands finished") is slow, not lost: its
// failed ticks are gaps, and the session goes on well past GiveUpAfter.
// A device that answers nothing is lost after it (TestDeviceLostMidStep).
func TestSlowDeviceIsNotLost(t *testing.T) {
	f := newFake()
	cfg := fastConfig(t)
	cfg.GiveUpAfter = 100 * time.Millisecond
	s := startFake(t, f, cfg)
	s.Begin("scroll")
	waitTicks(t, f, 5)
	slow := make(chan struct{})
	cuts := 0
	f.mu.Lock()
	f.cut = func(cmds []string) (int, error) {
		// Called with f.mu held.
		if cuts++; cuts > 40 {
			return 0, nil
		}
		if cuts == 40 {
			close(slow)
		}
		return len(cmds) / 2, context.DeadlineExceeded
	}
	f.mu.Unlock()
	select {
	case <-slow:
	case <-s.Done():
		t.Fatalf("the session ended on a slow device: %v", s.Err())
	}
	waitTicks(t, f, 5)
	select {
	case <-s.Done():
		t.Fatalf("the session ended on a slow device: %v", s.Err())
	default:
	}
	s.End()
	r := s.Stop()
	if s.Err() != nil || r.Error != "" {
		t.Errorf("session error %v / %q, want none", s.Err(), r.Error)
	}
	if len(r.Gaps) < 20 {
		t.Errorf("%d gaps, want the slow ticks kept as gaps", len(r.Gaps))
	}
}

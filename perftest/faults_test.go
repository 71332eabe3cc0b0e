package perftest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
)

// faultyDevice is a simulated phone whose shell can be made to misbehave
// the way real ones do.
type faultyDevice struct {
	*simdevice.Device
	mu         sync.Mutex
	hangs      int  // the next n frame polls hang until the stream closes
	statDenied bool // /proc/stat reads fail as on a locked-down build
	dark       bool // every command hangs until the stream closes
	// slowAfterSF makes a batch pause 300 ms after its SurfaceFlinger
	// dump, as a busy phone may before it runs the next command.
	slowAfterSF bool
	// hung, when set, gets a value each time a hung poll gives up.
	hung chan struct{}
	// slowDate makes the log clock's second /proc/uptime read come 0.6 s
	// after its date, as a phone (or host) that stalls there would.
	slowDate bool
}

func (f *faultyDevice) Shell(ctx context.Context, cmd string, stdin io.Reader, stdout, stderr io.Writer) int {
	f.mu.Lock()
	hang := f.hangs > 0 && strings.Contains(cmd, "framestats")
	if hang {
		f.hangs--
	}
	hang = hang || f.dark
	denied := f.statDenied
	f.mu.Unlock()
	if hang {
		<-ctx.Done()
		if f.hung != nil {
			f.hung <- struct{}{}
		}
		return 130
	}
	if f.slowDate {
		cmd = strings.ReplaceAll(cmd, "; cat /proc/uptime", "; sleep 0.6; cat /proc/uptime")
	}
	if f.slowAfterSF {
		// adbx runs each batched command as eval '<cmd>' on a line of its
		// own, followed by a line that prints its status.
		lines := strings.Split(cmd, "\n")
		for i, l := range lines {
			if strings.Contains(l, "eval 'dumpsys SurfaceFlinger --latency ") && i+1 < len(lines) {
				lines[i+1] += "\nsleep 0.3"
				break
			}
		}
		cmd = strings.Join(lines, "\n")
	}
	if denied {
		// adbx runs each batched command as eval '<cmd>'.
		cmd = strings.ReplaceAll(cmd, "eval 'cat /proc/stat'", "eval 'echo cat: /proc/stat: Permission denied >&2; exit 1'")
	}
	return f.Device.Shell(ctx, cmd, stdin, stdout, stderr)
}

// A phone that stops answering mid-session, as a host or phone too busy
// to answer does: a step the session could not poll after its end has no
// frame count (0, or the part seen before the last poll, would pass for
// one), and a step with no tick at all does not call the app stopped.
func TestStepsAfterTheLastPoll(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		fd, d := serveFaulty(t, &faultyDevice{hung: make(chan struct{}, 1000)})
		cfg := quickConfig(t)
		cfg.GiveUpAfter = time.Minute
		// Stop reads the log for causes and process ends, each waiting its own
		// timeout on a phone that answers nothing; the frames need neither.
		cfg.Collectors = []perftest.Collector{perftest.CollectFrames, perftest.CollectCPU, perftest.CollectMemory}
		cfg.Causes.Off = true
		live := make(chan result.Live, 1000)
		cfg.OnTick = func(l result.Live) { live <- l }
		setDark := func() {
			fd.mu.Lock()
			fd.dark = true
			fd.mu.Unlock()
		}
		timeout := time.After(time.Minute)
		waitTick := func(ok func(result.Live) bool) {
			for {
				select {
				case l := <-live:
					if ok(l) {
						return
					}
				case <-timeout:
					t.Fatal("no such tick within a minute")
				}
			}
		}
		waitHung := func() {
			select {
			case <-fd.hung:
			case <-timeout:
				t.Fatal("no poll hung within a minute")
			}
		}
		s := perftest.Start(t, d, perftest.WithConfig(cfg))
		s.Step("lit", func() { waitTick(func(l result.Live) bool { return l.Frames > 0 }) })
		s.Step("half", func() {
			waitTick(func(result.Live) bool { return true })
			setDark()
			waitHung()
		})
		s.Step("dark", waitHung)
		r := s.Stop()
		if v := metric(t, r.Step("lit"), "frames"); v == 0 {
			t.Errorf("lit: 0 frames, want the frames drawn")
		}
		absent(t, r.Step("half"), []metrics.Name{"frames", "fps", "jank"}, "frames: no frame poll succeeded after the step ended")
		absent(t, r.Step("dark"), []metrics.Name{"frames", "cpu", "rss_max"}, "no tick succeeded from the step's start on")
		for _, a := range r.Step("dark").Absent() {
			if strings.Contains(a.Reason, "not running") {
				t.Errorf("dark: %s: %s; nothing looked for the app", a.Name, a.Reason)
			}
		}
	})
}

// serveFaulty gives fd a simulated phone scrolling at 60 Hz on API 33,
// serves it from a pure-Go adb server and launches its app.
func serveFaulty(t *testing.T, fd *faultyDevice) (*faultyDevice, *adbx.Device) {
	t.Helper()
	fd.Device = sim(t, "smooth-scroll", 60, 33)
	srv := adbtest.NewPipeServer(fd)
	t.Cleanup(srv.Close)
	d := srv.Open(fd.Serial())
	launch(t, d, fd.Device)
	return fd, d
}

func quickConfig(t *testing.T) perftest.Config {
	return perftest.Config{
		Package:     pkg,
		Name:        t.Name(),
		ResultsDir:  t.TempDir(),
		TickTimeout: 500 * time.Millisecond,
		GiveUpAfter: 1500 * time.Millisecond,
	}
}

// recT is a TestingT that records what a session reports.
type recT struct {
	mu     sync.Mutex
	errs   []string
	failed bool
}

func (r *recT) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recT) FailNow()     { r.failed = true }
func (r *recT) Name() string { return "TestFault" }

func (r *recT) joined() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.errs, "\n")
}

// TestDeviceDisconnectMidStep takes the phone away from the pure-Go
// server mid-step, on the bubble's clock: one run, where no host is too
// busy to get ticks through before the loss. (TestADBServerRestart loses
// the stock adb server on the wall clock.)
func TestDeviceDisconnectMidStep(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		if early := disconnectRun(t); early != "" {
			t.Error(early)
		}
	})
}

// disconnectRun is one run of TestDeviceDisconnectMidStep. It returns why
// the session ended before the phone was taken away, "" when it did not.
func disconnectRun(t *testing.T) (early string) {
	dev := sim(t, "smooth-scroll", 60, 33)
	srv := adbtest.NewPipeServer(dev)
	t.Cleanup(srv.Close)
	drop := func() { srv.Remove(dev.Serial()) }
	d := srv.Open(dev.Serial())
	launch(t, d, dev)
	rt := &recT{}
	cfg := quickConfig(t)
	// Ticks through the stock adb server on a busy host can take longer
	// than quickConfig allows, ending the session before the loss; the
	// loss is still noticed within seconds.
	cfg.TickTimeout, cfg.GiveUpAfter = 2*time.Second, 4*time.Second
	framed := make(chan struct{})
	var once sync.Once
	cfg.OnTick = func(l result.Live) {
		if l.Step == "scroll" && l.Frames > 0 {
			once.Do(func() { close(framed) })
		}
	}
	s := perftest.Start(rt, d, perftest.WithConfig(cfg))
	if s == nil {
		t.Fatalf("start failed: %s", rt.joined())
	}
	s.Begin("scroll")
	// The step holds frames: they must survive the loss. A minute bounds a
	// broken test, not the wait.
	select {
	case <-framed:
	case <-s.Done():
		if !errors.Is(s.Err(), perftest.ErrDeviceLost) {
			t.Fatalf("the session ended before the loss: %v (%s)", s.Err(), rt.joined())
		}
		early = fmt.Sprintf("%v (%s)", s.Err(), rt.joined())
		s.End()
		s.Stop()
		return early
	case <-time.After(time.Minute):
		t.Fatalf("no frames in the step after a minute (%s)", rt.joined())
	}
	drop()
	select {
	case <-s.Done():
	case <-time.After(15 * time.Second):
		t.Fatal("the session did not end after the device went away")
	}
	s.End()
	r := s.Stop()
	if !errors.Is(s.Err(), perftest.ErrDeviceLost) {
		t.Errorf("err = %v, want ErrDeviceLost", s.Err())
	}
	if !strings.Contains(rt.joined(), "session ended early") || !strings.Contains(rt.joined(), r.Path) {
		t.Errorf("test not told, or not where the partial result is: %q", rt.joined())
	}
	back, err := result.ReadResult(r.Path)
	if err != nil {
		t.Fatal(err)
	}
	st := back.Step("scroll")
	if back.Error == "" || st.Gaps == 0 || st.Frames().Frames == 0 {
		t.Errorf("partial result: error %q, %d gaps, %d frames before the loss", back.Error, st.Gaps, st.Frames().Frames)
	}
	return ""
}

func TestADBServerRestart(t *testing.T) {
	t.Parallel()
	// A host too busy to get ticks through the stock adb server before the
	// restart ends the session first (every tick failed for GiveUpAfter,
	// and the session says so): on the wall clock, the test is skipped.
	var problems []string
	early := restartRun(t)
	if early != "" {
		problems = append(problems, early)
	}
	simtest.WallClock(t, "the session ended as unreachable before the adb server restarted", problems, early != "")
}

// restartRun is one run of TestADBServerRestart. It returns why the
// session ended before the adb server restarted, "" when it did not.
func restartRun(t *testing.T) (early string) {
	dev := sim(t, "smooth-scroll", 60, 33)
	a := adbtest.StartADB(t)
	_, adbd := a.Serve(t, dev)
	// The session's connections to the server are dialled by dial, which
	// hears of each one the stopped server refused: a request that failed.
	refused := make(chan struct{}, 1)
	var dialer net.Dialer
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dialer.DialContext(ctx, network, addr)
		if err != nil {
			select {
			case refused <- struct{}{}:
			default:
			}
		}
		return c, err
	}
	d, err := adbx.Open(t.Context(), adbx.Options{Server: a.Addr(), Serial: adbd.Addr, Dial: dial})
	if err != nil {
		t.Fatal(err)
	}
	launch(t, d, dev)
	rt := &recT{}
	cfg := quickConfig(t)
	// Ticks through the stock adb server on a busy host can take longer
	// than quickConfig allows; the restart's ticks fail at once.
	cfg.TickTimeout, cfg.GiveUpAfter = 2*time.Second, 20*time.Second
	// The step waits on ticks, not on the clock: a loaded host may take
	// seconds to bring the adb server back.
	live := make(chan result.Live, 1)
	cfg.OnTick = func(l result.Live) {
		select {
		case <-live: // keep the newest
		default:
		}
		live <- l
	}
	s := perftest.Start(rt, d, perftest.WithConfig(cfg))
	if s == nil {
		t.Fatalf("start failed: %s", rt.joined())
	}
	// waitLive waits for a tick for which ok holds; false when the session
	// ended first. A minute bounds a broken test, not the wait.
	waitLive := func(what string, ok func(result.Live) bool) (result.Live, bool) {
		timeout := time.After(time.Minute)
		for {
			select {
			case l := <-live:
				if ok(l) {
					return l, true
				}
			case <-s.Done():
				return result.Live{}, false
			case <-timeout:
				t.Fatalf("no tick with %s within a minute (%s)", what, rt.joined())
			}
		}
	}
	s.Begin("scroll")
	before, ok := waitLive("frames before the restart", func(l result.Live) bool { return l.Frames > 0 })
	if !ok {
		if !errors.Is(s.Err(), perftest.ErrDeviceLost) {
			t.Fatalf("the session ended before the restart: %v (%s)", s.Err(), rt.joined())
		}
		s.End()
		s.Stop()
		return fmt.Sprintf("%v (%s)", s.Err(), rt.joined())
	}
	a.Run("kill-server")
	// Until the session's requests fail: the gap. A minute bounds a broken
	// test, not the wait.
	for len(refused) > 0 {
		<-refused
	}
	select {
	case <-refused:
	case <-time.After(time.Minute):
		t.Fatalf("no request of the session failed within a minute of the server's end (%s)", rt.joined())
	}
	a.Run("start-server")
	a.Connect(adbd.Addr)
	back := int64(dev.World().Uptime()) // device time once the server is back
	// Ticks call OnTick only when they succeed: the first after the failed
	// ones brings the frames drawn while the server was down.
	if _, ok := waitLive("frames after the restart", func(l result.Live) bool { return l.Gaps > before.Gaps && l.Frames > before.Frames }); !ok {
		t.Fatalf("the session ended after the restart: %v (%s)", s.Err(), rt.joined())
	}
	s.End()
	r := s.Stop()
	if r.Error != "" {
		t.Fatalf("session ended: %s", r.Error)
	}
	if rep := rt.joined(); rep != "" {
		t.Errorf("the session reported: %s", rep)
	}
	st := r.Step("scroll")
	if st.Gaps == 0 {
		t.Error("no gap recorded while the adb server was down")
	}
	// Frames from after the restart arrive: frames the app drew once the
	// server was back, however long a loaded host took to bring it back.
	if n := len(r.Frames); n == 0 || r.Frames[n-1].Time() < back {
		var last int64
		if n > 0 {
			last = r.Frames[n-1].Time()
		}
		t.Errorf("no frames after the restart: %d frames, the last at %d ns, the server back at %d ns", n, last, back)
	}
	return ""
}

func TestHungCommandIsAGap(t *testing.T) {
	t.Parallel()
	// On the bubble's clock no host stalls on top of the hang: the phone's
	// frame buffer never wraps between polls.
	simtest.FakeClock(t, hungRun)
}

// hungRun is TestHungCommandIsAGap's run: its problems, and whether frames
// were lost past the phone's buffer.
func hungRun(t *testing.T) (problems []string, stalled bool) {
	fd, d := serveFaulty(t, &faultyDevice{hung: make(chan struct{}, 1)})
	cfg := quickConfig(t)
	// Time enough for a slow machine's ticks; only the hung one times out.
	cfg.TickTimeout, cfg.GiveUpAfter = time.Second, 20*time.Second
	ticks := make(chan struct{}, 1)
	cfg.OnTick = func(result.Live) {
		select {
		case ticks <- struct{}{}:
		default:
		}
	}
	s := perftest.Start(t, d, perftest.WithConfig(cfg))
	s.Step("scroll", func() {
		<-ticks
		fd.mu.Lock()
		fd.hangs = 1
		fd.mu.Unlock()
		<-fd.hung // the hung poll gave up: its gap is being recorded
		<-ticks   // and one tick after it went through
		<-ticks
	})
	r := s.Stop()
	if r.Error != "" {
		t.Fatalf("one hung tick ended the session: %s", r.Error)
	}
	// The hung poll is a timeout gap in the step (a loaded host may add
	// others; they change nothing here).
	hung := 0
	for _, g := range r.Gaps {
		if strings.Contains(g.Error, "timeout") && g.Step == "scroll" {
			hung++
		}
		stalled = stalled || strings.HasSuffix(g.Error, "frames were lost")
	}
	if hung == 0 {
		t.Fatalf("gaps = %+v, want the hung poll as a timeout in scroll", r.Gaps)
	}
	// The 1 s hang holds fewer frames than the buffer: none are lost.
	st := r.Step("scroll")
	truth, _, late := truthInStep(r, st, fd.World().TruthFrames(), false)
	if st.Frames().Frames != len(truth)+late && st.Frames().Frames != len(truth) {
		problems = append(problems, fmt.Sprintf("%d frames, truth %d (gaps %+v)", st.Frames().Frames, len(truth), r.Gaps))
	}
	return problems, stalled
}

func TestProcStatDenied(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		fd, d := serveFaulty(t, &faultyDevice{statDenied: true})
		s := perftest.Start(t, d, perftest.WithConfig(quickConfig(t)))
		w := fd.World()
		var before, after simdevice.TruthTotals
		s.Step("scroll", func() {
			before = w.Truth()
			time.Sleep(1500 * time.Millisecond)
			after = w.Truth()
		})
		r := s.Stop()
		if r.Error != "" {
			t.Fatal(r.Error)
		}
		notes := strings.Join(r.Notes, "\n")
		if !strings.Contains(notes, "cat /proc/stat: exit status 1: cat: /proc/stat: Permission denied") {
			t.Errorf("notes %q do not quote the denial", notes)
		}
		cpu := r.Step("scroll").CPU()
		// Without /proc/stat the app's ticks are set against wall time × cores
		// at 100 ticks/s. The device's own counters over the step give the
		// same figure within 1 point: both count whole 10 ms ticks (up to 4
		// ticks apart over 1.5 s of 8 cores, 0.33 point), and the truth spans
		// the step on the host's clock while the measurement spans the ticks
		// inside it, which a loaded host puts later. The preset's configured
		// 57 % of one core, 7.1 % of 8, within 20 % (a loaded host delays the
		// simulation).
		secs := (after.Uptime - before.Uptime).Seconds()
		truth := float64(after.AppTicks-before.AppTicks) / (100 * secs * 8) * 100
		if !strings.Contains(cpu.Source, "wall time") || !within(cpu.Mean, truth, 1) || !within(cpu.Mean, 57.0/8, 57.0/8/5) {
			t.Errorf("cpu %+v; truth over the step %.2f%%, configured 7.1%%", cpu, truth)
		}
	})
}

func TestAppNotInstalledOnDevice(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		dev := sim(t, "smooth-scroll", 60, 33)
		d, _ := openHost(t, dev, nil)
		rt := &recT{}
		cfg := quickConfig(t)
		cfg.Package = "com.example.absent"
		if s := perftest.Start(rt, d, perftest.WithConfig(cfg)); s != nil || !rt.failed {
			t.Fatal("Start did not fail the test")
		}
		if !strings.Contains(rt.joined(), "com.example.absent") || !strings.Contains(rt.joined(), "not installed") {
			t.Errorf("failure %q does not name the package and the reason", rt.joined())
		}
		r, err := result.ReadResult(filepath.Join(cfg.ResultsDir, t.Name()+"@perftest.json"))
		if err != nil {
			t.Fatalf("no result on disk: %v", err)
		}
		if !strings.Contains(r.Error, "not installed") {
			t.Errorf("result error %q", r.Error)
		}
	})
}

func TestAppNotRunningAtStart(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		dev := sim(t, "smooth-scroll", 60, 33)
		d, _ := openHost(t, dev, nil)
		rt := &recT{}
		if s := perftest.Start(rt, d, perftest.WithConfig(quickConfig(t))); s != nil || !rt.failed {
			t.Fatal("Start did not fail for an app that is not running")
		}
		if !strings.Contains(rt.joined(), "not running") {
			t.Errorf("failure %q", rt.joined())
		}

		// With WaitForApp a step can launch it; the launch is no crash.
		cfg := quickConfig(t)
		cfg.WaitForApp = true
		s := perftest.Start(t, d, perftest.WithConfig(cfg))
		s.Step("launch", func() {
			launch(t, d, dev)
			time.Sleep(500 * time.Millisecond)
		})
		r := s.Stop()
		st := r.Step("launch")
		if st.Crashed() || r.App.RunningAtStart || st.Frames().Frames == 0 || st.Memory().RSSMaxKB == 0 {
			t.Errorf("crashed %v running_at_start %v frames %d rss %d", st.Crashed(), r.App.RunningAtStart, st.Frames().Frames, st.Memory().RSSMaxKB)
		}
	})
}

func TestEmptyGfxinfo(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		// The app is running but idle after the first tap on Stop: gfxinfo has
		// no frame rows; the session records zero frames and no error.
		dev := sim(t, "smooth-scroll", 60, 33)
		d, _ := openHost(t, dev, nil)
		launch(t, d, dev)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := d.Shell(ctx, "input tap 540 2270"); err != nil { // "Stop"
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond)
		cfg := quickConfig(t)
		tk := newTicker()
		cfg.OnTick = tk.onTick
		s := perftest.Start(t, d, perftest.WithConfig(cfg))
		s.Step("idle", func() { tk.wait(t, 3) })
		r := s.Stop()
		st := r.Step("idle")
		if r.Error != "" || st.Frames().Frames != 0 || st.FPS() != 0 || len(r.Samples) < 3 {
			t.Errorf("error %q frames %d fps %v samples %d", r.Error, st.Frames().Frames, st.FPS(), len(r.Samples))
		}
	})
}

// On a phone slow between the commands of a tick (300 ms, longer than
// Settle), the SurfaceFlinger frames presented before Stop are all in the
// Result: Stop polls until a clock read before a dump has passed the
// stop, not one read after it, which a frame presented between the dump
// and the clock would slip by; and it polls twice at least while frames
// are pending, though the first poll ended past Settle.
func TestSurfaceFlingerStopOnASlowPhone(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		fd, d := serveFaulty(t, &faultyDevice{slowAfterSF: true})
		cfg := quickConfig(t)
		cfg.TickTimeout, cfg.GiveUpAfter = 5*time.Second, time.Minute
		cfg.FrameSource = perftest.SourceSurfaceFlinger
		cfg.Collectors = []perftest.Collector{perftest.CollectFrames, perftest.CollectCPU, perftest.CollectMemory}
		cfg.Causes.Off = true
		tk := newTicker()
		cfg.OnTick = tk.onTick
		s := perftest.Start(t, d, perftest.WithConfig(cfg))
		s.Step("scroll", func() { tk.wait(t, 5) })
		r := s.Stop()
		st := r.Step("scroll")
		got := map[int64]bool{}
		for _, f := range r.Frames {
			got[f.ActualPresent] = true
		}
		missing := 0
		for _, f := range fd.World().TruthFrames() {
			if f.SFActual >= st.DeviceStartNs && f.SFActual < st.DeviceEndNs && !got[f.SFActual] {
				missing++
				t.Logf("missing %d ms after the start, %d ms before the end", (f.SFActual-st.DeviceStartNs)/1e6, (st.DeviceEndNs-f.SFActual)/1e6)
			}
		}
		if missing > 0 || len(r.Gaps) > 0 {
			t.Errorf("%d frames presented in the step are not in the Result (%d taken); gaps %+v", missing, st.Frames().Frames, r.Gaps)
		}
	})
}

// A phone whose frame polls hang for longer than its frame buffer holds
// (120 frames: 2 s at 60 Hz) loses frames. The session records the span
// they were drawn in as a gap, and every true frame it does not hold lies
// in such a span. A step that span reaches has no frame figures, since a
// count over the rest would pass for the step's; every other step's frames
// are the phone's.
func TestFramesLostToAWrap(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		fd, d := serveFaulty(t, &faultyDevice{hung: make(chan struct{}, 10)})
		cfg := quickConfig(t)
		// Three frame polls in a row hang until TickTimeout: at least 3 s
		// without one.
		cfg.TickTimeout, cfg.GiveUpAfter = time.Second, time.Minute
		tk := newTicker()
		cfg.OnTick = tk.onTick
		s := perftest.Start(t, d, perftest.WithConfig(cfg))
		s.Step("before", func() { tk.wait(t, 5) })
		s.Step("lossy", func() {
			fd.mu.Lock()
			fd.hangs = 3
			fd.mu.Unlock()
			for range 3 {
				select {
				case <-fd.hung:
				case <-time.After(time.Minute):
					t.Fatal("no frame poll hung within a minute")
				}
			}
			tk.wait(t, 3) // ticks that went through after the hangs
		})
		s.Step("after", func() { tk.wait(t, 5) })
		r := s.Stop()
		if r.Error != "" {
			t.Fatalf("session ended: %s", r.Error)
		}
		var spans [][2]int64
		for _, g := range r.Gaps {
			if g.LostToNs != 0 {
				spans = append(spans, [2]int64{g.LostFromNs, g.LostToNs})
			}
		}
		inSpan := func(ns int64) bool {
			return slices.ContainsFunc(spans, func(s [2]int64) bool { return ns > s[0] && ns < s[1] })
		}
		if len(spans) == 0 {
			t.Fatalf("no gap says which frames were lost: %+v", r.Gaps)
		}
		// The frames the session does not hold are those the spans name, and
		// the spans hold frames the phone drew.
		lost := 0
		for _, st := range r.Steps {
			in, _, _ := truthInStep(r, st, fd.World().TruthFrames(), false)
			held := map[int64]bool{}
			for _, f := range r.Frames {
				held[f.Time()] = true
			}
			reached, missing := false, 0
			for _, f := range in {
				if inSpan(f.IntendedVsync) {
					reached = true
					if held[f.IntendedVsync] {
						t.Errorf("%s: frame at %d held, but in a lost span %v", st.Name, f.IntendedVsync, spans)
					}
					continue
				}
				if !held[f.IntendedVsync] {
					missing++
				}
			}
			if missing > 0 {
				t.Errorf("%s: %d true frames neither held nor in a lost span %v", st.Name, missing, spans)
			}
			if !reached {
				if got := metric(t, st, "frames"); got != float64(len(in)) {
					t.Errorf("%s: %v frames, the phone drew %d, none lost", st.Name, got, len(in))
				}
				continue
			}
			lost++
			absent(t, st, []metrics.Name{"frames", "fps", "jank", "frame_time_p95"}, "frames: the phone's frame buffer wrapped between two polls", "s into the step were lost")
		}
		if lost == 0 || r.Step("lossy").NotMeasured["frames"] == "" {
			t.Errorf("the lossy step has frame figures: %v (lost spans %v, steps reached %d)", r.Step("lossy").NotMeasured, spans, lost)
		}
		absent(t, r.Whole, []metrics.Name{"frames", "jank"}, "frames: the phone's frame buffer wrapped between two polls")
		t.Logf("lost spans %v; %s", spans, r.Step("lossy").NotMeasured["frames"])
	})
}

// A phone whose log clock reads stall around date (0.6 s between its two
// /proc/uptime reads, every time) cannot have its Choreographer lines
// placed within a step: SM is not measured, and says why, rather than
// count a stall in the step next to its own.
func TestSmoothnessWithAStalledLogClock(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		fd := &faultyDevice{slowDate: true}
		fd.Device = simConfig(t, simdevice.Config{API: 33, RefreshHz: 60, Workload: stallingScroll(t)})
		srv := adbtest.NewPipeServer(fd)
		t.Cleanup(srv.Close)
		d := srv.Open(fd.Serial())
		launch(t, d, fd.Device)
		tk := newTicker()
		s := perftest.Start(t, d, perftest.WithConfig(quirkConfig(t, tk)))
		s.Step("scroll", func() { tk.wait(t, 30) })
		r := s.Stop()
		if n := fd.World().Truth(); n.Frames == 0 {
			t.Fatal("the phone drew nothing")
		}
		absent(t, r.Step("scroll"), []metrics.Name{metrics.SMGT}, "the log's times cannot be placed: the device's /proc/uptime reads around", "apart in 3 tries")
	})
}

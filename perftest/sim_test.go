package perftest_test

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/android/surfaceflinger"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/internal/testenv"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
)

const pkg = simdevice.PresetPackage

// sim builds a simulated phone running a preset at a refresh rate.
func sim(t testing.TB, preset string, hz float64, api int) *simdevice.Device {
	t.Helper()
	wl, err := simdevice.Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := simdevice.New(simdevice.Config{API: api, RefreshHz: hz, Workload: simtest.QuickStart(wl), Serial: "sim-" + strings.ReplaceAll(preset, "-", "")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	return dev
}

// endpoint opens an adbx.Device on a simulated phone one way, and returns
// a counter of the adb streams the phone served. stock is the test's shared
// stock adb server.
type endpoint struct {
	name string
	open func(t testing.TB, dev *simdevice.Device, stock func() *adbtest.ADB) (*adbx.Device, func() int)
}

// run runs a test of the endpoint: through the pure-Go server in a
// testing/synctest bubble, on its fake clock; through the stock adb
// server, which talks TCP to a process, on the wall clock.
func (ep endpoint) run(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	if ep.name == hostEndpoint.name {
		simtest.Bubble(t, f)
		return
	}
	f(t)
}

// stockServer starts one stock adb server for a whole test function, on
// first use: starting one per subtest is slow, and adb itself stumbles
// over many quick restarts.
func stockServer(t *testing.T) func() *adbtest.ADB {
	var once sync.Once
	var a *adbtest.ADB
	return func() *adbtest.ADB {
		once.Do(func() { a = adbtest.StartADB(t) })
		return a
	}
}

var (
	hostEndpoint  = endpoint{"host", openHost}
	stockEndpoint = endpoint{"adb", openStock}
	// endpoints are the tests of the real timing: the stock adb server
	// on the wall clock beside the pure-Go one on the fake clock.
	endpoints = []endpoint{hostEndpoint, stockEndpoint}
)

// openHost serves the phone from adbtest's pure-Go host-protocol server
// over in-memory pipes, so a test in a testing/synctest bubble runs the
// phone, the server and the session on the bubble's clock.
func openHost(t testing.TB, dev *simdevice.Device, _ func() *adbtest.ADB) (*adbx.Device, func() int) {
	t.Helper()
	srv := adbtest.NewPipeServer(dev)
	t.Cleanup(srv.Close)
	return srv.Open(dev.Serial()), func() int { return srv.Streams(dev.Serial()) }
}

// openStock serves the phone as adbd and joins it to the stock adb server.
func openStock(t testing.TB, dev *simdevice.Device, stock func() *adbtest.ADB) (*adbx.Device, func() int) {
	t.Helper()
	// Skip (or fail) this subtest, not the parent that owns the server,
	// when adb is missing: a parent cannot be skipped from a subtest.
	testenv.ADB(t)
	d, adbd := stock().Serve(t, dev)
	return d, adbd.Streams
}

// launch starts the preset app the way a test would, and waits until it
// is drawing.
func launch(t testing.TB, d *adbx.Device, dev *simdevice.Device) {
	t.Helper()
	simtest.Launch(t, d, dev)
}

// TestWithLayer: the layer a test names is the one polled, whatever the
// session would have picked. On API 33 the app's SurfaceView has two
// layers: the BLAST one gets its frames, the other one none, so a session
// that named it reads 0 frames (a real 0: the layer was read) instead of
// picking the BLAST layer itself.
func TestWithLayer(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		dev := sim(t, "smooth-scroll", 60, 33)
		d, _ := openHost(t, dev, nil)
		launch(t, d, dev)
		blast, bare := surfaceViewLayers(t, d)
		for _, tc := range []struct {
			layer  string
			frames bool
		}{{blast, true}, {bare, false}} {
			s := perftest.Start(t, d, perftest.App(pkg), perftest.WithResultsDir(t.TempDir()),
				perftest.WithCollectors(perftest.CollectFrames), perftest.WithLayer(tc.layer))
			s.Step("scroll", func() { time.Sleep(time.Second) })
			r := s.Stop()
			st := r.Step("scroll")
			if r.Config.Layer != tc.layer || r.Config.FrameSource != "surfaceflinger" || st.Frames().Source != "surfaceflinger" {
				t.Errorf("%s: polled layer %q, source %q (step %q)", tc.layer, r.Config.Layer, r.Config.FrameSource, st.Frames().Source)
			}
			if n := st.Frames().Frames; tc.frames != (n > 10) || !tc.frames && (n != 0 || hasAbsent(st, metrics.Frames)) {
				t.Errorf("%s: %d frames in a 1 s scroll (want frames: %v); not measured %v", tc.layer, n, tc.frames, st.NotMeasured)
			}
		}
	})
}

func hasAbsent(st *result.Step, name metrics.Name) bool {
	for _, a := range st.Absent() {
		if a.Name == name {
			return true
		}
	}
	return false
}

// surfaceViewLayers returns the two layers SurfaceFlinger lists for the
// app's SurfaceView: the BLAST one the session would pick, and the other.
func surfaceViewLayers(t *testing.T, d *adbx.Device) (blast, bare string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := d.Shell(ctx, "dumpsys SurfaceFlinger --list")
	if err != nil {
		t.Fatal(err)
	}
	layers, err := surfaceflinger.ParseList(out.Stdout)
	if err != nil {
		t.Fatal(err)
	}
	picked, err := surfaceflinger.PickLayer(layers, pkg)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range layers {
		if strings.HasPrefix(l.Name, "SurfaceView[") && l.Name != picked.Name {
			bare = l.Name
		}
	}
	if bare == "" {
		t.Fatalf("no second SurfaceView layer beside %q in %v", picked.Name, layers)
	}
	return picked.Name, bare
}

// framesLost is the first gap in which the phone's frame buffer wrapped
// between two polls, losing frames, "" when none did.
func framesLost(r *result.Result) string {
	for _, g := range r.Gaps {
		if g.LostToNs != 0 {
			return g.Error
		}
	}
	return ""
}

// truthInStep returns the true frames of the step's window that the
// session could read, or read all the same. Two kinds at the window's
// edges cannot have been read, and say nothing about loss: early, shown
// before the session cleared the app's frame history (at Start, so only in
// its first step), and late, still being drawn when the session polled
// last. Both moments are known only within the clock map's uncertainty
// (the last poll, also within its round trip), so frames shown in those
// spans are taken when read and counted early or late otherwise.
func truthInStep(r *result.Result, st *result.Step, truth []simdevice.TruthFrame, sf bool) (in []simdevice.TruthFrame, early, late int) {
	last := r.Samples[len(r.Samples)-1]
	uncertainty := int64(r.Clock.UncertaintyMs * 1e6)
	cutoff := last.DeviceNs - last.RTTNs/2 - uncertainty - 1
	cleared := int64(math.MinInt64)
	if len(r.Steps) > 0 && r.Steps[0].Name == st.Name {
		cleared = st.DeviceStartNs + uncertainty
	}
	read := map[int64]bool{}
	for _, f := range r.Frames {
		read[f.Time()] = true
	}
	for _, f := range truth {
		tm := f.IntendedVsync
		if sf {
			tm = f.SFActual
		}
		if tm < st.DeviceStartNs || tm >= st.DeviceEndNs {
			continue
		}
		switch {
		case read[tm]:
		case f.Present > cutoff:
			late++
			continue
		case f.Present <= cleared:
			early++
			continue
		}
		in = append(in, f)
	}
	return in, early, late
}

// expectedSummary applies the metric definitions to the true frames.
func expectedSummary(truth []simdevice.TruthFrame, period int64, sf bool, api int) frames.Summary {
	if sf {
		t := make([]int64, len(truth))
		for i, f := range truth {
			t[i] = f.SFActual
		}
		return frames.SummarizeSurfaceFlinger(t, period)
	}
	g := make([]gfxinfo.FrameStats, len(truth))
	for i, f := range truth {
		g[i] = gfxinfo.FrameStats{IntendedVsync: f.IntendedVsync, Vsync: f.Vsync, FrameCompleted: f.Completed}
		if api >= 31 {
			g[i].FrameDeadline = f.Deadline
		}
	}
	return frames.SummarizeGfxInfo(g, period)
}

// Every workload preset's frames, and the janky scroll's at every refresh
// rate, API level and frame source, each against the phone's ground truth,
// on the fake clock: one run each, in a bubble, where no host can stall.
// What an app draws does not change how its rows cross adb, and the stock
// adb server runs two cases on the wall clock: the largest gfxinfo dumps
// (144 Hz) and SurfaceFlinger's.
func TestFramesMatchGroundTruth(t *testing.T) {
	t.Parallel()
	stock := stockServer(t)
	type tc struct {
		preset string
		hz     float64
		api    int
		sf     bool
	}
	var cases []tc
	for _, p := range simdevice.PresetNames() {
		if p != "janky-scroll" {
			cases = append(cases, tc{p, 60, 33, false})
		}
	}
	cases = append(cases, tc{"janky-scroll", 60, 33, false})
	for _, hz := range []float64{90, 120, 144} {
		cases = append(cases, tc{"janky-scroll", hz, 33, false})
	}
	cases = append(cases,
		tc{"janky-scroll", 60, 28, false},
		tc{"janky-scroll", 120, 30, false},
		tc{"janky-scroll", 60, 33, true},
		tc{"smooth-scroll", 144, 34, true},
	)
	stockCases := []tc{{"janky-scroll", 144, 33, false}, {"smooth-scroll", 144, 34, true}}
	for _, ep := range endpoints {
		epCases := cases
		if ep.name != hostEndpoint.name {
			epCases = stockCases
		}
		for _, c := range epCases {
			src := "gfxinfo"
			if c.sf {
				src = "surfaceflinger"
			}
			name := fmt.Sprintf("%s/%s/%gHz/api%d/%s", ep.name, c.preset, c.hz, c.api, src)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				if testing.Short() && (ep.name != "host" || c.hz != 60) {
					t.Skip("short mode: host endpoint at 60 Hz only")
				}
				ep.run(t, func(t *testing.T) {
					problems, stalled := groundTruthRun(t, ep, stock, c.preset, c.hz, c.api, c.sf)
					if ep.name == hostEndpoint.name {
						simtest.Errors(t, problems)
						return
					}
					// A host stalled for longer than the device's frame
					// buffer holds (0.8 s at 144 Hz) loses frames; the
					// session records that as a gap.
					simtest.WallClock(t, "the host stalled past the phone's frame buffer", problems, stalled)
				})
			})
		}
	}
}

func within(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

func TestCPUMemoryTrafficMatchTruth(t *testing.T) {
	t.Parallel()
	for _, api := range []int{28, 33} {
		t.Run(fmt.Sprintf("api%d", api), func(t *testing.T) {
			t.Parallel()
			simtest.Bubble(t, func(t *testing.T) {
				dev := sim(t, "chatty-network", 60, api)
				d, _ := openHost(t, dev, nil)
				launch(t, d, dev)
				tk := newTicker()
				s := perftest.Start(t, d, perftest.App(pkg), perftest.WithResultsDir(t.TempDir()),
					func(c *perftest.Config) { c.OnTick = tk.onTick })
				w := dev.World()
				before := w.Truth()
				// 20 ticks, about 2 s: battery and thermal are read on two of them.
				s.Step("scroll", func() { tk.wait(t, 20) })
				after := w.Truth()
				r := s.Stop()
				st := r.Step("scroll")
				cores := float64(r.Device.Cores)

				// CPU: chatty-network's scroll phase loads main 35 %,
				// RenderThread 20 %, Jit 2 % and OkHttp 15 % of one core:
				// 72 % top-style, 9 % of the 8-core device. Against the
				// device's own counters over the step the tolerance is 5
				// points top-style (the step is bracketed by ticks up to a
				// tick outside it, later on a loaded host; counters move in
				// 10 ms ticks); against
				// the configured load 10 %, since a loaded host delays the
				// simulation's accounting.
				cpu := st.CPU()
				wantCore := 35.0 + 20 + 2 + 15
				truthApp := float64(after.AppTicks-before.AppTicks) / float64(after.DeviceTotal-before.DeviceTotal) * 100
				if !within(cpu.MeanPerCore, wantCore, wantCore/10) || !within(cpu.Mean, truthApp, 5/cores) {
					t.Errorf("app cpu %.2f%% (%.2f%% top-style); truth over the step %.2f%%, configured %.2f%% (%.0f%%)",
						cpu.Mean, cpu.MeanPerCore, truthApp, wantCore/cores, wantCore)
				}
				truthDev := float64(after.DeviceBusy-before.DeviceBusy) / float64(after.DeviceTotal-before.DeviceTotal) * 100
				if !within(cpu.DeviceMean, truthDev, 1) {
					t.Errorf("device cpu %.2f%%, truth over the step %.2f%%", cpu.DeviceMean, truthDev)
				}
				if len(cpu.Threads) == 0 || cpu.Threads[0].Name != "main" && !strings.HasSuffix(pkg, cpu.Threads[0].Name) {
					t.Errorf("busiest thread %+v, want the main thread", cpu.Threads)
				}

				// Memory: no growth in this preset, so PSS and RSS equal
				// the truth exactly.
				mem := st.Memory()
				if mem.PSSLastKB != after.PSSKiB || mem.RSSLastKB != after.RSSKiB {
					t.Errorf("pss %d rss %d KiB, truth %d %d", mem.PSSLastKB, mem.RSSLastKB, after.PSSKiB, after.RSSKiB)
				}

				// Traffic: against the device's own counters over the step
				// (World.Truth before and after it). The step is bracketed
				// by reads up to a tick outside it, and the rate divides the
				// bytes between those reads by the host's time between them,
				// each stamped at its round trip's midpoint: within half a
				// round trip of the device's read. So the tolerance is 3 %
				// plus the session's longest round trip over the time the
				// reads span (a loaded host makes round trips long). Against
				// the configured 200000 / 50000 B/s within 25 %, since a
				// loaded host delays the simulation's accounting.
				tr := st.Traffic()
				secs := (after.Uptime - before.Uptime).Seconds()
				truthRx := float64(after.RxBytes[simdevice.PresetUID]-before.RxBytes[simdevice.PresetUID]) / secs
				truthTx := float64(after.TxBytes[simdevice.PresetUID]-before.TxBytes[simdevice.PresetUID]) / secs
				// Counters read in a tick are timed on the device's clock
				// read beside them; dumpsys netstats (the slow lane) has
				// only the host's.
				wantClock := "/proc/uptime"
				if tr.Source == "dumpsys netstats" {
					wantClock = "host"
				}
				if tr.Scope != "uid" || tr.Clock != wantClock {
					t.Errorf("traffic scope %q from %q on the %q clock, want uid on %q", tr.Scope, tr.Source, tr.Clock, wantClock)
				}
				rel := trafficTolerance(r, tr)
				if !within(tr.RxBytesPerS, truthRx, truthRx*rel) || !within(tr.TxBytesPerS, truthTx, truthTx*rel) ||
					!within(tr.RxBytesPerS, 200_000, 50_000) || !within(tr.TxBytesPerS, 50_000, 12_500) {
					t.Errorf("traffic rx %.0f tx %.0f B/s; truth over the step %.0f / %.0f (±%.1f %%), configured 200000 / 50000",
						tr.RxBytesPerS, tr.TxBytesPerS, truthRx, truthTx, rel*100)
				}
				// Battery and thermal are read every tenth tick.
				if b := st.BatteryStats; b == nil || b.StartLevelPct <= 0 || b.StartLevelPct > 100 || b.MaxTemperatureC < 15 || b.MaxTemperatureC > 60 {
					t.Errorf("battery %+v", b)
				}
				if th := st.ThermalStats; th == nil || len(th.ZoneMaxC) == 0 || th.MaxC < 15 || th.MaxC > 100 || th.ZoneMaxC[th.MaxZone] != th.MaxC {
					t.Errorf("thermal %+v", th)
				}
				if r.Error != "" {
					t.Errorf("error %q notes %q", r.Error, r.Notes)
				}
			})
		})
	}
}

func TestMemoryLeakGrowth(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		dev := sim(t, "memory-leak", 60, 33)
		d, _ := openHost(t, dev, nil)
		launch(t, d, dev)
		s := perftest.Start(t, d, perftest.WithConfig(perftest.Config{
			Package: pkg, ResultsDir: t.TempDir(), Collectors: []perftest.Collector{perftest.CollectMemory},
			SlowInterval: 200 * time.Millisecond,
		}))
		w := dev.World()
		var before, after simdevice.TruthTotals
		s.Step("leak", func() {
			before = w.Truth()
			time.Sleep(2 * time.Second)
			after = w.Truth()
		})
		r := s.Stop()
		// memory-leak grows the Java heap 512 and the native heap 256 KiB/s
		// while scrolling: 768 KiB/s = 46080 KiB/min of PSS. The slope over
		// the step's meminfo reads must match the device's own PSS growth
		// within 10 %, and the configured rate within 25 % (a loaded host
		// delays the simulation).
		g := r.Step("leak").Memory().PSSGrowthKBPerMin
		truth := float64(after.PSSKiB-before.PSSKiB) / (after.Uptime - before.Uptime).Minutes()
		if !within(g, truth, truth/10) || !within(g, 46080, 46080/4) {
			t.Errorf("pss growth %.0f KiB/min; truth over the step %.0f, configured 46080", g, truth)
		}
	})
}

// historySim is a phone whose log holds old crashes (other apps', and the
// app pid's earlier owner's) and an old force-stop of the app.
func historySim(t testing.TB, preset string) *simdevice.Device {
	t.Helper()
	wl, err := simdevice.Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	return simConfig(t, simdevice.Config{Workload: wl, Serial: "sim-history", Quirks: simdevice.Quirks{LogHistory: true}})
}

// foreignLines are log lines of the old crashes historySim holds: none
// belongs to a crash or end in the session.
var foreignLines = []string{"com.android.vending", "com.google.android.youtube", "OutOfMemoryError", "from pid 7001"}

func TestAppCrashOnDevice(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		dev := historySim(t, "crash-on-tap")
		d, _ := openHost(t, dev, nil)
		launch(t, d, dev)
		s := perftest.Start(t, d, perftest.App(pkg), perftest.WithResultsDir(t.TempDir()), perftest.ExpectCrash("tap crash"))
		s.Step("tap crash", func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if _, err := d.Shell(ctx, "input tap 880 2270"); err != nil {
				t.Fatal(err)
			}
			time.Sleep(1 * time.Second)
		})
		s.Step("after", func() { time.Sleep(300 * time.Millisecond) })
		r := s.Stop()
		st := r.Step("tap crash")
		if !st.Crashed() || r.Step("after").Crashed() {
			t.Fatalf("crashes %+v, want one in the tap step", r.Crashes)
		}
		// The crash is the old pid vanishing; a tick may see no
		// process before the system restarts it under a new pid.
		cr := st.Crashes[0]
		lastPIDs := r.Samples[len(r.Samples)-1].PIDs
		if len(cr.OldPIDs) != 1 || len(lastPIDs) != 1 || slices.Equal(cr.OldPIDs, lastPIDs) {
			t.Errorf("pids %v → %v, finally %v; want a restarted process", cr.OldPIDs, cr.NewPIDs, lastPIDs)
		}
		log := strings.Join(cr.Logcat, "\n")
		if !strings.Contains(log, "perfgate demo crash") || cr.Reason != "crash" || cr.Cause != "java" || !strings.Contains(cr.Evidence, "FATAL EXCEPTION") {
			t.Errorf("crash %s (%s) by %q, logcat lacks the exception: %q", cr.Reason, cr.Cause, cr.Evidence, cr.Logcat)
		}
		for _, l := range foreignLines {
			if strings.Contains(log, l) {
				t.Errorf("crash logcat holds another crash's line %q:\n%s", l, log)
			}
		}
		if w := dev.World().Truth(); w.Crashes != 1 {
			t.Errorf("truth says %d crashes", w.Crashes)
		}
	})
}

func TestOneRoundTripPerTickOnDevice(t *testing.T) {
	t.Parallel()
	stock := stockServer(t)
	for _, ep := range endpoints {
		t.Run(ep.name, func(t *testing.T) {
			t.Parallel()
			ep.run(t, func(t *testing.T) {
				var problems []string
				problem, stalled := roundTripRun(t, ep, stock)
				if problem != "" {
					problems = append(problems, problem)
				}
				if ep.name == hostEndpoint.name {
					simtest.Errors(t, problems)
					return
				}
				simtest.WallClock(t, "the host stalled", problems, stalled)
			})
		})
	}
}

// roundTripRun counts the adb streams the phone serves over 12 ticks,
// counted from the ticks themselves (the streams served when each tick
// ended), not from the clock: a busy host makes ticks late, not more.
func roundTripRun(t *testing.T, ep endpoint, stock func() *adbtest.ADB) (problem string, stalled bool) {
	// API 28 keeps traffic in the cheap lane (xt_qtaguid); memory, the
	// slow lane's, the energy lane's and the causes' reads are left out so
	// every stream is a tick's.
	dev := sim(t, "janky-scroll", 120, 28)
	d, streams := ep.open(t, dev, stock)
	launch(t, d, dev)
	var mu sync.Mutex
	var at []int // streams served when each tick ended
	tk := newTicker()
	s := perftest.Start(t, d, perftest.WithConfig(perftest.Config{
		Package: pkg, ResultsDir: t.TempDir(), Interval: 50 * time.Millisecond,
		Collectors: []perftest.Collector{perftest.CollectFrames, perftest.CollectCPU, perftest.CollectTraffic, perftest.CollectBattery},
		Causes:     perftest.CauseOptions{Off: true},
		OnTick: func(l result.Live) {
			mu.Lock()
			at = append(at, streams())
			mu.Unlock()
			tk.onTick(l)
		},
	}), func(c *perftest.Config) { c.Energy.Interval = time.Hour })
	tk.wait(t, 16)
	r := s.Stop()
	mu.Lock()
	defer mu.Unlock()
	// From the end of tick 4 to the end of tick 16: the ticks between, one
	// stream each (the first ticks settle the sources).
	const from, to = 3, 15
	if n := at[to] - at[from]; n < to-from-1 || n > to-from+1 {
		return fmt.Sprintf("%d adb streams for %d ticks, want one each; streams at each tick's end %v; gaps %+v", n, to-from, at, r.Gaps), len(r.Gaps) > 0
	}
	return "", false
}

// groundTruthRun records one 1.5 s step on a fresh simulated phone and
// compares the step's frames and summary with the phone's ground truth. It
// returns what did not hold, and whether the session recorded a gap (a
// tick past its deadline, or frames lost to a full device buffer behind a
// stalled host): the session doing its job on a stalled host.
func groundTruthRun(t *testing.T, ep endpoint, stock func() *adbtest.ADB, preset string, hz float64, api int, sf bool) (problems []string, stalled bool) {
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	dev := sim(t, preset, hz, api)
	d, _ := ep.open(t, dev, stock)
	launch(t, d, dev)
	opts := []perftest.Option{perftest.App(pkg), perftest.WithResultsDir(t.TempDir()),
		perftest.WithCollectors(perftest.CollectFrames)}
	if sf {
		opts = append(opts, perftest.WithFrameSource(perftest.SourceSurfaceFlinger))
	}
	tk := newTicker()
	opts = append(opts, func(c *perftest.Config) { c.OnTick = tk.onTick })
	s := perftest.Start(t, d, opts...)
	wait := tk.wait
	if ep.name == hostEndpoint.name {
		wait = tk.settledWait
	}
	s.Step("scroll", func() { wait(t, 10) }) // a second
	r := s.Stop()
	time.Sleep(50 * time.Millisecond) // let the last polled frames be presented in the truth
	stalled = len(r.Gaps) > 0
	st := r.Step("scroll")
	if ep.name == hostEndpoint.name {
		fingerprint(t, r, st)
	}
	truth, early, late := truthInStep(r, st, dev.World().TruthFrames(), sf)
	if late > 2 || early > 2 {
		fail("%d true frames of the step were presented after the last poll, %d before the history was cleared", late, early)
	}
	var got []frames.Frame
	for _, f := range r.Frames {
		if ft := f.Time(); ft >= st.DeviceStartNs && ft < st.DeviceEndNs {
			got = append(got, f)
		}
	}
	// Frames the session read that were still in flight at the truth
	// cutoff are fine; every true frame must be there exactly once.
	if len(got) < len(truth) || len(got) > len(truth)+late {
		fail("step has %d frames, truth %d (+%d late)", len(got), len(truth), late)
	}
	seen := map[int64]int{}
	for _, f := range got {
		seen[f.Time()]++
	}
	missing := 0
	for _, f := range truth {
		key := f.IntendedVsync
		if sf {
			key = f.SFActual
		}
		if seen[key] != 1 {
			missing++
			if missing <= 3 {
				fail("true frame %d (t %d) read %d times", f.Index, key, seen[key])
			}
		}
	}
	for i, f := range truth {
		if i >= len(got) {
			break
		}
		g := got[i]
		if !sf && (g.IntendedVsync != f.IntendedVsync || g.FrameCompleted != f.Completed) {
			fail("frame %d: got vsync %d completed %d, truth %d %d", i, g.IntendedVsync, g.FrameCompleted, f.IntendedVsync, f.Completed)
			break
		}
		if sf && (g.DesiredPresent != f.SFDesired || g.ActualPresent != f.SFActual || g.FrameReady != f.SFReady) {
			fail("frame %d: got %d %d %d, truth %d %d %d", i, g.DesiredPresent, g.ActualPresent, g.FrameReady, f.SFDesired, f.SFActual, f.SFReady)
			break
		}
	}
	if late == 0 {
		period := int64(dev.World().RefreshPeriod())
		want := expectedSummary(truth, period, sf, api)
		gotS := st.Frames()
		gotS.Window = ""
		if !reflect.DeepEqual(gotS, want) {
			fail("summary\n got %+v\nwant %+v", gotS, want)
		}
	}
	if n := len(truth); n < 10 {
		fail("only %d true frames in a 10-tick scroll", n)
	}
	if r.Error != "" || len(r.Gaps) != 0 {
		fail("error %q gaps %+v", r.Error, r.Gaps)
	}
	if len(problems) > 0 {
		var spacing []time.Duration
		var prev int64
		for _, smp := range r.Samples {
			spacing = append(spacing, time.Duration(smp.HostNs-prev).Round(time.Millisecond))
			prev = smp.HostNs
		}
		fail("notes %q; tick spacing %v", r.Notes, spacing)
	}
	return problems, stalled
}

func TestClockAlignedWithDevice(t *testing.T) {
	t.Parallel()
	stock := stockServer(t)
	for _, ep := range endpoints {
		t.Run(ep.name, func(t *testing.T) {
			t.Parallel()
			ep.run(t, func(t *testing.T) {
				dev := sim(t, "smooth-scroll", 60, 33)
				d, _ := ep.open(t, dev, stock)
				launch(t, d, dev)
				s := perftest.Start(t, d, perftest.App(pkg), perftest.WithResultsDir(t.TempDir()),
					perftest.WithCollectors(perftest.CollectFrames))
				s.Step("scroll", func() { time.Sleep(time.Second) })
				r := s.Stop()
				// The phone's clock read next to the host's: the offset the
				// session states must hold within its stated uncertainty (and
				// the microseconds between the two reads), and that uncertainty
				// is no wider than its fastest round trip and the Uptime line's
				// millisecond allow. How fast the round trips are is the host's
				// business (a busy machine makes them slow), so the test states
				// the width and does not bound it. The phone's clock is read
				// once to bring its simulation up to date (it renders the
				// frames since its last command), then between two host
				// clock reads, whose half distance bounds the truth's own
				// error: a busy host can stall between them.
				dev.World().Uptime()
				before := time.Now()
				up := dev.World().Uptime()
				after := time.Now()
				host := before.Sub(r.Start) + after.Sub(before)/2
				trueOffset := int64(up) - int64(host)
				errMs := math.Abs(float64(r.Clock.OffsetNs-trueOffset)) / 1e6
				truthMs := float64(after.Sub(before)) / 2e6
				if r.Clock.Source != "gfxinfo Uptime" || errMs > r.Clock.UncertaintyMs+truthMs+0.1 || r.Clock.UncertaintyMs > (r.Clock.BestRTTMs+1)/2+0.001 {
					t.Errorf("clock %+v is %.3f ms off the device's", r.Clock, errMs)
				}
				t.Logf("clock ±%.3f ms from %d round trips (best %.3f ms); off by %.3f ms (truth ±%.3f ms)", r.Clock.UncertaintyMs, r.Clock.Samples, r.Clock.BestRTTMs, errMs, truthMs)
			})
		})
	}
}

// simConfig builds a simulated phone from a full configuration, its
// workload given a quick cold start (simtest.QuickStart).
func simConfig(t testing.TB, cfg simdevice.Config) *simdevice.Device {
	t.Helper()
	if cfg.Workload != nil {
		simtest.QuickStart(cfg.Workload)
	}
	dev, err := simdevice.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	return dev
}

// chattyCPU measures CPU over a 2 s scroll of chatty-network on a phone
// of cfg with `online` cores online: the top-style figure must match the
// load the preset configures (72 % of one core) and the phone's own
// counters over the step (see TestCPUMemoryTrafficMatchTruth for the
// tolerances).
func chattyCPU(t *testing.T, cfg simdevice.Config, online int) *result.Result {
	t.Helper()
	wl, err := simdevice.Preset("chatty-network")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Workload = wl
	dev := simConfig(t, cfg)
	d, _ := openHost(t, dev, nil)
	launch(t, d, dev)
	s := perftest.Start(t, d, perftest.App(pkg), perftest.WithResultsDir(t.TempDir()), perftest.WithCollectors(perftest.CollectCPU))
	w := dev.World()
	before := w.Truth()
	s.Step("scroll", func() { time.Sleep(2 * time.Second) })
	after := w.Truth()
	r := s.Stop()
	cpu := r.Step("scroll").CPU()
	wantCore := 35.0 + 20 + 2 + 15
	truthCore := float64(after.AppTicks-before.AppTicks) / float64(after.DeviceTotal-before.DeviceTotal) * 100 * float64(online)
	if !within(cpu.MeanPerCore, wantCore, wantCore/10) || !within(cpu.MeanPerCore, truthCore, 3) {
		t.Errorf("app cpu %.2f%% top-style; truth over the step %.2f%%, configured %.0f%%", cpu.MeanPerCore, truthCore, wantCore)
	}
	return r
}

// TestCPUCoresWithoutNproc measures the app's CPU on phones whose shell
// lacks nproc and the cpu possible file: the core count comes from the
// cpuN lines of /proc/stat, so the top-style per-core figure matches what
// the phone's threads really used.
func TestCPUCoresWithoutNproc(t *testing.T) {
	t.Parallel()
	for _, cores := range []int{8, 6} {
		t.Run(fmt.Sprintf("%d cores", cores), func(t *testing.T) {
			t.Parallel()
			simtest.Bubble(t, func(t *testing.T) {
				r := chattyCPU(t, simdevice.Config{Cores: cores, Serial: "sim-nonproc", Quirks: simdevice.Quirks{
					MissingCommands: []string{"nproc"}, MissingFiles: []string{"/sys/devices/system/cpu/possible"}}}, cores)
				if r.Device.Cores != cores {
					t.Errorf("device has %d cores, the result says %d (notes %q)", cores, r.Device.Cores, r.Notes)
				}
			})
		})
	}
}

// TestCPUCoresOffline measures on a phone with half its cores parked and
// no nproc: the device has 8 cores (the possible file), 4 online (the cpuN
// lines of /proc/stat), and the top-style figure sets the app's time
// against the online ones, whose time alone grows the cpu line.
func TestCPUCoresOffline(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		r := chattyCPU(t, simdevice.Config{Cores: 8, Serial: "sim-parked", Quirks: simdevice.Quirks{
			MissingCommands: []string{"nproc"}, OnlineCores: 4}}, 4)
		if r.Device.Cores != 8 || !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "/proc/stat 4") }) {
			t.Errorf("device %d cores from %q, notes %q; want 8 and a note that 4 are online", r.Device.Cores, r.Device.CoresSource, r.Notes)
		}
	})
}

// TestCPUAppDiesMidStep crashes the app (for good: no restart) in the
// middle of a step. The step's CPU is the app's use up to its death, as the
// phone counted it, not 0.
func TestCPUAppDiesMidStep(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		wl, err := simdevice.Preset("crash-on-tap")
		if err != nil {
			t.Fatal(err)
		}
		for i := range wl.Phases {
			if c := wl.Phases[i].Crash; c != nil {
				c.AfterMs, c.Restart = 800, false
			}
		}
		dev := simConfig(t, simdevice.Config{Workload: wl, Serial: "sim-dies"})
		d, _ := openHost(t, dev, nil)
		launch(t, d, dev)
		s := perftest.Start(t, d, perftest.App(pkg), perftest.WithResultsDir(t.TempDir()), perftest.WithCollectors(perftest.CollectCPU), perftest.ExpectCrash("tap crash"))
		w := dev.World()
		var before, after simdevice.TruthTotals
		s.Step("tap crash", func() {
			before = w.Truth()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if _, err := d.Shell(ctx, "input tap 880 2270"); err != nil {
				t.Fatal(err)
			}
			for len(w.Truth().Pids) > 0 {
				if ctx.Err() != nil {
					t.Fatal("the app did not die")
				}
				time.Sleep(20 * time.Millisecond)
			}
			time.Sleep(300 * time.Millisecond)
			after = w.Truth()
		})
		r := s.Stop()
		st := r.Step("tap crash")
		cpu := st.CPU()
		// In clock ticks: the step's figures span the ticks bracketing it, a
		// (the last at or before its start, else the first) to b (the first at
		// or after its end).
		a, b, died := -1, -1, -1
		for i, smp := range r.Samples {
			if smp.CPU == nil {
				continue
			}
			if a < 0 || smp.HostNs <= st.HostStartNs {
				a = i
			}
			if b < 0 && smp.HostNs >= st.HostEndNs {
				b = i
			}
			if died < 0 && i > 0 && len(smp.PIDs) == 0 && len(r.Samples[i-1].PIDs) > 0 {
				died = i
			}
		}
		if a < 0 || b < 0 || died < 0 {
			t.Fatalf("no bracketing samples or death in %d samples", len(r.Samples))
		}
		// The last tick that saw the app read its counters: a tick that found
		// its pid as it died may have found no /proc/<pid>/stat left to read.
		seen := died - 1
		for seen > a && len(r.Samples[seen].Procs) == 0 {
			seen--
		}
		total := func(c *procfs.CPUTimes) float64 { return float64(c.Total()) }
		measured := cpu.Mean / 100 * (total(r.Samples[b].CPU) - total(r.Samples[a].CPU))
		truth := float64(after.AppTicksAllProcs - before.AppTicksAllProcs)
		// What the samples cannot see: the app's time between the last tick
		// that saw it and its death (80 % of a core at most), lost, from that
		// tick's read of the app's counters, which came before its /proc/uptime
		// read within its round trip; and its
		// time before the step's start back to tick a (its scroll, 57 %),
		// counted on top of the truth. A tick each way for the counters'
		// whole ticks.
		secs := func(i, j int) float64 { return float64(r.Samples[j].UptimeNs-r.Samples[i].UptimeNs) / 1e9 }
		lost := 0.8*100*(secs(seen, died)+float64(r.Samples[seen].RTTNs)/1e9+max(0, float64(r.Samples[a].HostNs-st.HostStartNs))/1e9) + 2
		extra := 0.6*100*(max(0, float64(st.HostStartNs-r.Samples[a].HostNs))/1e9+0.02) + 2
		if measured < truth-lost || measured > truth+extra || measured <= 0 {
			t.Errorf("app %.1f ticks over the step, truth %.0f (−%.1f lost from the last tick that read the app, %d before its death, +%.1f before the step) over %d intervals",
				measured, truth, lost, died-seen, extra, cpu.Intervals)
		}
		t.Logf("app %.1f ticks over the step, truth %.0f (−%.1f from %d ticks before the death, +%.1f)", measured, truth, lost, died-seen, extra)
	})
}

// TestForceStopIsNoCrash force-stops the app in the middle of a step, not
// as a restart the test announced: it is a process end, force-stopped, not
// a crash, and none of the log's old crashes is taken for its story.
func TestForceStopIsNoCrash(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		dev := historySim(t, "smooth-scroll")
		d, _ := openHost(t, dev, nil)
		launch(t, d, dev)
		pid := dev.World().Truth().Pids[0]
		var ticks atomic.Int64
		s := perftest.Start(t, d, perftest.WithConfig(perftest.Config{Package: pkg, ResultsDir: t.TempDir(),
			OnTick: func(result.Live) { ticks.Add(1) }}))
		s.Step("stop", func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if _, err := d.Shell(ctx, "am force-stop "+pkg); err != nil {
				t.Fatal(err)
			}
			// Until a tick that began after the force-stop has ended.
			for want := ticks.Load() + 2; ticks.Load() < want; {
				if ctx.Err() != nil {
					t.Fatal("no tick after the force-stop")
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
		r := s.Stop()
		if len(r.Crashes) != 0 || r.Step("stop").Crashed() {
			t.Fatalf("a force-stop recorded as crashes %+v", r.Crashes)
		}
		if len(r.ProcessEnds) != 1 {
			t.Fatalf("process ends %+v, want the force-stop", r.ProcessEnds)
		}
		e := r.ProcessEnds[0]
		log := strings.Join(e.Logcat, "\n")
		if e.PID != pid || e.Step != "stop" || e.Reason != "force_stopped" || !strings.Contains(e.Evidence, "Force stopping "+pkg) ||
			!strings.Contains(log, fmt.Sprintf("Killing %d:%s", pid, pkg)) {
			t.Errorf("end %+v, want pid %d force-stopped in step stop", e, pid)
		}
		for _, l := range foreignLines {
			if strings.Contains(log, l) {
				t.Errorf("the force-stop's logcat holds another crash's line %q:\n%s", l, log)
			}
		}
	})
}

// TestSessionWithoutGetprop starts a session on a phone whose shell has no
// getprop: the facts come from /system/build.prop, and the Result says why.
func TestSessionWithoutGetprop(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		wl, err := simdevice.Preset("smooth-scroll")
		if err != nil {
			t.Fatal(err)
		}
		dev := simConfig(t, simdevice.Config{API: 30, Workload: wl, Serial: "sim-nogetprop", Quirks: simdevice.Quirks{MissingCommands: []string{"getprop"}}})
		d, _ := openHost(t, dev, nil)
		launch(t, d, dev)
		s := perftest.Start(t, d, perftest.App(pkg), perftest.WithResultsDir(t.TempDir()), perftest.WithCollectors(perftest.CollectCPU))
		r := s.Stop()
		want := "device facts: ro.build.version.sdk: getprop ro.build.version.sdk: exit status 127: /system/bin/sh: getprop: inaccessible or not found; read ro.build.version.sdk from /system/build.prop"
		if r.Device.API != 30 || r.Device.Model != dev.Config().Model || !slices.Contains(r.Notes, want) {
			t.Errorf("device %+v, notes %q\nwant API 30, model %q and the note %q", r.Device, r.Notes, dev.Config().Model, want)
		}
	})
}

// trafficTolerance is the relative tolerance of a step's traffic rates
// against the device's counters over the step: 3 % plus the session's
// longest round trip over the time the rate's reads span. Each read's time
// is within its round trip of the counters: on the host's clock it is the
// round trip's midpoint; on the device's, the /proc/uptime read before the
// counters, which a loaded simulated phone can take as long to follow with
// them (a loaded host makes round trips long).
func trafficTolerance(r *result.Result, tr result.TrafficStats) float64 {
	var maxRTT int64
	for _, smp := range r.Samples {
		maxRTT = max(maxRTT, smp.RTTNs)
	}
	return 0.03 + time.Duration(maxRTT).Seconds()/tr.DurationSecs
}

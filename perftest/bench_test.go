package perftest

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/internal/fixtures"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest/internal/samples"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
)

// benchDevice is a simulated phone with the app drawing, behind one of the
// two endpoints; streams counts the adb services the phone served.
func benchDevice(tb testing.TB, endpoint string, api int) (*adbx.Device, func() int) {
	tb.Helper()
	wl, err := simdevice.Preset("janky-scroll")
	if err != nil {
		tb.Fatal(err)
	}
	dev, err := simdevice.New(simdevice.Config{API: api, RefreshHz: 120, Workload: wl})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { dev.Close() })
	var d *adbx.Device
	var streams func() int
	switch endpoint {
	case "host":
		srv := adbtest.NewServer(dev)
		tb.Cleanup(srv.Close)
		d = srv.Open(dev.Serial())
		streams = func() int { return srv.Streams(dev.Serial()) }
	case "adb":
		var adbd *adbtest.Adbd
		d, adbd = adbtest.StartADB(tb).Serve(tb, dev)
		streams = adbd.Streams
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := d.Shell(ctx, "monkey -p "+simdevice.PresetPackage+" -c android.intent.category.LAUNCHER 1"); err != nil {
		tb.Fatal(err)
	}
	time.Sleep(900 * time.Millisecond) // cold start to Displayed, then drawing
	return d, streams
}

// manualSession starts a session and stops its lanes after their first
// round, so the ticks a benchmark runs are the only ones.
func manualSession(tb testing.TB, d *adbx.Device, collectors []Collector) *Session {
	tb.Helper()
	s, err := newSession(context.Background(), wrapAdbx(d), Config{
		Package: simdevice.PresetPackage, Collectors: collectors,
		Interval: time.Hour, SlowInterval: time.Hour, ResultFile: "-", Settle: time.Millisecond,
	})
	if err != nil {
		tb.Fatal(err)
	}
	for {
		s.mu.Lock()
		n := len(s.res.Samples)
		s.mu.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	s.cancel()
	s.lanes.Wait()
	return s
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cheapCollectors leave out memory, whose meminfo read is the slow lane's.
var cheapCollectors = []Collector{CollectFrames, CollectCPU, CollectTraffic, CollectBattery}

// BenchmarkTick measures one cheap-lane tick against the simulated phone
// through each endpoint: ns/op is the tick's wall time (so 1e9/ns_per_op
// is the highest sustained tick rate, reported as ticks/s), roundtrips/tick
// counts adb streams the phone served per tick, and host-cpu-ns/tick is the
// whole process's CPU per tick — the simulated phone and the adb endpoint
// run in this process too, so it is an upper bound on perftest's share
// (BenchmarkAbsorb isolates that).
func BenchmarkTick(b *testing.B) {
	for _, ep := range []string{"host", "adb"} {
		for _, api := range []int{28, 33} {
			b.Run(fmt.Sprintf("endpoint=%s/api=%d", ep, api), func(b *testing.B) {
				d, streams := benchDevice(b, ep, api)
				s := manualSession(b, d, cheapCollectors)
				defer s.Stop()
				ctx := context.Background()
				b.ReportAllocs()
				b.ResetTimer()
				st0, cpu0, t0 := streams(), cpuTime(), time.Now()
				for range b.N {
					if err := s.tick(ctx, -1); err != nil {
						b.Fatal(err)
					}
				}
				elapsed, cpu, st := time.Since(t0), cpuTime()-cpu0, streams()-st0
				b.StopTimer()
				s.mu.Lock()
				gaps := len(s.res.Gaps)
				s.mu.Unlock()
				if gaps > 0 {
					b.Fatalf("%d gaps: %+v", gaps, s.res.Gaps[0])
				}
				b.ReportMetric(float64(st)/float64(b.N), "roundtrips/tick")
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "host-cpu-ns/tick")
				b.ReportMetric(float64(b.N)/elapsed.Seconds(), "ticks/s")
			})
		}
	}
}

// BenchmarkAbsorb is perftest's own host CPU per tick: parsing one tick's
// answers (a full 120-frame framestats dump, /proc/stat, stats of the app's
// processes and threads, status, traffic) into samples and frames.
func BenchmarkAbsorb(b *testing.B) {
	d, _ := benchDevice(b, "host", 33)
	s := manualSession(b, d, cheapCollectors)
	defer s.Stop()
	s.mu.Lock()
	plan := s.col.plan(true)
	s.mu.Unlock()
	out, err := wrapAdbx(d).batch(context.Background(), plan.cmds)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		s.mu.Lock()
		// Forget the kept frames, so every round parses and keeps them all.
		s.col.frames.Forget()
		s.res.Frames = s.res.Frames[:0]
		s.res.Samples = s.res.Samples[:0]
		s.col.absorb(plan, out, -1, 0, 1)
		s.mu.Unlock()
	}
}

// BenchmarkAbsorbCapture is BenchmarkAbsorb on a real phone's 120-frame
// Android 13 framestats dump plus scripted /proc answers, without a device.
func BenchmarkAbsorbCapture(b *testing.B) {
	gfx := fixtures.Read(b, "gfxinfo_framestats/soundvis_120hz_android13plus_scroll.txt")
	f := newFake()
	c := bareCollector(SourceGfxInfo)
	c.cfg.Collectors = cheapCollectors
	c.uid = f.uid
	c.newSamples()
	c.samples.Use(samples.Found{CPU: true, Traffic: samples.TrafficQtaguid})
	plan := c.plan(true)
	out := make([]adbx.Result, len(plan.cmds))
	for i, cmd := range plan.cmds {
		out[i] = f.run(cmd)
	}
	out[plan.frames] = adbx.Result{Stdout: gfx}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		c.frames.Forget()
		c.s.res.Frames = c.s.res.Frames[:0]
		c.s.res.Samples = c.s.res.Samples[:0]
		c.s.res.Traffic = c.s.res.Traffic[:0]
		c.absorb(plan, out, -1, 0, 1)
	}
	if len(c.s.res.Frames) != 120 || len(c.s.res.Notes) != 0 {
		b.Fatalf("%d frames, notes %q", len(c.s.res.Frames), c.s.res.Notes)
	}
}

// launchedSim is a simulated phone (API 33) running preset at hz, as edit
// changes it, behind the host-protocol server, with its app launched.
func launchedSim(b *testing.B, preset string, hz float64, edit func(*simdevice.Workload)) (*adbx.Device, *simdevice.Device) {
	b.Helper()
	wl, err := simdevice.Preset(preset)
	if err != nil {
		b.Fatal(err)
	}
	if edit != nil {
		edit(wl)
	}
	dev, err := simdevice.New(simdevice.Config{API: 33, RefreshHz: hz, Workload: wl})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { dev.Close() })
	srv := adbtest.NewServer(dev)
	b.Cleanup(srv.Close)
	d := srv.Open(dev.Serial())
	simtest.Launch(b, d, dev)
	return d, dev
}

// stopDevice is a simulated phone whose app scrolls for a moment after its
// launch and then sits idle (busy false), or keeps scrolling (busy true).
func stopDevice(b *testing.B, busy bool) (*adbx.Device, *simdevice.Device) {
	b.Helper()
	d, dev := launchedSim(b, "smooth-scroll", 60, func(wl *simdevice.Workload) {
		if !busy {
			wl.Phases[0].DurationMs, wl.Phases[0].Next = 300, "idle"
		}
	})
	// Idle once the device clock is past the last frame by more than
	// Settle: Stop then finds nothing drawing.
	for !busy {
		fr := dev.World().TruthFrames()
		if len(fr) > 0 && time.Duration(fr[len(fr)-1].Present) < dev.World().Uptime()-400*time.Millisecond {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	return d, dev
}

// BenchmarkStop is Session.Stop's wall time (ns/op) after a session ran one
// step. With app=idle no frame is pending: Stop polls once and returns. With
// app=drawing it polls until the frames of the step's last vsyncs are in.
// collectors=frames is frames alone with causes off; causes=on adds
// the Looper property restore and the profiler and log reads Stop makes;
// collectors=all adds CPU, memory, traffic and battery, and the meminfo read
// Stop takes for a step whose slow-lane read had not come yet.
func BenchmarkStop(b *testing.B) {
	for _, app := range []string{"idle", "drawing"} {
		for _, set := range []struct {
			name string
			cols []Collector
			off  bool
		}{
			{"collectors=frames/causes=off", []Collector{CollectFrames}, true},
			{"collectors=frames/causes=on", []Collector{CollectFrames}, false},
			{"collectors=all/causes=off", nil, true},
		} {
			b.Run("app="+app+"/"+set.name, func(b *testing.B) {
				d, _ := stopDevice(b, app == "drawing")
				var total time.Duration
				for range b.N {
					ticked := make(chan struct{}, 1)
					s, err := newSession(context.Background(), wrapAdbx(d), Config{
						Package: simdevice.PresetPackage, Collectors: set.cols, ResultFile: "-",
						Causes: CauseOptions{Off: set.off},
						OnTick: func(result.Live) {
							select {
							case ticked <- struct{}{}:
							default:
							}
						},
					})
					if err != nil {
						b.Fatal(err)
					}
					<-ticked
					s.Begin("step")
					<-ticked
					t0 := time.Now()
					r := s.Stop()
					total += time.Since(t0)
					if r.Error != "" {
						b.Fatal(r.Error)
					}
				}
				b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "stop-ns/op")
			})
		}
	}
}

// countingDevice counts the bytes of the answers a session reads, and
// those of its frame polls apart.
type countingDevice struct {
	device
	all, frames atomic.Int64
}

func (d *countingDevice) batch(ctx context.Context, cmds []string) ([]adbx.Result, error) {
	out, err := d.device.batch(ctx, cmds)
	for i, r := range out {
		n := int64(len(r.Stdout) + len(r.Stderr))
		d.all.Add(n)
		if i < len(cmds) && strings.HasPrefix(cmds[i], "dumpsys gfxinfo") {
			d.frames.Add(n)
		}
	}
	return out, err
}

// BenchmarkScrollBytes is what a session with every collector reads from
// the phone per second of a scroll (janky-scroll, API 33) at each refresh
// rate, by default polling: bytes/s over every answer, frame-bytes/s over
// the frame polls. Each op is one second of scrolling; a session that lost
// frames (a gap) fails.
func BenchmarkScrollBytes(b *testing.B) {
	for _, hz := range []float64{60, 90, 120, 144} {
		b.Run(fmt.Sprintf("hz=%g", hz), func(b *testing.B) {
			d, _ := launchedSim(b, "janky-scroll", hz, nil)
			cd := &countingDevice{device: wrapAdbx(d)}
			s, err := newSession(context.Background(), cd, Config{Package: simdevice.PresetPackage, ResultFile: "-", Causes: CauseOptions{Off: true}})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			all0, fr0, t0 := cd.all.Load(), cd.frames.Load(), time.Now()
			s.Step("scroll", func() { time.Sleep(time.Duration(b.N) * time.Second) })
			all, fr, sec := cd.all.Load()-all0, cd.frames.Load()-fr0, time.Since(t0).Seconds()
			b.StopTimer()
			r := s.Stop()
			if len(r.Gaps) > 0 || r.Error != "" {
				b.Fatalf("error %q, gaps %+v", r.Error, r.Gaps)
			}
			b.ReportMetric(float64(all)/sec, "bytes/s")
			b.ReportMetric(float64(fr)/sec, "frame-bytes/s")
			b.ReportMetric(float64(r.Step("scroll").Frames().Frames)/sec, "frames/s")
		})
	}
}

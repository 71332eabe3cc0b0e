package perftest

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/internal/fixtures"
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
	plan := s.col.plan()
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
		clear(s.col.gfxWin)
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
	c.cpuOK, c.traffic, c.uid, c.batteryOK = true, trafficQtaguid, f.uid, false
	plan := c.plan()
	out := make([]adbx.Result, len(plan.cmds))
	for i, cmd := range plan.cmds {
		out[i] = f.run(cmd)
	}
	out[plan.frames] = adbx.Result{Stdout: gfx}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		clear(c.gfxWin)
		c.s.res.Frames = c.s.res.Frames[:0]
		c.s.res.Samples = c.s.res.Samples[:0]
		c.s.res.Traffic = c.s.res.Traffic[:0]
		c.absorb(plan, out, -1, 0, 1)
	}
	if len(c.s.res.Frames) != 120 || len(c.s.res.Notes) != 0 {
		b.Fatalf("%d frames, notes %q", len(c.s.res.Frames), c.s.res.Notes)
	}
}

package perftest

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/dumpsys"
	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest/internal/samples"
	"github.com/perfgate/perfgate/result"
)

// hasMetric reports whether the step's catalogue has a value for name.
func hasMetric(st *result.Step, name metrics.Name) (float64, bool) {
	for _, m := range st.Metrics() {
		if m.Name == name {
			return m.Value, true
		}
	}
	return 0, false
}

// wantAbsent checks each name is missing from Metrics and listed by
// Absent with a reason holding want.
func wantAbsent(t *testing.T, st *result.Step, want string, names ...metrics.Name) {
	t.Helper()
	ab := st.Absent()
	for _, n := range names {
		if v, ok := hasMetric(st, n); ok {
			t.Errorf("%s: %s = %v, want it absent (%s)", st.Name, n, v, want)
		}
		i := slices.IndexFunc(ab, func(a result.AbsentMetric) bool { return a.Name == n })
		if i < 0 || !strings.Contains(ab[i].Reason, want) {
			t.Errorf("%s: %s: Absent gives %+v, want a reason with %q", st.Name, n, ab, want)
		}
	}
}

// The step's own figures show some absences: a figure of intervals needs
// two frames, one of durations needs gfxinfo, a slope two reads, time to
// full display every launch's "Fully drawn".
func TestAbsentFromFigures(t *testing.T) {
	dm := 0
	one := &result.Step{Name: "tap", FrameStats: frames.Summary{Source: "gfxinfo", Frames: 1, DeadlineMissed: &dm, Vitals: &frames.Vitals{},
		FrameTimeMS: frames.Percentiles{P50: 7, P90: 7, P95: 7, P99: 7}}}
	wantAbsent(t, one, "needs two frames (intervals between frames); the step had 1", "fps", "stutter_perfdog", "jank_chromium", "max_frame_delay")
	for _, n := range []metrics.Name{"frames", "jank", "jank_deadline_missed", "frame_time_p95", "slow_frames"} {
		if _, ok := hasMetric(one, n); !ok {
			t.Errorf("one gfxinfo frame: %s absent (%v)", n, one.Absent())
		}
	}

	sf := &result.Step{Name: "sf", FrameStats: frames.Summary{Source: "surfaceflinger", Frames: 1}}
	wantAbsent(t, sf, "needs two frames", "frame_time_p50", "frame_time_p99", "fps")
	wantAbsent(t, sf, "needs frame durations (gfxinfo); the frames came from surfaceflinger", "jank_deadline_missed", "slow_frames", "frozen_frames")

	idle := &result.Step{Name: "idle", FrameStats: frames.Summary{Source: "gfxinfo"}}
	if v, ok := hasMetric(idle, "frames"); !ok || v != 0 {
		t.Errorf("a frame source read without frames: frames %v %v, want a measured 0", v, ok)
	}
	wantAbsent(t, idle, "no frame in the step", "fps", "jank", "frame_time_p95")

	mem := &result.Step{Name: "mem", MemoryStats: result.MemoryStats{PSSSamples: 1, PSSMaxKB: 100, RSSSamples: 3, RSSMaxKB: 200}}
	wantAbsent(t, mem, "growth needs two dumpsys meminfo reads in the step; it had 1", "pss_growth")
	if v, ok := hasMetric(mem, "pss_max"); !ok || v != 100 {
		t.Errorf("pss_max %v %v", v, ok)
	}

	launch := &result.Step{Name: "launch", Startup: &result.StartupStats{Kind: "cold", Source: "am start -W TotalTime",
		Iterations: []result.StartupSample{{TotalTimeMs: 500, FullyDrawnMs: 900}, {TotalTimeMs: 520}}}}
	launch.Startup.Summarise()
	wantAbsent(t, launch, `needs every launch to log "Fully drawn" (the app calls reportFullyDrawn); 1 of 2 did`, "startup_full")
	if v, ok := hasMetric(launch, "startup_initial"); !ok || v != 500 {
		t.Errorf("startup_initial %v %v", v, ok)
	}
	wantAbsent(t, idle, "startup: the step launched nothing", "startup_initial", "startup_full")

	// What the collector recorded wins over the figures, and survives the
	// JSON.
	tr := &result.Step{Name: "scroll", TrafficStats: &result.TrafficStats{Source: "x", Scope: "uid"},
		NotMeasured: map[metrics.Name]string{"rx": "traffic: gone", "tx": "traffic: gone"}}
	wantAbsent(t, tr, "traffic: gone", "rx", "tx")
	r := &result.Result{Schema: result.Schema, Steps: []*result.Step{tr}}
	path := filepath.Join(t.TempDir(), "r.json")
	if err := r.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	back, err := result.ReadResult(path)
	if err != nil {
		t.Fatal(err)
	}
	wantAbsent(t, back.Step("scroll"), "traffic: gone", "rx", "tx")

	// Every metric of the catalogue is either measured or absent.
	for _, st := range []*result.Step{one, sf, idle, mem, launch, tr} {
		n := len(st.Metrics()) + len(st.Absent())
		if all := len(metrics.Catalogue()); n != all {
			t.Errorf("%s: %d measured + %d absent != %d", st.Name, len(st.Metrics()), len(st.Absent()), all)
		}
	}
}

// trafficFake serves the fake's xt_qtaguid through a switch: normal, or
// without the app's row (as after its stats were deleted).
type trafficFake struct {
	*fakeDevice
	mu    sync.Mutex
	noRow bool
}

func newTrafficFake() *trafficFake {
	tf := &trafficFake{fakeDevice: newFake()}
	tf.extra = func(cmd string) (adbx.Result, bool) {
		tf.mu.Lock()
		defer tf.mu.Unlock()
		if cmd != "cat "+samples.TrafficQtaguid || !tf.noRow {
			return adbx.Result{}, false
		}
		return adbx.Result{Stdout: []byte("idx iface acct_tag_hex uid_tag_int cnt_set rx_bytes rx_packets tx_bytes tx_packets\n3 wlan0 0x0 10999 0 555 1 66 1\n")}, true
	}
	return tf
}

func (tf *trafficFake) setNoRow(v bool) {
	tf.mu.Lock()
	tf.noRow = v
	tf.mu.Unlock()
}

func TestTrafficAbsentWhenCountersFail(t *testing.T) {
	tf := newTrafficFake()
	s := startFake(t, tf.fakeDevice, fastConfig(t))
	s.Step("before", func() { waitTicks(t, tf.fakeDevice, 4) })
	s.Step("reset", func() {
		waitTicks(t, tf.fakeDevice, 3)
		tf.fakeDevice.mu.Lock()
		tf.rx, tf.tx = 0, 0
		tf.fakeDevice.mu.Unlock()
		waitTicks(t, tf.fakeDevice, 3)
	})
	s.Step("partly", func() {
		waitTicks(t, tf.fakeDevice, 3)
		tf.setNoRow(true)
		waitTicks(t, tf.fakeDevice, 3)
	})
	s.Step("never", func() { waitTicks(t, tf.fakeDevice, 4) })
	tf.setNoRow(false)
	s.Step("recover", func() { waitTicks(t, tf.fakeDevice, 4) })
	s.Step("again", func() { waitTicks(t, tf.fakeDevice, 4) })
	r := s.Stop()

	for _, name := range []string{"before", "again"} {
		st := r.Step(name)
		if rx, ok := hasMetric(st, "rx"); !ok || rx == 0 || int(rx)%1000 != 0 {
			t.Errorf("%s: rx %v %v (%v), want whole ticks of 1000 B", name, rx, ok, st.NotMeasured)
		}
	}
	wantAbsent(t, r.Step("reset"), "traffic: "+samples.TrafficQtaguid+": "+procfs.ErrTrafficCounterReset.Error(), "rx", "tx")
	wantAbsent(t, r.Step("partly"), "traffic: "+samples.TrafficQtaguid+" unreadable at the step's edge (", "rx", "tx")
	wantAbsent(t, r.Step("never"), "traffic: "+samples.TrafficQtaguid+" unreadable on every read in the step", "rx", "tx")
	// The last good read before "recover" lies in "partly": its bytes
	// would take in "never"'s.
	wantAbsent(t, r.Step("recover"), "traffic: "+samples.TrafficQtaguid+" unreadable at the step's edge (", "rx", "tx")
	for _, name := range []string{"reset", "partly", "never", "recover"} {
		if st := r.Step(name); st.TrafficStats != nil {
			t.Errorf("%s: traffic %+v, want none", name, *st.TrafficStats)
		}
	}
}

// A step whose every tick failed watched nothing: its crashes are not
// measured, though the steps around it are.
func TestCrashesAbsentWhenEveryTickFails(t *testing.T) {
	f := newFake()
	var mu sync.Mutex
	dark := false
	failed := make(chan struct{}, 100)
	f.fail = func(ctx context.Context, cmds []string) error {
		mu.Lock()
		defer mu.Unlock()
		if dark && len(cmds) > 1 && slices.Contains(cmds, "cat /proc/uptime") {
			select {
			case failed <- struct{}{}:
			default:
			}
			return errors.New("adbx batch: read: connection reset by peer")
		}
		return nil
	}
	setDark := func(v bool) {
		mu.Lock()
		dark = v
		mu.Unlock()
	}
	s := startFake(t, f, fastConfig(t))
	s.Step("lit", func() { waitTicks(t, f, 3) })
	// The phone goes dark between steps, not inside one: a tick sent
	// before the dark began and answered after the step's start, or sent
	// after it ended and answered before the step's end, would be a tick
	// of the step that did not fail. Ticks go one at a time, so once one
	// has failed, every tick sent before the dark has been answered.
	setDark(true)
	<-failed
	s.Step("dark", func() {
		for len(failed) > 0 {
			<-failed // failures from before the step began
		}
		for range 3 {
			<-failed
		}
	})
	setDark(false)
	s.Step("lit again", func() { waitTicks(t, f, 3) })
	r := s.Stop()
	wantAbsent(t, r.Step("dark"), "crashes: every tick in the step failed", "crashes")
	wantAbsent(t, r.Step("dark"), "connection reset by peer", "crashes")
	for _, name := range []string{"lit", "lit again"} {
		if v, ok := hasMetric(r.Step(name), "crashes"); !ok || v != 0 {
			t.Errorf("%s: crashes %v %v", name, v, ok)
		}
	}
}

// A battery that reports no temperature has no battery_temp_max, not 0 °C.
func TestBatteryTemperatureAbsent(t *testing.T) {
	f := newFake()
	f.extra = func(cmd string) (adbx.Result, bool) {
		switch cmd {
		case "cat /sys/class/power_supply/battery/uevent":
			return adbx.Result{Stdout: []byte("POWER_SUPPLY_NAME=battery\nPOWER_SUPPLY_STATUS=Discharging\nPOWER_SUPPLY_CAPACITY=81\n")}, true
		case dumpsys.ThermalZonesCommand:
			return adbx.Result{ExitCode: 1, Stderr: []byte("cat: /sys/class/thermal/thermal_zone*/temp: No such file or directory")}, true
		}
		return adbx.Result{}, false
	}
	cfg := fastConfig(t)
	cfg.Collectors = []Collector{CollectBattery}
	s := startFake(t, f, cfg)
	s.Step("scroll", func() { waitTicks(t, f, 25) })
	r := s.Stop()
	st := r.Step("scroll")
	if st.BatteryStats == nil || st.BatteryStats.StartLevelPct != 81 {
		t.Fatalf("battery %+v, want the level read", st.BatteryStats)
	}
	wantAbsent(t, st, "battery: "+dumpsys.BatteryUeventSource+" has no POWER_SUPPLY_TEMP", "battery_temp_max")
	// The collectors left out are not measured, and say so.
	wantAbsent(t, st, `cpu: not collected (Config.Collectors has no "cpu")`, "cpu", "cpu_device", "cpu_intervals")
	wantAbsent(t, st, `frames: not collected`, "frames", "fps")
	wantAbsent(t, st, `traffic: not collected`, "rx")
}

// The samples keep the JSON names a Result has always had for the CPU
// line and the processes' times, now that they are metrics' own types.
func TestSampleJSON(t *testing.T) {
	smp := result.Sample{CPU: &procfs.CPUTimes{User: 1, Nice: 2, System: 3, Idle: 4, IOWait: 5, IRQ: 6, SoftIRQ: 7, Steal: 8, Guest: 9, GuestNice: 10},
		Procs: []procfs.PidStat{{PID: 42, Comm: "com.x", State: "S", UTime: 11, STime: 12, StartTime: 13, Processor: -1}}}
	b, err := json.Marshal(smp)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"cpu":{"user":1,"nice":2,"system":3,"idle":4,"iowait":5,"irq":6,"softirq":7,"steal":8}`,
		`"procs":[{"pid":42,"name":"com.x","utime":11,"stime":12,"start_time":13}]`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("sample JSON %s lacks %s", b, want)
		}
	}
}

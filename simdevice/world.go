package simdevice

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/perfgate/perfgate/simdevice/internal/format"
	"github.com/perfgate/perfgate/simdevice/uia2"
)

// World is the simulated phone's state: its monotonic clock, processes, the
// running app and its workload, CPU, memory, network and battery counters,
// and the frames the app renders. The device's programs, its /proc and /sys
// files and so its shell read everything they print from a World.
//
// Time is one monotonic device clock (uptime, CLOCK_MONOTONIC) that starts at
// a plausible uptime and advances with the host clock. The simulation is
// advanced lazily by every call and by a background ticker, so the truth
// writer keeps growing while nobody asks.
//
// All methods are safe for concurrent use.
type World struct {
	mu  sync.Mutex
	cfg Config
	wl  *Workload
	opt worldOptions

	period   int64     // refresh period in ns
	window   string    // hwui window name of the main activity
	layer    string    // SurfaceFlinger layer carrying the app's frames
	hostBase time.Time // host time at creation
	base     int64     // uptime in ns at creation
	now      int64     // uptime the state has been advanced to
	bootWall time.Time // wall clock at uptime 0, for logcat timestamps
	// skipped is how far Skip moved the clocks ahead of the host's.
	skipped int64
	// bootID is /proc/sys/kernel/random/boot_id: a random UUID the kernel
	// picks at boot, the same on every read until the next boot.
	bootID string

	nextPid int
	lastTid int      // the highest tid an app process had
	app     *appProc // nil while the app is not running
	fg      fgState  // whether the activity is shown
	ended   []deadProc

	// Rendering state of the running app.
	launchAt    int64  // am start time of the launch in progress, or -1
	displayAt   int64  // when the launch in progress is Displayed, or -1
	launchKind  string // COLD, WARM or HOT
	fullyAt     int64  // when reportFullyDrawn fires, or -1
	phase       *Phase
	phaseStart  int64
	phaseFrames int   // frames rendered in the current phase
	nextVsync   int64 // earliest intended vsync of the next frame
	crashAt     int64 // -1 when no crash is scheduled
	vsyncID     int64
	pending     []TruthFrame // rendered, not yet presented
	died        []TruthFrame // rendered by a process killed before their present (the newest diedKept)

	frames      []TruthFrame // presented frames, the newest truthFramesKept
	frameCount  int
	missedCount int
	gfx         gfxWindow
	popup       gfxWindow    // the FrameQuirks.PopupEvery window
	popupQueue  []TruthFrame // popup frames rendered, not yet presented
	sf          []TruthFrame // SurfaceFlinger --latency ring of the app layer
	flips       int64        // frames SurfaceFlinger composited since boot
	startup     []TruthStartup
	compile     compileState // the app's dexopt state
	crashes     int

	cpu     deviceCPU
	traffic map[int]*uidTraffic
	battery batteryState

	// setProps are the properties setprop set; blocks and runs are the app's
	// main-thread messages and CPU stretches (see TruthBlock, mainRun);
	// postSeq counts the messages a cause posted; recorders are the
	// simpleperf recordings running; anrs are the ANR reports for
	// dumpsys dropbox.
	setProps  map[string]string
	blocks    []TruthBlock
	runs      []mainRun
	postSeq   int
	recorders map[int]*recorder
	// frameBlocks are the cause blocks of frames rendered but not yet
	// presented, by IntendedVsync, for the truth stream.
	frameBlocks map[int64][]TruthBlock
	recPid      int
	anrs        []anrReport
	artProf     *artProfile // the `am profile` running, nil for none
	heap        *heapState  // what the app leaked, nil for nothing
	// files is the device's file tree, where programs write what they
	// write with -o (simpleperf record).
	files fileStore
	// bgProcs lists the device's background processes ps shows beside
	// the World's own (a perfetto recording), with their command lines.
	bgProcs func() []bgProc

	logs    []logEntry
	logSeq  int64
	logWake chan struct{} // closed and replaced when a log entry arrives

	replay *replay // nil unless Config.Replay
	speed  float64 // device time per host time

	// noise is Config.Noise's factors; launches counts the app's launches,
	// the index of each launch's draw.
	noise        worldNoise
	launches     int64
	launchFactor float64 // the launch in progress's noise factor, 0 without noise

	truthW  *bufio.Writer
	truthEr error

	stop    chan struct{}
	stopped chan struct{}
	closeMu sync.Once
}

// worldOptions are the knobs tests use; newWorld fills real-time defaults.
type worldOptions struct {
	now        func() time.Time                                 // host clock
	sleep      func(ctx context.Context, d time.Duration) error // waits d of host time
	bootUptime time.Duration                                    // uptime at creation
	background float64                                          // device-wide busy % besides the app, of all cores
	ticker     time.Duration                                    // 0: no background ticker
}

type fgState int

const (
	fgNone      fgState = iota // activity not created (cold/warm start next)
	fgResumed                  // shown
	fgStopped                  // HOME pressed: hot start next
	fgDestroyed                // BACK pressed: process alive, warm start next
)

// appProc is one process of the app.
type appProc struct {
	pid     int
	startAt int64 // uptime in ns
	threads []*thread
	javaKiB float64 // heap growth since start
	natKiB  float64
	// looperMs is the main Looper's slow-message threshold, read from
	// log.looper.<uid>.main.slow when the process started; -1 when unset.
	// slowDelivery is Looper's mSlowDeliveryDetected.
	looperMs     int64
	slowDelivery bool
}

// thread accumulates CPU time in clock ticks (USER_HZ = 100).
type thread struct {
	tid          int
	name         string
	utime, stime float64
}

type deadProc struct {
	pid   int
	ticks int64
}

const userHZ = 100

// newWorld builds the world a Device serves, on the host's real clock.
func newWorld(cfg Config) (*World, error) {
	return newWorldWith(cfg, worldOptions{})
}

// newWorldWith builds a world with test knobs; zero options mean real time.
func newWorldWith(cfg Config, opt worldOptions) (*World, error) {
	if opt.now == nil {
		opt.now = time.Now
		if opt.ticker == 0 {
			opt.ticker = 200 * time.Millisecond
		}
	}
	if opt.sleep == nil {
		opt.sleep = func(ctx context.Context, d time.Duration) error {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-t.C:
				return nil
			}
		}
	}
	if opt.bootUptime == 0 {
		// 3h17m plus a jitter from the host clock, so two devices differ.
		opt.bootUptime = 3*time.Hour + 17*time.Minute + time.Duration(opt.now().UnixNano()%int64(time.Minute))
	}
	if opt.background == 0 {
		opt.background = 4
	}
	if opt.background < 0 || opt.background > 90 {
		return nil, fmt.Errorf("background CPU %g%% out of range", opt.background)
	}
	wl, rp, err := resolveWorkload(cfg)
	if err != nil {
		return nil, err
	}
	hz := cfg.setDefaults(wl)
	host := opt.now()
	w := &World{
		cfg:         cfg,
		wl:          wl,
		opt:         opt,
		period:      int64(math.Round(1e9 / hz)),
		hostBase:    host,
		base:        int64(opt.bootUptime),
		now:         int64(opt.bootUptime),
		bootWall:    host.Add(-opt.bootUptime),
		bootID:      strings.TrimSpace(randomUUID()),
		nextPid:     4000 + int(opt.bootUptime/time.Second)%9000,
		launchAt:    -1,
		displayAt:   -1,
		fullyAt:     -1,
		crashAt:     -1,
		compile:     installed,
		traffic:     map[int]*uidTraffic{},
		setProps:    map[string]string{},
		recorders:   map[int]*recorder{},
		frameBlocks: map[int64][]TruthBlock{},
		logWake:     make(chan struct{}),
		stop:        make(chan struct{}),
		stopped:     make(chan struct{}),
	}
	w.speed = 1
	w.noise = newWorldNoise(cfg.Noise)
	if rp != nil {
		w.replay, w.speed = rp, rp.speed
		// The app runs from the start, under the capture's pid.
		w.nextPid = rp.pid - 7 - int(w.now/int64(time.Millisecond))%13
	}
	w.boot()
	if rp != nil {
		w.launchLocked(w.now)
	}
	if opt.ticker > 0 {
		go w.tick(opt.ticker)
	} else {
		close(w.stopped)
	}
	return w, nil
}

// boot sets the device's state as it boots: the app's window and layer,
// frames, CPUs, battery, traffic, the boot logs and the truth writer.
func (w *World) boot() {
	cfg, wl := w.cfg, w.wl
	w.window = wl.component()
	w.layer = format.AppLayer(cfg.API, wl.component())
	w.gfx.reset(w.now)
	w.popup.reset(w.now)
	w.cpu.init(cfg.Cores, cfg.online(), w.now)
	w.battery = batteryState{level: 78}
	w.initTraffic()
	w.bootLogs()
	if cfg.Truth != nil {
		w.truthW = bufio.NewWriterSize(cfg.Truth, 64<<10)
	}
}

// resolveWorkload is the workload the world runs: the replay's, the
// config's (validated, copied) or the smooth-scroll preset.
func resolveWorkload(cfg Config) (*Workload, *replay, error) {
	wl := cfg.Workload
	var rp *replay
	if cfg.Replay != nil {
		var err error
		if rp, err = newReplay(cfg.Replay); err != nil {
			return nil, nil, err
		}
		wl = replayWorkload(rp)
	}
	if wl == nil {
		p, err := Preset("smooth-scroll")
		if err != nil {
			return nil, nil, err
		}
		return p, rp, nil
	}
	if err := wl.Validate(); err != nil {
		return nil, nil, err
	}
	return wl.clone(), rp, nil
}

// setDefaults fills the refresh rate (the workload's, else 60 Hz), the
// cores and the API level the config leaves zero, and returns the rate.
func (cfg *Config) setDefaults(wl *Workload) float64 {
	hz := cfg.RefreshHz
	if hz == 0 {
		hz = wl.RefreshHz
	}
	if hz == 0 {
		hz = 60
	}
	if cfg.Cores <= 0 {
		cfg.Cores = DefaultCores
	}
	if cfg.API == 0 {
		cfg.API = DefaultAPI
	}
	cfg.RefreshHz = hz
	return hz
}

// tick advances the simulation and flushes the truth writer until Close, so
// the truth file grows even when nobody queries the device.
func (w *World) tick(every time.Duration) {
	defer close(w.stopped)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			w.mu.Lock()
			w.advanceLocked()
			w.flushTruthLocked()
			w.mu.Unlock()
		}
	}
}

// Close stops the background ticker and flushes the truth writer. Calling it
// again does nothing.
func (w *World) Close() {
	w.closeMu.Do(func() {
		close(w.stop)
		<-w.stopped
		w.mu.Lock()
		w.advanceLocked()
		w.flushTruthLocked()
		w.mu.Unlock()
	})
}

// Uptime is the device's monotonic clock (CLOCK_MONOTONIC) now.
func (w *World) Uptime() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	return time.Duration(w.now)
}

// Wall is the device's wall clock (CLOCK_REALTIME) now: the time logcat
// stamps lines with and `date` prints.
func (w *World) Wall() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	return w.bootWall.Add(time.Duration(w.now)).UTC()
}

// Package is the workload app's package name.
func (w *World) Package() string { return w.wl.Package }

// Workload returns the app's workload. Callers must not modify it.
func (w *World) Workload() *Workload { return w.wl }

// RefreshPeriod is the display's vsync period.
func (w *World) RefreshPeriod() time.Duration { return time.Duration(w.period) }

// Skip moves the phone's clocks d ahead at once, as if d had passed in an
// instant: the simulation runs through those d as it would have (the app
// draws, counters grow, logs are written), and uptime, the wall clock and
// every timestamp after it are d later. It is for tests of what waits on
// the phone's own time, such as a lease on the phone running out, without
// waiting for it on the host. d <= 0 does nothing.
func (w *World) Skip(d time.Duration) {
	if d <= 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	w.skipped += int64(d)
	w.advanceLocked()
}

// hostNow maps the host clock to device uptime.
func (w *World) hostNow() int64 {
	return w.base + w.skipped + int64(float64(w.opt.now().Sub(w.hostBase))*w.speed)
}

// advanceLocked brings the simulation to the current host time.
func (w *World) advanceLocked() { w.advanceToLocked(w.hostNow()) }

// advanceToLocked runs the simulation in segments that end at every event
// (phase end, crash, Displayed), so rates apply to the phase they belong to.
func (w *World) advanceToLocked(t int64) {
	for w.now < t {
		end := t
		for _, ev := range [...]int64{w.displayAt, w.crashAt, w.fullyAt, w.phaseEndLocked()} {
			if ev > w.now && ev < end {
				end = ev
			}
		}
		w.accumulateLocked(w.now, end)
		w.renderLocked(end)
		w.now = end
		w.eventsLocked()
	}
	w.presentLocked(w.now)
}

// phaseEndLocked is when the current phase ends, or -1.
func (w *World) phaseEndLocked() int64 {
	if w.phase == nil || w.phase.DurationMs == 0 {
		return -1
	}
	return w.phaseStart + int64(w.phase.DurationMs)*int64(time.Millisecond)
}

// eventsLocked handles the events due at w.now.
func (w *World) eventsLocked() {
	now := w.now
	if w.displayAt >= 0 && now >= w.displayAt {
		w.displayedLocked()
	}
	if w.fullyAt >= 0 && now >= w.fullyAt {
		w.fullyAt = -1
		if w.app != nil {
			w.fullyDrawnLocked(now)
			w.logLocked(now, 1000, 1100, 'I', w.amTag(), fmt.Sprintf("Fully drawn %s: +%s", w.wl.shortComponent(), fmtLogDuration(time.Duration(now-w.launchAtOrNow()))))
		}
	}
	if w.crashAt >= 0 && now >= w.crashAt {
		w.crashLocked()
	}
	if end := w.phaseEndLocked(); end >= 0 && now >= end {
		next := w.wl.phase(w.phase.Next)
		if w.phase.Next == "" {
			next = nil
		}
		w.startPhaseLocked(next, end)
	}
}

func (w *World) launchAtOrNow() int64 {
	if w.launchAt >= 0 {
		return w.launchAt
	}
	return w.now
}

// startPhaseLocked makes p (nil: idle) the app's current phase from t.
func (w *World) startPhaseLocked(p *Phase, t int64) {
	w.phase = p
	w.phaseStart = t
	w.phaseFrames = 0
	w.crashAt = -1
	if p != nil && p.Crash != nil {
		w.crashAt = t + int64(p.Crash.AfterMs)*int64(time.Millisecond)
	}
	if first := w.gridAtOrAfter(t); first > w.nextVsync {
		w.nextVsync = first
	}
	w.setThreadLoads(p)
}

// gridAtOrAfter is the first vsync at or after t; vsyncs fall on multiples
// of the period since uptime 0.
func (w *World) gridAtOrAfter(t int64) int64 {
	return (t + w.period - 1) / w.period * w.period
}

// Screen returns the simulated display the uiautomator2 server drives.
func (w *World) Screen() uia2.Screen { return uiaScreen{w} }

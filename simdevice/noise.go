package simdevice

import (
	"context"
	"fmt"
	"math"
	"time"
)

// Noise makes a simulated phone vary as a real one does, so that a
// regression gate can be tried on telling a regression from noise. The
// zero value is no noise: every run of a workload gives the same figures.
//
// Noise has two parts, each a strictly positive lognormal factor of mean 1
// whose standard deviation is given in percent:
//
//   - The run part (RunPct) is drawn once per Device, as a phone differs
//     from one test run to the next (thermal state, background load). It
//     multiplies the app's frame work times, its threads' CPU loads, its
//     memory sizes (the workload's KiB and its growth rates) and its launch
//     times (cold, warm, hot and fully drawn). RunPct 5 means the factor's
//     standard deviation is 5 %: a run lands within ±10 % (±2·RunPct %) of
//     the mean in about 95 % of runs.
//   - The sample part (FramePct) is drawn afresh for every frame's work
//     time, every CPU tick's (10 ms of device time) load of each thread
//     and every launch. FramePct 10 means a frame's work time has a
//     standard deviation of 10 % around the run's value. Memory has no
//     sample part: a phone's PSS moves with what the app allocates, not
//     from one read to the next, and jitter there would drown every
//     growth slope.
//
// Every draw derives from Seed and from what it is for and an index (the
// frame's ordinal, the tick, the launch's ordinal), never from a sequence,
// so the same seed gives the same phone however often and in whatever order
// the simulation is polled. Network traffic has no noise.
//
// The truth is the noisy figures: TruthFrame, TruthStartup and TruthTotals
// hold what the phone produced with the noise, so measurements compare
// with them as without noise.
type Noise struct {
	// Seed is where every draw derives from: the same seed gives the same
	// phone, another seed another run.
	Seed int64 `json:"seed"`
	// FramePct is the standard deviation, in percent, of the independent
	// factor on each frame's work time, each CPU tick's thread loads and
	// each launch's times (0 to MaxNoisePct).
	FramePct float64 `json:"frame_pct"`
	// RunPct is the standard deviation, in percent, of the factor drawn once
	// per Device that scales frame work, CPU loads, memory and launch times
	// alike (0 to MaxNoisePct).
	RunPct float64 `json:"run_pct"`
}

// MaxNoisePct bounds Noise.FramePct and Noise.RunPct: beyond it the factors
// no longer look like a phone's variation.
const MaxNoisePct = 50

// enabled reports whether the noise changes anything.
func (n Noise) enabled() bool { return n.FramePct > 0 || n.RunPct > 0 }

// validate names the first field out of range.
func (n Noise) validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"FramePct", n.FramePct}, {"RunPct", n.RunPct}} {
		// Written so that NaN fails too.
		if !(f.v >= 0 && f.v <= MaxNoisePct) {
			return fmt.Errorf("simdevice: config: Noise.%s %g out of range 0..%d (percent)", f.name, f.v, MaxNoisePct)
		}
	}
	return nil
}

// RunFactor is the factor this seed's run multiplies frame work times, CPU
// loads, memory sizes and launch times by: a lognormal draw of mean 1 and
// standard deviation RunPct %, exactly 1 when RunPct is 0.
func (n Noise) RunFactor() float64 {
	if n.RunPct <= 0 {
		return 1
	}
	return newLogNormal(n.RunPct).at(normalDraw(uint64(n.Seed), drawRun, 0, 0))
}

// What a draw is for; each keys its own stream of draws.
const (
	drawRun uint64 = iota + 1
	drawFrame
	drawPopup
	drawCPU
	drawLaunch
)

// mix64 is SplitMix64's finaliser: a bijective hash whose outputs pass as
// independent uniform 64-bit numbers for consecutive inputs.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// normalDraw is a standard normal number determined by (seed, what, i, j)
// alone (Box–Muller on two hashed uniforms).
func normalDraw(seed, what uint64, i, j int64) float64 {
	h := mix64(mix64(mix64(mix64(seed)^what)^uint64(i)) ^ uint64(j))
	u1 := float64(h>>11+1) / (1 << 53)      // (0, 1]: the logarithm stays finite
	u2 := float64(mix64(h)>>11) / (1 << 53) // [0, 1)
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}

// logNormal is exp(mu + s·z) for a standard normal z, with mu chosen so the
// mean is 1: the factor scales a figure without biasing it.
type logNormal struct{ mu, s float64 }

// newLogNormal has mean 1 and standard deviation pct percent.
func newLogNormal(pct float64) logNormal {
	q := pct / 100
	s2 := math.Log1p(q * q)
	return logNormal{mu: -s2 / 2, s: math.Sqrt(s2)}
}

func (l logNormal) at(z float64) float64 { return math.Exp(l.mu + l.s*z) }

// worldNoise is a World's noise: the run factor and the per-sample draws.
type worldNoise struct {
	on     bool // any noise: otherwise every factor is exactly 1
	seed   uint64
	run    float64
	sample logNormal
	// perSample: FramePct > 0, so each frame, tick, read and launch draws.
	perSample bool
}

func newWorldNoise(n Noise) worldNoise {
	if !n.enabled() {
		return worldNoise{run: 1}
	}
	return worldNoise{on: true, seed: uint64(n.Seed), run: n.RunFactor(), sample: newLogNormal(n.FramePct), perSample: n.FramePct > 0}
}

// factor is the run factor times the sample draw for (what, i, j).
func (n *worldNoise) factor(what uint64, i, j int64) float64 {
	if !n.perSample {
		return n.run
	}
	return n.run * n.sample.at(normalDraw(n.seed, what, i, j))
}

// scaleNs multiplies a duration in ns by k; k == 1 leaves it untouched.
func scaleNs(d int64, k float64) int64 {
	if k == 1 {
		return d
	}
	return int64(math.Round(float64(d) * k))
}

// scaleMs multiplies a launch time by k and rounds it to a whole
// millisecond, the unit am start and the Displayed line print, so the
// printed times equal the truth's.
func scaleMs(d time.Duration, k float64) time.Duration {
	if k == 1 {
		return d
	}
	return time.Duration(math.Round(float64(d)*k/float64(time.Millisecond))) * time.Millisecond
}

// cpuTickNs is one USER_HZ clock tick: the span a thread's noisy load holds.
const cpuTickNs = int64(time.Second) / userHZ

// threadBusyTicks is the clock ticks a thread with load pct (percent of one
// core) is busy over [from, to). With per-sample noise every tick since the
// world started has its own factor per thread (j is the thread's index in
// its process), so the sum does not depend on how the span is cut into
// segments. A thread never exceeds one core.
func (w *World) threadBusyTicks(from, to int64, j int, pct float64) float64 {
	n := &w.noise
	if !n.on || pct <= 0 {
		return pct / 100 * (float64(to-from) / 1e9 * userHZ)
	}
	if !n.perSample {
		return min(pct*n.run, 100) / 100 * (float64(to-from) / 1e9 * userHZ)
	}
	var busy float64
	for t := from; t < to; {
		k := (t - w.base) / cpuTickNs
		end := min(to, w.base+(k+1)*cpuTickNs)
		load := min(pct*n.factor(drawCPU, k, int64(j)), 100)
		busy += load / 100 * float64(end-t) / float64(cpuTickNs)
		t = end
	}
	return busy
}

// SimulateFrames runs cfg's workload on a phone of its own, on a simulated
// clock, and returns the frames it presents in d of device time: it launches
// the app cold, waits until it is displayed, then lets d pass and returns
// every frame presented in that span (the launch phase's, such as a scroll;
// not the window's first frame, done at Displayed, which the launch draws),
// oldest first, as Config.Truth would receive them (cfg.Truth, when set,
// receives them too). The device clock starts at a fixed uptime, so the
// same cfg gives the same frames; with Config.Noise each seed is one run.
//
// It takes about half a millisecond of host time per second of device
// time, never d of wall time, for statistical tests that need hundreds of
// runs. Config.Replay is not supported: a capture plays only when read.
func SimulateFrames(cfg Config, d time.Duration) ([]TruthFrame, error) {
	if d < 0 {
		return nil, fmt.Errorf("simdevice: simulate frames: duration %v < 0", d)
	}
	if cfg.Replay != nil {
		return nil, fmt.Errorf("simdevice: simulate frames: Config.Replay is not supported")
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	// The host clock stands still: the simulation is advanced by hand below,
	// and nothing else advances it.
	host := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	w, err := newWorldWith(cfg, worldOptions{
		now:        func() time.Time { return host },
		sleep:      func(context.Context, time.Duration) error { return nil },
		bootUptime: simulateBoot,
	})
	if err != nil {
		return nil, fmt.Errorf("simdevice: simulate frames: %w", err)
	}
	defer w.Close()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.launchLocked(w.now)
	start := w.displayAt
	w.advanceToLocked(start)
	first := w.frameCount
	end := start + int64(d)
	var out []TruthFrame
	// Step a few seconds at a time so that the World's bounded frame list
	// never drops a frame before it is collected.
	const step = int64(10 * time.Second)
	for t := start; t < end; {
		t = min(end, t+step)
		w.advanceToLocked(t)
		k := len(w.frames)
		for k > 0 && w.frames[k-1].Index >= first {
			k--
		}
		for _, f := range w.frames[k:] {
			if !f.First { // the launch's, not the phase's
				out = append(out, f)
			}
		}
		first = w.frameCount
	}
	return out, nil
}

// simulateBoot is the uptime SimulateFrames' phone starts at: 3h17m, on the
// 60 Hz and 120 Hz vsync grids.
const simulateBoot = 3*time.Hour + 17*time.Minute

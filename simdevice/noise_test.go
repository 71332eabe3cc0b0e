package simdevice

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// meanSD is the mean and the sample standard deviation of xs.
func meanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(xs)-1))
}

// simulate is SimulateFrames for a preset, failing the test on an error.
func simulate(t testing.TB, preset string, api int, n Noise, d time.Duration) []TruthFrame {
	t.Helper()
	fr, err := SimulateFrames(Config{API: api, Workload: mustPreset(t, preset), Noise: n}, d)
	if err != nil {
		t.Fatal(err)
	}
	if len(fr) == 0 {
		t.Fatalf("%s: no frames in %v", preset, d)
	}
	return fr
}

// ratios is each of the first n noisy frames' duration over the noiseless
// frame of the same place in the phase: the frame's noise factor. The
// noisy launch moves the phase's start, and with it how many frames the
// span holds by one, but normal frames must stay on the vsyncs they had
// relative to the first.
func ratios(t testing.TB, noisy, base []TruthFrame, n int) []float64 {
	t.Helper()
	if len(noisy) < n || len(base) < n {
		t.Fatalf("%d noisy frames, %d without noise, want %d", len(noisy), len(base), n)
	}
	out := make([]float64, n)
	for i := range n {
		if a, b := noisy[i].IntendedVsync-noisy[0].IntendedVsync, base[i].IntendedVsync-base[0].IntendedVsync; a != b {
			t.Fatalf("frame %d on vsync +%d with noise, +%d without", i, a, b)
		}
		out[i] = float64(noisy[i].Duration) / float64(base[i].Duration)
	}
	return out
}

// A zero Noise, whatever its seed, is no noise: the frames, the launch,
// the CPU and the memory are the same as without the field, and normal
// frames last what the workload model says.
func TestNoiseZeroIsNone(t *testing.T) {
	for _, preset := range []string{"smooth-scroll", "janky-scroll", "janky-feed", "memory-leak"} {
		plain := simulate(t, preset, 33, Noise{}, 4*time.Second)
		seeded := simulate(t, preset, 33, Noise{Seed: 12345}, 4*time.Second)
		if !reflect.DeepEqual(plain, seeded) {
			t.Errorf("%s: frames with Noise{Seed: 12345} differ from frames without noise", preset)
		}
	}
	// smooth-scroll's normal frames last 45 % of a period with a ±10 %
	// sine wobble over the frame's index in its phase.
	const period = 16_666_667
	for i, f := range simulate(t, "smooth-scroll", 33, Noise{Seed: 3}, 2*time.Second) {
		if want := int64(float64(period) * 0.45 * (1 + 0.1*math.Sin(float64(i)))); f.Duration != want {
			t.Fatalf("frame %d lasts %d ns, want %d", i, f.Duration, want)
		}
	}

	// A device driven by commands: the same truth, output and dumps.
	run := func(n Noise) (TruthTotals, string) {
		w, clk := newTestWorld(t, Config{Workload: mustPreset(t, "memory-leak"), Noise: n})
		var o, e bytes.Buffer
		w.Am(context.Background(), strings.Fields("start -W -n "+PresetPackage+"/.MainActivity"), &o, &e)
		clk.advance(5 * time.Second)
		o.WriteString(wdumpsys(w, "meminfo", PresetPackage))
		return w.Truth(), o.String()
	}
	t0, o0 := run(Noise{})
	t1, o1 := run(Noise{Seed: 99})
	if !reflect.DeepEqual(t0, t1) || o0 != o1 {
		t.Errorf("a zero Noise with a seed changed the device:\ntruth %+v\nvs    %+v\n%s\nvs\n%s", t0, t1, o0, o1)
	}
	if t0.Startups[0].NoiseFactor != 0 {
		t.Errorf("startup noise factor %v without noise, want 0", t0.Startups[0].NoiseFactor)
	}
}

// The same seed gives the same frames; another seed other frames.
func TestNoiseSeedRepeats(t *testing.T) {
	n := Noise{Seed: 7, FramePct: 5, RunPct: 5}
	a := simulate(t, "janky-feed", 33, n, 3*time.Second)
	b := simulate(t, "janky-feed", 33, n, 3*time.Second)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("seed 7 gave two different runs")
	}
	n.Seed = 8
	c := simulate(t, "janky-feed", 33, n, 3*time.Second)
	same := 0
	for i := range min(len(a), len(c)) {
		if a[i].Duration == c[i].Duration {
			same++
		}
	}
	if same > len(a)/20 {
		t.Errorf("seeds 7 and 8 share %d of %d frame durations", same, len(a))
	}
}

// With RunPct 5 and no per-frame noise every frame of a run is the
// noiseless frame times the run's factor, and over many runs the mean
// normal-frame duration varies with a coefficient of variation of 5 %.
func TestNoiseRunSpread(t *testing.T) {
	const runs = 1000
	base := simulate(t, "smooth-scroll", 33, Noise{}, 300*time.Millisecond)
	// Every run's mean is over the same first frames of the scroll, so the
	// model's wobble over the frame index is the same in each.
	nf := len(base) - 2
	baseMean := 0.0
	for _, f := range base[:nf] {
		baseMean += float64(f.Duration)
	}
	baseMean /= float64(nf)
	means := make([]float64, runs)
	for s := range runs {
		n := Noise{Seed: int64(s + 1), RunPct: 5}
		fr := simulate(t, "smooth-scroll", 33, n, 300*time.Millisecond)
		k := n.RunFactor()
		for i, r := range ratios(t, fr, base, nf) {
			// Durations are whole ns: the ratio is k within a ns.
			if math.Abs(r-k)*float64(base[i].Duration) > 1 {
				t.Fatalf("seed %d frame %d: factor %.6f, want the run factor %.6f", n.Seed, i, r, k)
			}
		}
		for _, f := range fr[:nf] {
			means[s] += float64(f.Duration)
		}
		means[s] /= float64(nf)
	}
	m, sd := meanSD(means)
	cv := sd / m * 100
	// The sample CV of n draws has a standard error of about CV/√(2n):
	// 0.11 points here; the tolerance is three of them.
	tol := 3 * 5 / math.Sqrt(2*runs)
	t.Logf("run means: CV %.3f %% (want 5 ± %.2f), mean/noiseless %.4f", cv, tol, m/baseMean)
	if math.Abs(cv-5) > tol {
		t.Errorf("run means' CV %.3f %%, want 5 ± %.2f", cv, tol)
	}
	if se := 0.05 / math.Sqrt(runs); math.Abs(m/baseMean-1) > 3*se {
		t.Errorf("mean of run means %.4f of the noiseless mean, want 1 ± %.4f", m/baseMean, 3*se)
	}
}

// With FramePct 10 and no run noise, frames within one run vary by 10 %
// around the noiseless frames and runs' means agree as closely as a mean
// of that many frames should.
func TestNoiseFrameSpread(t *testing.T) {
	const runs = 200
	const q = 0.10
	base := simulate(t, "smooth-scroll", 33, Noise{}, time.Second)
	base = base[:len(base)-2] // see ratios
	var sumB, sumB2 float64
	for _, f := range base {
		b := float64(f.Duration)
		sumB += b
		sumB2 += b * b
	}
	nf := float64(len(base))
	var pooled, runMeans, rawCVs []float64
	var cvSum float64
	for s := range runs {
		fr := simulate(t, "smooth-scroll", 33, Noise{Seed: int64(s + 1), FramePct: 10}, time.Second)[:len(base)]
		r := ratios(t, fr, base, len(base))
		pooled = append(pooled, r...)
		m, sd := meanSD(r)
		cvSum += sd / m
		raw := make([]float64, len(fr))
		for i, f := range fr {
			raw[i] = float64(f.Duration)
		}
		rm, rsd := meanSD(raw)
		runMeans = append(runMeans, rm)
		rawCVs = append(rawCVs, rsd/rm)
	}
	// Each frame's factor: mean 1, SD 10 % (pooled over 11,800 frames,
	// standard error of the SD about 0.07 points).
	pm, psd := meanSD(pooled)
	if tol := 3 * 10 / math.Sqrt(2*float64(len(pooled))); math.Abs(psd*100-10) > tol || math.Abs(pm-1) > 3*q/math.Sqrt(float64(len(pooled))) {
		t.Errorf("frame factors: mean %.4f SD %.3f %%, want 1 and 10 ± %.2f", pm, psd*100, tol)
	}
	// Within one run (59 frames): the CV of the factors averages 10 %.
	within := cvSum / runs * 100
	if math.Abs(within-10) > 0.3 {
		t.Errorf("mean within-run CV of the frame factors %.2f %%, want 10 ± 0.3", within)
	}
	// The raw durations also carry the model's sine wobble: with factors
	// of mean 1 and E[k²] = 1 + q², their expected CV within a run is
	// √(mean(b²)(1+q²) − mean(b)²) / mean(b) over the noiseless b.
	mb, mb2 := sumB/nf, sumB2/nf
	wantRaw := math.Sqrt(mb2*(1+q*q)-mb*mb) / mb
	rawCV, _ := meanSD(rawCVs)
	if math.Abs(rawCV-wantRaw) > 0.005 {
		t.Errorf("raw within-run CV %.4f, want %.4f", rawCV, wantRaw)
	}
	// A run's mean is Σ bᵢkᵢ / n: its CV is q·√Σb² / Σb, about 1.3 %.
	wantMeanCV := q * math.Sqrt(sumB2) / sumB
	m, sd := meanSD(runMeans)
	tol := 3 * wantMeanCV / math.Sqrt(2*runs)
	t.Logf("frame factors: SD %.3f %% pooled, %.3f %% within a run; raw CV %.4f (want %.4f); run means CV %.3f %% (want %.3f ± %.3f)",
		psd*100, within, rawCV, wantRaw, sd/m*100, wantMeanCV*100, tol*100)
	if math.Abs(sd/m-wantMeanCV) > tol {
		t.Errorf("run means' CV %.3f %%, want %.3f ± %.3f", sd/m*100, wantMeanCV*100, tol*100)
	}
	for i, rm := range runMeans {
		if math.Abs(rm/mb-1) > 5*wantMeanCV {
			t.Errorf("run %d: mean %.0f ns, %.1f %% off the noiseless %.0f", i+1, rm, (rm/mb-1)*100, mb)
		}
	}
}

var totalTimeRE = regexp.MustCompile(`TotalTime: (\d+)`)

// amStartW cold-starts the app with am start -W and returns TotalTime.
func amStartW(t *testing.T, w *World) time.Duration {
	t.Helper()
	var o, e bytes.Buffer
	if st := w.Am(context.Background(), strings.Fields("start -S -W -n "+PresetPackage+"/.MainActivity"), &o, &e); st != 0 {
		t.Fatalf("am start: %d %s %s", st, o.String(), e.String())
	}
	m := totalTimeRE.FindStringSubmatch(o.String())
	if m == nil {
		t.Fatalf("am start -W printed no TotalTime:\n%s", o.String())
	}
	ms, _ := strconv.Atoi(m[1])
	return time.Duration(ms) * time.Millisecond
}

// msTimes rounds d·k to a whole millisecond, as the device prints launches.
func msTimes(d time.Duration, k float64) time.Duration {
	return time.Duration(math.Round(float64(d.Milliseconds())*k)) * time.Millisecond
}

// With run noise alone, launch times, CPU loads and memory sizes are the
// workload's times the run factor, as am start, logcat and the truth say.
func TestNoiseRunScalesLaunchCPUMemory(t *testing.T) {
	wl := mustPreset(t, "smooth-scroll")
	for seed := int64(1); seed <= 6; seed++ {
		n := Noise{Seed: seed, RunPct: 8}
		k := n.RunFactor()
		w, clk := newTestWorld(t, Config{Workload: wl, Noise: n})
		total := amStartW(t, w)
		st := w.Truth().Startups[0]
		wantD, wantF := msTimes(650*time.Millisecond, k), msTimes(900*time.Millisecond, k)
		if total != wantD || st.Displayed != wantD || st.FullyDrawn != wantF || st.NoiseFactor != k {
			t.Errorf("seed %d (factor %.4f): TotalTime %v, truth displayed %v fully drawn %v factor %v; want %v, %v, %v",
				seed, k, total, st.Displayed, st.FullyDrawn, st.NoiseFactor, wantD, wantF, k)
		}
		clk.advance(time.Second) // past Fully drawn
		var o, e bytes.Buffer
		w.Logcat(context.Background(), []string{"-d"}, &o, &e)
		for _, line := range []string{"Displayed " + PresetPackage + "/.MainActivity: +" + fmtLogDuration(wantD),
			"Fully drawn " + PresetPackage + "/.MainActivity: +" + fmtLogDuration(wantF)} {
			if !strings.Contains(o.String(), line) {
				t.Errorf("seed %d: logcat lacks %q", seed, line)
			}
		}
		// 10 s of scrolling: main 35 %, RenderThread 20 %, Jit 2 % of a
		// core, times k, in 10 ms ticks (each thread's utime and stime are
		// truncated apart: within 2 ticks).
		before := w.Truth()
		clk.advance(10 * time.Second)
		after := w.Truth()
		for name, pct := range map[string]float64{"main": 35, "RenderThread": 20, "Jit thread pool": 2} {
			got := after.ThreadTicks[name] - before.ThreadTicks[name]
			if want := pct * k * 10; math.Abs(float64(got)-want) > 2 {
				t.Errorf("seed %d: %s used %d ticks in 10 s, want %.1f (%g %% × %.4f)", seed, name, got, want, pct, k)
			}
		}
		m := wl.Memory
		kib := func(v int) int64 { return int64(math.Round(float64(v) * k)) }
		pss := kib(m.JavaKiB) + kib(m.NativeKiB) + kib(m.CodeKiB) + kib(m.GraphicsKiB) + kib(m.OtherKiB)
		if after.PSSKiB != pss || after.RSSKiB != pss+kib(m.RSSExtraKiB) || after.JavaKiB != kib(m.JavaKiB) {
			t.Errorf("seed %d: PSS %d RSS %d Java %d KiB, want %d, %d, %d", seed, after.PSSKiB, after.RSSKiB, after.JavaKiB,
				pss, pss+kib(m.RSSExtraKiB), kib(m.JavaKiB))
		}
	}
}

// With per-sample noise every launch draws its own factor (SD FramePct %)
// around the run's, CPU loads vary per tick and so average out, memory
// reads do not jitter (they scale by the run's factor alone), and what the
// device prints at an instant is the truth of that instant.
func TestNoiseSamplesLaunchCPUMemory(t *testing.T) {
	n := Noise{Seed: 5, FramePct: 5, RunPct: 5}
	k := n.RunFactor()
	wl := mustPreset(t, "memory-leak")
	w, clk := newTestWorld(t, Config{Workload: wl, Noise: n})
	const launches = 60
	var factors []float64
	for range launches {
		total := amStartW(t, w)
		tr := w.Truth()
		st := tr.Startups[len(tr.Startups)-1]
		if total != st.Displayed || st.Displayed != msTimes(650*time.Millisecond, st.NoiseFactor) {
			t.Fatalf("TotalTime %v, truth %v, want 650 ms × %.4f", total, st.Displayed, st.NoiseFactor)
		}
		factors = append(factors, st.NoiseFactor/k)
		clk.advance(200 * time.Millisecond)
	}
	lm, lsd := meanSD(factors)
	// 60 launches: the SD's standard error is about 0.46 points.
	if math.Abs(lsd*100-5) > 1.5 || math.Abs(lm-1) > 3*0.05/math.Sqrt(launches) {
		t.Errorf("launch factors over the run's: mean %.4f SD %.2f %%, want 1 and 5 ± 1.5", lm, lsd*100)
	}

	// CPU: 10 s = 1000 ticks of 5 % noise each average to 35 % × k within
	// 0.16 % (one SD); 1 % is six SDs.
	before := w.Truth()
	clk.advance(10 * time.Second)
	after := w.Truth()
	got := float64(after.ThreadTicks["main"] - before.ThreadTicks["main"])
	if want := 35 * k * 10; math.Abs(got/want-1) > 0.01 {
		t.Errorf("main used %.0f ticks in 10 s, want %.1f within 1 %%", got, want)
	}

	// Memory: meminfo and the truth agree at each read, and once the app
	// stopped growing every read is the same: no jitter from read to read.
	w.Input(strings.Fields("tap 540 2270"), new(bytes.Buffer), new(bytes.Buffer)) // Stop: no more growth
	clk.advance(time.Second)
	var reads []float64
	for i := range 400 {
		dump := wdumpsys(w, "meminfo", PresetPackage)
		tr := w.Truth()
		if !regexp.MustCompile(`TOTAL PSS:\s+` + strconv.FormatInt(tr.PSSKiB, 10) + `\b`).MatchString(dump) {
			t.Fatalf("read %d: meminfo does not show the truth's PSS %d:\n%s", i, tr.PSSKiB, dump)
		}
		reads = append(reads, float64(tr.PSSKiB))
		clk.advance(50 * time.Millisecond)
	}
	_, sd := meanSD(reads)
	t.Logf("launch factors SD %.2f %%; 400 PSS reads: SD %.2f KiB", lsd*100, sd)
	if sd != 0 {
		t.Errorf("PSS reads of an app that no longer grows differ: SD %.2f KiB", sd)
	}
}

// An ANR's frame keeps its configured length under noise, so the system
// still reports the app not responding five seconds into its work, even
// on a run whose factor would cut the 6 s freeze below 5 s.
func TestNoiseKeepsANR(t *testing.T) {
	n := Noise{RunPct: 50, FramePct: 5}
	for n.RunFactor() > 0.8 {
		n.Seed++
	}
	w, clk := newTestWorld(t, Config{Workload: mustPreset(t, "janky-feed"), Noise: n})
	wlaunch(t, w)
	clk.advance(2 * time.Second)
	w.Input(strings.Fields("tap 880 2270"), new(bytes.Buffer), new(bytes.Buffer)) // Save
	clk.advance(10 * time.Second)
	var anr *TruthFrame
	for _, f := range w.TruthFrames() {
		if f.Cause == "commit" {
			anr = &f
		}
	}
	if anr == nil || anr.Duration != int64(6*time.Second) {
		t.Fatalf("seed %d (run factor %.3f): the Save freeze %+v, want a 6 s frame", n.Seed, n.RunFactor(), anr)
	}
	if out := wdumpsys(w, "dropbox", "data_app_anr"); !strings.Contains(out, "data_app_anr") {
		t.Errorf("seed %d: no ANR in dropbox:\n%s", n.Seed, out)
	}
}

// janky-scroll's slow frames stay slow under moderate noise: each 3 s loop
// misses the same 3 deadlines as without noise, on API 33 (two-period
// deadline) and API 30 (one period), and only its slow frames miss.
func TestNoiseKeepsJankyScrollJanky(t *testing.T) {
	for _, api := range []int{33, 30} {
		perLoop := func(fr []TruthFrame) map[int64]int {
			loops := map[int64]int{}
			for _, f := range fr {
				if f.Missed != f.Slow {
					t.Fatalf("API %d: frame %d slow %v missed %v (%d ns)", api, f.Index, f.Slow, f.Missed, f.Duration)
				}
				if f.Missed {
					loops[(f.IntendedVsync-fr[0].IntendedVsync)/int64(3*time.Second)]++
				}
			}
			return loops
		}
		want := perLoop(simulate(t, "janky-scroll", api, Noise{}, 9*time.Second))
		if !reflect.DeepEqual(want, map[int64]int{0: 3, 1: 3, 2: 3}) {
			t.Fatalf("API %d without noise: misses per loop %v, want 3 in each of 3", api, want)
		}
		for s := int64(1); s <= 30; s++ {
			if got := perLoop(simulate(t, "janky-scroll", api, Noise{Seed: s, FramePct: 5, RunPct: 5}, 9*time.Second)); !reflect.DeepEqual(got, want) {
				t.Errorf("API %d seed %d: misses per loop %v, want %v", api, s, got, want)
			}
		}
	}
}

// The draws do not depend on how the simulation is advanced or polled: a
// device stepped in 7 ms slices with reads between renders what one
// advanced in one go does.
func TestNoiseIndependentOfPolling(t *testing.T) {
	cfg := Config{Workload: mustPreset(t, "janky-feed"), Noise: Noise{Seed: 11, FramePct: 10, RunPct: 5}}
	a, clkA := newTestWorld(t, cfg)
	b, clkB := newTestWorld(t, cfg)
	wlaunch(t, a)
	wlaunch(t, b)
	clkA.advance(6 * time.Second)
	for range 6000 / 7 {
		clkB.advance(7 * time.Millisecond)
		b.Truth()
		wdumpsys(b, "gfxinfo", PresetPackage, "framestats")
	}
	clkB.advance(6*time.Second - 6000/7*7*time.Millisecond)
	fa, fb := a.TruthFrames(), b.TruthFrames()
	if len(fa) < 250 || !reflect.DeepEqual(fa, fb) {
		t.Errorf("%d frames in one go, %d polled; the frames differ", len(fa), len(fb))
	}
	ta, tb := a.Truth(), b.Truth()
	if !reflect.DeepEqual(ta.Startups, tb.Startups) || ta.PSSKiB != tb.PSSKiB {
		t.Errorf("startups %+v / %+v, PSS %d / %d", ta.Startups, tb.Startups, ta.PSSKiB, tb.PSSKiB)
	}
	for name, ticks := range ta.ThreadTicks {
		// Float sums over other slices of time may round differently.
		if d := ticks - tb.ThreadTicks[name]; d < -1 || d > 1 {
			t.Errorf("%s: %d ticks in one go, %d polled", name, ticks, tb.ThreadTicks[name])
		}
	}
}

// SimulateFrames returns the frames a phone driven the usual way (monkey,
// then the clock) presents in the same span, and writes the truth stream
// that phone writes.
func TestSimulateFramesMatchesTruthStream(t *testing.T) {
	const d = 4 * time.Second
	for _, n := range []Noise{{}, {Seed: 21, FramePct: 8, RunPct: 6}} {
		var simTruth, devTruth bytes.Buffer
		cfg := Config{Workload: mustPreset(t, "janky-feed"), Noise: n}
		cfg.Truth = &simTruth
		fr, err := SimulateFrames(cfg, d)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Truth = &devTruth
		w, clk := newTestWorld(t, cfg)
		wlaunch(t, w)
		w.mu.Lock()
		displayAt := w.displayAt
		w.mu.Unlock()
		clk.advance(time.Duration(displayAt) + d - w.Uptime())
		w.Close()
		if simTruth.String() != devTruth.String() || simTruth.Len() == 0 {
			t.Errorf("noise %+v: SimulateFrames wrote %d bytes of truth, the device %d; they differ", n, simTruth.Len(), devTruth.Len())
		}
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(simTruth.String()), "\n") {
			// Blocks, and the launch's first frame, are not the phase's frames.
			if !strings.HasPrefix(l, `{"block":`) && !strings.Contains(l, `"first":true`) {
				lines = append(lines, l)
			}
		}
		if len(lines) != len(fr) {
			t.Fatalf("noise %+v: %d frames returned, %d in the truth stream", n, len(fr), len(lines))
		}
		slow := 0
		for i, f := range fr {
			b, _ := json.Marshal(f)
			if string(b) != lines[i] {
				t.Fatalf("frame %d: returned %s\ntruth %s", i, b, lines[i])
			}
			if f.Slow {
				slow++
			}
		}
		// janky-feed: 5 slow frames in the 3 s loop, and the next loop's
		// first four by 4 s.
		if slow != 9 {
			t.Errorf("noise %+v: %d slow frames in %v, want 9", n, slow, d)
		}
	}
}

// New and SimulateFrames refuse noise out of range, naming the field.
func TestNoiseValidation(t *testing.T) {
	for _, c := range []struct {
		n    Noise
		want string
	}{
		{Noise{FramePct: -1}, "Noise.FramePct -1 out of range"},
		{Noise{RunPct: 51}, "Noise.RunPct 51 out of range"},
		{Noise{FramePct: math.NaN()}, "Noise.FramePct NaN out of range"},
		{Noise{RunPct: math.Inf(1)}, "Noise.RunPct +Inf out of range"},
	} {
		if d, err := New(Config{Noise: c.n}); err == nil || !strings.Contains(err.Error(), c.want) {
			if d != nil {
				d.Close()
			}
			t.Errorf("New(%+v): %v, want %q", c.n, err, c.want)
		}
		if _, err := SimulateFrames(Config{Noise: c.n}, time.Second); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("SimulateFrames(%+v): %v, want %q", c.n, err, c.want)
		}
	}
	if _, err := New(Config{Noise: Noise{RunPct: 5}, Replay: &Replay{}}); err == nil || !strings.Contains(err.Error(), "Replay") {
		t.Errorf("New with noise and a replay: %v", err)
	}
	for _, n := range []Noise{{}, {Seed: -3, FramePct: 50, RunPct: 0.5}} {
		d, err := New(Config{Noise: n})
		if err != nil {
			t.Errorf("New(%+v): %v", n, err)
			continue
		}
		if got := d.Config().Noise; got != n {
			t.Errorf("Config().Noise %+v, want %+v", got, n)
		}
		d.Close()
	}
	if k := (Noise{Seed: 4}).RunFactor(); k != 1 {
		t.Errorf("RunFactor without RunPct %v, want 1", k)
	}
}

func BenchmarkSimulateFrames(b *testing.B) {
	wl := mustPreset(b, "janky-scroll")
	for i := 0; b.Loop(); i++ {
		fr, err := SimulateFrames(Config{Workload: wl, Noise: Noise{Seed: int64(i), FramePct: 5, RunPct: 5}}, 3*time.Second)
		if err != nil || len(fr) < 150 {
			b.Fatalf("%d frames, %v", len(fr), err)
		}
	}
}

// One run of janky-scroll on a noisy phone: every seed is a run.
func ExampleSimulateFrames() {
	wl, _ := Preset("janky-scroll")
	for _, seed := range []int64{1, 2} {
		n := Noise{Seed: seed, FramePct: 5, RunPct: 5}
		frames, err := SimulateFrames(Config{Workload: wl, Noise: n}, 3*time.Second)
		if err != nil {
			panic(err)
		}
		var sum time.Duration
		missed := 0
		for _, f := range frames {
			sum += time.Duration(f.Duration)
			if f.Missed {
				missed++
			}
		}
		fmt.Printf("seed %d: run factor %.3f, %d frames, mean %.2f ms, %d deadlines missed\n",
			seed, n.RunFactor(), len(frames), float64(sum)/float64(len(frames))/1e6, missed)
	}
	// Output:
	// seed 1: run factor 1.033, 164 frames, mean 9.34 ms, 3 deadlines missed
	// seed 2: run factor 1.071, 163 frames, mean 9.64 ms, 3 deadlines missed
}

package frames

import (
	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/android/logcat"
	"github.com/perfgate/perfgate/android/surfaceflinger"
	"math"
	"slices"
	"time"
)

// Frame math over one window of frames. Every function here implements one
// entry of "Metric definitions" in the design notes and says which; times are
// device monotonic nanoseconds (int64), periods are nanoseconds.

// frameInt64Max is the sentinel the platform prints for "no value" (a pending
// fence in SurfaceFlinger, a frame without a vsync id in hwui).
const frameInt64Max = math.MaxInt64

// Names of the jank definitions, as reports and budgets spell them.
const (
	// JankDefinitionDeadlineMissed counts frames that completed after their
	// deadline; the default where frames have durations (gfxinfo).
	JankDefinitionDeadlineMissed = "deadline_missed"
	// JankDefinitionPerfDog counts PerfDog Jank frames; the default where only
	// present times exist (SurfaceFlinger).
	JankDefinitionPerfDog = "perfdog"
)

// Sources of a Summary.
const (
	SourceSurfaceFlinger = "surfaceflinger"
	SourceGfxInfo        = "gfxinfo"
)

// Frame is one frame as a session keeps it: the row its source printed
// (gfxinfo framestats or SurfaceFlinger --latency; the other source's
// columns are zero) and the window or layer it came from. Times are device
// CLOCK_MONOTONIC nanoseconds.
type Frame struct {
	// Source is SourceGfxInfo or SourceSurfaceFlinger.
	Source string `json:"source"`
	// Window is the gfxinfo window or the SurfaceFlinger layer.
	Window string `json:"window"`
	gfxinfo.FrameStats
	surfaceflinger.LatencyFrame
}

// Time is the frame's time t in the metric definitions: IntendedVsync for
// gfxinfo, the present time B for SurfaceFlinger.
func (f Frame) Time() int64 {
	if f.Source == SourceSurfaceFlinger {
		return f.ActualPresent
	}
	return f.IntendedVsync
}

// FPS is the design's `fps` = (n − 1) / (t[n−1] − t[0]) with t in
// nanoseconds. Fewer than two frames, or a window with no elapsed time,
// give 0 rather than a division by zero.
func FPS(t []int64) float64 {
	n := len(t)
	if n < 2 {
		return 0
	}
	return frameFPS(n, t[n-1]-t[0])
}

// frameFPS is FPS of n times spanning span ns.
func frameFPS(n int, span int64) float64 {
	if n < 2 || span <= 0 {
		return 0
	}
	return float64(n-1) / (float64(span) / 1e9)
}

// Chromium holds the Chromium surface_stats_collector numbers.
type Chromium struct {
	JankCount     int   `json:"jank_count"`
	MaxFrameDelay int64 `json:"max_frame_delay"`
}

// ChromiumJank implements the design's Chromium definition: lengths L
// are consecutive differences of t, keeping only L/R ≥ 0.5; N = L/R;
// max_frame_delay = round(max N); D = consecutive differences of N;
// jank_count = number of D with 0 < round(D) < 20, round half away from zero.
// A period ≤ 0 gives the zero value.
func ChromiumJank(t []int64, period int64) Chromium {
	c, _ := frameChromium(t, period)
	return c
}

// frameChromium is ChromiumJank and the times t[i] of the frames that
// ended a counted change D.
func frameChromium(t []int64, period int64) (out Chromium, janked []int64) {
	if period <= 0 || len(t) < 2 {
		return out, nil
	}
	var a chromiumRun
	a.run(t, 1, float64(period))
	return a.result()
}

// chromiumRun is frameChromium over times that come in parts: what the
// parts read so far add up to.
type chromiumRun struct {
	out         Chromium
	janked      []int64
	maxN, prevN float64
	havePrev    bool
}

// run reads the lengths that end at t[from:] (from ≥ 1: t[from−1] is the
// time before the first) with refresh period r.
func (a *chromiumRun) run(t []int64, from int, r float64) {
	maxN, prevN, havePrev := a.maxN, a.prevN, a.havePrev
	for i := from; i < len(t); i++ {
		n := float64(t[i]-t[i-1]) / r
		if n < 0.5 {
			continue
		}
		if n > maxN {
			maxN = n
		}
		if havePrev {
			d := math.Round(n - prevN)
			if d > 0 && d < 20 {
				a.out.JankCount++
				a.janked = append(a.janked, t[i])
			}
		}
		prevN, havePrev = n, true
	}
	a.maxN, a.prevN, a.havePrev = maxN, prevN, havePrev
}

func (a *chromiumRun) result() (Chromium, []int64) {
	a.out.MaxFrameDelay = int64(math.Round(a.maxN))
	return a.out, a.janked
}

// PerfDog holds the PerfDog numbers. Which frames janked is in the
// summary's Janks.
type PerfDog struct {
	Jank    int     `json:"jank"`
	BigJank int     `json:"big_jank"`
	Stutter float64 `json:"stutter"`
}

// PerfDog thresholds: two and three film frames (24 fps) in nanoseconds.
const (
	framePerfDogJankNS    = 2 * 1e9 / 24
	framePerfDogBigJankNS = 3 * 1e9 / 24
)

// PerfDogJank implements the design's PerfDog definition: F[i] =
// t[i] − t[i−1]; frame i (i ≥ 4) is a Jank when F[i] > 2 × mean(F[i−3],
// F[i−2], F[i−1]) and F[i] > 2 × 1000/24 ms, a BigJank when additionally
// F[i] > 3 × 1000/24 ms; stutter = Σ F of Jank frames / (t[n−1] − t[0]).
func PerfDogJank(t []int64) PerfDog {
	p, _, _ := framePerfDog(t)
	return p
}

// framePerfDog is PerfDogJank and the times t[i] of the Jank and the
// BigJank frames.
func framePerfDog(t []int64) (out PerfDog, jank, big []int64) {
	var a perfDogRun
	a.run(t, 4)
	n := len(t)
	if n >= 2 {
		return a.result(t[n-1] - t[0])
	}
	return a.result(0)
}

// perfDogRun is framePerfDog over times that come in parts: what the parts
// read so far add up to.
type perfDogRun struct {
	out       PerfDog
	jank, big []int64
	jankSum   float64
}

// run judges the frames t[from:] (from ≥ 4, each after the four times
// before it in t, as frame i ≥ 4 of the definition).
func (a *perfDogRun) run(t []int64, from int) {
	jankSum := a.jankSum
	for i := from; i < len(t); i++ {
		f := float64(t[i] - t[i-1])
		sum3 := float64(t[i-1] - t[i-4]) // F[i−3] + F[i−2] + F[i−1]
		// F > 2 × sum3/3, compared as 3F > 2 × sum3 to keep exact integers exact.
		if !(3*f > 2*sum3) || !(f > framePerfDogJankNS) {
			continue
		}
		a.out.Jank++
		a.jank = append(a.jank, t[i])
		jankSum += f
		if f > framePerfDogBigJankNS {
			a.out.BigJank++
			a.big = append(a.big, t[i])
		}
	}
	a.jankSum = jankSum
}

// result is the figures of the frames read, whose times spanned span ns.
func (a *perfDogRun) result(span int64) (PerfDog, []int64, []int64) {
	if span > 0 {
		a.out.Stutter = a.jankSum / float64(span)
	}
	return a.out, a.jank, a.big
}

// Percentiles are frame times in milliseconds.
type Percentiles struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
}

// PercentilesOf implements the design's nearest-rank percentiles: the
// ⌈p/100 · m⌉-th smallest of the m values. values is not modified; the
// result is in the values' unit divided by 1e6 (ns in, ms out). No values
// give zeros.
func PercentilesOf(valuesNS []int64) Percentiles {
	m := len(valuesNS)
	if m == 0 {
		return Percentiles{}
	}
	// Four selections instead of a sort: an hour at 120 Hz is 432,000
	// values. Each selection leaves the larger values after its rank, so
	// the next one searches only those.
	return framePercentilesInPlace(slices.Clone(valuesNS))
}

// framePercentilesInPlace is PercentilesOf reordering s, which the
// caller owns, instead of a copy.
func framePercentilesInPlace(s []int64) Percentiles {
	return framePercentilesBy(s, func(k int) int64 { return s[k] })
}

// framePercentilesBy is framePercentilesInPlace over values s stands for:
// value(k) is the value of s[k] once s is ordered up to k (values that
// order as s does).
func framePercentilesBy[E int64 | uint32](s []E, value func(k int) int64) Percentiles {
	m := len(s)
	if m == 0 {
		return Percentiles{}
	}
	lo := 0
	at := func(p int) float64 {
		k := rankIndex(p, m)
		selectNth(s[lo:], k-lo)
		lo = k
		return float64(value(k)) / 1e6
	}
	return Percentiles{P50: at(50), P90: at(90), P95: at(95), P99: at(99)}
}

// selectNth reorders s so that s[k] is the value a sort would put there,
// with no larger value before it and no smaller one after it (quickselect
// with a three-way partition, so runs of equal values cost one pass).
func selectNth[E int64 | uint32](s []E, k int) {
	for len(s) > 1 {
		a, b, c := s[0], s[len(s)/2], s[len(s)-1]
		pivot := max(min(a, b), min(max(a, b), c)) // median of three
		lt, i, gt := 0, 0, len(s)
		for i < gt {
			switch v := s[i]; {
			case v < pivot:
				s[lt], s[i] = s[i], s[lt]
				lt++
				i++
			case v > pivot:
				gt--
				s[gt], s[i] = s[i], s[gt]
			default:
				i++
			}
		}
		switch {
		case k < lt:
			s = s[:lt]
		case k >= gt:
			s, k = s[gt:], k-gt
		default:
			return
		}
	}
}

// NearestRank is the design's nearest-rank p-th percentile of values: the
// ⌈p/100 · m⌉-th smallest of the m values; 0 for none. values is not
// modified.
func NearestRank(values []float64, p int) float64 {
	if len(values) == 0 {
		return 0
	}
	s := slices.Clone(values)
	slices.Sort(s)
	return s[rankIndex(p, len(s))]
}

// rankIndex is the index, in m sorted values, of the nearest-rank p-th
// percentile: ⌈p·m/100⌉ − 1 in integers, exact unlike a float ceiling of
// 0.95·m, and at least 0.
func rankIndex(p, m int) int {
	return min(max((p*m+99)/100, 1), m) - 1
}

// Matrix counts frames by Matrix drop level.
type Matrix struct {
	Best   int `json:"best"`
	Normal int `json:"normal"`
	Middle int `json:"middle"`
	High   int `json:"high"`
	Frozen int `json:"frozen"`
}

// MatrixLevels implements the design's Matrix drop levels: dropped =
// ⌊(duration − R)/R⌋ (0 if negative); best < 3 ≤ normal < 9 ≤ middle < 24 ≤
// high < 42 ≤ frozen. A period ≤ 0 gives the zero value.
func MatrixLevels(durationsNS []int64, period int64) Matrix {
	var m Matrix
	if period <= 0 {
		return m
	}
	for _, d := range durationsNS {
		dropped := int64(0)
		if d > period {
			dropped = (d - period) / period
		}
		switch {
		case dropped < 3:
			m.Best++
		case dropped < 9:
			m.Normal++
		case dropped < 24:
			m.Middle++
		case dropped < 42:
			m.High++
		default:
			m.Frozen++
		}
	}
	return m
}

// Vitals are the Android vitals counts.
type Vitals struct {
	Slow   int `json:"slow"`
	Frozen int `json:"frozen"`
}

// VitalsCounts implements the design's Android vitals counts: slow =
// frames with duration > 16 ms, frozen = frames with duration > 700 ms. As
// defined, a frozen frame is also counted as slow.
func VitalsCounts(durationsNS []int64) Vitals {
	var v Vitals
	for _, d := range durationsNS {
		if d > 16*int64(time.Millisecond) {
			v.Slow++
		}
		if d > 700*int64(time.Millisecond) {
			v.Frozen++
		}
	}
	return v
}

// MissedDeadline reports whether f missed its deadline, per the
// design: FrameCompleted > FrameDeadline where that column holds a real
// deadline, otherwise duration > R. A real deadline is after the frame's
// IntendedVsync and not INT64_MAX: 0, -1 and a time before the frame began
// cannot be one, and count as absent.
func MissedDeadline(f gfxinfo.FrameStats, period int64) bool {
	if f.FrameDeadline > f.IntendedVsync && f.FrameDeadline != frameInt64Max {
		return f.FrameCompleted > f.FrameDeadline
	}
	return period > 0 && f.Duration() > period
}

// DeadlinesMissed counts frames of frames that missed their deadline
// (see MissedDeadline).
func DeadlinesMissed(frames []gfxinfo.FrameStats, period int64) int {
	n := 0
	for _, f := range frames {
		if MissedDeadline(f, period) {
			n++
		}
	}
	return n
}

// GTSecond is the GT smoothness of one whole second.
type GTSecond struct {
	Second  time.Time // start of the second
	Skipped int       // Choreographer-skipped frames logged in it
	SM      float64   // max(0, refresh rate − Skipped)
}

// GTSmoothness implements the design's GT smoothness: for each whole
// second from the first to the last skip (inclusive), SM = max(0, refresh
// rate − skipped frames in that second). Entries without a time are ignored.
func GTSmoothness(skips []logcat.SkippedFrames, refreshHz float64) []GTSecond {
	var first, last time.Time
	for _, s := range skips {
		if s.Time.IsZero() {
			continue
		}
		sec := s.Time.Truncate(time.Second)
		if first.IsZero() || sec.Before(first) {
			first = sec
		}
		if last.IsZero() || sec.After(last) {
			last = sec
		}
	}
	if first.IsZero() {
		return nil
	}
	n := int(last.Sub(first)/time.Second) + 1
	if n > 1<<20 { // a day-spanning capture with bogus times must not exhaust memory
		n = 1 << 20
	}
	out := make([]GTSecond, n)
	for i := range out {
		out[i].Second = first.Add(time.Duration(i) * time.Second)
	}
	for _, s := range skips {
		if s.Time.IsZero() {
			continue
		}
		i := int(s.Time.Truncate(time.Second).Sub(first) / time.Second)
		if i >= 0 && i < n {
			out[i].Skipped += s.Frames
		}
	}
	for i := range out {
		out[i].SM = math.Max(0, refreshHz-float64(out[i].Skipped))
	}
	return out
}

// DedupSurfaceFlinger implements the design's de-duplication across
// polls for the SurfaceFlinger source: keep only frames whose present time B
// is greater than the last B already kept (lastKept; 0 before the first
// poll). It returns the kept frames and the new last kept B.
func DedupSurfaceFlinger(lastKept int64, frames []surfaceflinger.LatencyFrame) ([]surfaceflinger.LatencyFrame, int64) {
	var kept []surfaceflinger.LatencyFrame
	for _, f := range frames {
		if f.ActualPresent > lastKept {
			kept = append(kept, f)
			lastKept = f.ActualPresent
		}
	}
	return kept, lastKept
}

// DedupGfxInfo implements the design's de-duplication across polls for
// one gfxinfo window: keep only frames whose IntendedVsync is greater than
// the last kept for that window (lastKept; 0 before the first poll). Callers
// keep one lastKept per window name, since two windows can render in the
// same vsync. It returns the kept frames and the new last kept IntendedVsync.
func DedupGfxInfo(lastKept int64, frames []gfxinfo.FrameStats) ([]gfxinfo.FrameStats, int64) {
	var kept []gfxinfo.FrameStats
	for _, f := range frames {
		if f.IntendedVsync > lastKept {
			kept = append(kept, f)
			lastKept = f.IntendedVsync
		}
	}
	return kept, lastKept
}

// Janks names the frames that janked under each definition, by their
// time t (ns), so that a failure, a chart or a cause can point at them
// without judging the frames again.
type Janks struct {
	// DeadlineMissed is empty for the SurfaceFlinger source, which has no
	// durations.
	DeadlineMissed []int64
	PerfDog        []int64
	PerfDogBig     []int64
	// Chromium are the frames that ended a change counted by jank_count.
	Chromium []int64
}

// Of returns the frames that janked under the named jank definition
// (JankDefinitionDeadlineMissed or JankDefinitionPerfDog).
func (j Janks) Of(definition string) []int64 {
	switch definition {
	case JankDefinitionDeadlineMissed:
		return j.DeadlineMissed
	case JankDefinitionPerfDog:
		return j.PerfDog
	}
	return nil
}

// Summary holds every frame definition of one window side by side, with
// the JSON names `perfgate analyze frames` prints. Jank is the default jank a
// gate checks and JankDefinition names the definition it follows ("Pauses are
// not janks" in the design): deadline-missed where frames have durations,
// PerfDog Jank where only present times exist.
type Summary struct {
	Source          string      `json:"source"`
	Window          string      `json:"window"`
	Frames          int         `json:"frames"`
	DurationS       float64     `json:"duration_s"`
	FPS             float64     `json:"fps"`
	RefreshPeriodMS float64     `json:"refresh_period_ms"`
	Chromium        Chromium    `json:"chromium"`
	PerfDog         PerfDog     `json:"perfdog"`
	FrameTimeMS     Percentiles `json:"frame_time_ms"`
	// DeadlineMissed, Matrix and Vitals need frame durations: gfxinfo only.
	DeadlineMissed *int    `json:"deadline_missed,omitempty"`
	Matrix         *Matrix `json:"matrix,omitempty"`
	Vitals         *Vitals `json:"vitals,omitempty"`
	Jank           int     `json:"jank"`
	JankDefinition string  `json:"jank_definition"`
	// Janked names the frames each definition counted.
	Janked Janks `json:"-"`
}

func frameSummaryTimes(t []int64, period int64) Summary {
	var pd perfDogRun
	var ch chromiumRun
	pd.run(t, 4)
	if period > 0 {
		ch.run(t, 1, float64(period))
	}
	var span int64
	if n := len(t); n >= 2 {
		span = t[n-1] - t[0]
	}
	return frameSummaryRuns(len(t), span, period, &pd, &ch)
}

// frameSummaryRuns is frameSummaryTimes of n times spanning span ns, which
// pd and ch have read.
func frameSummaryRuns(n int, span, period int64, pd *perfDogRun, ch *chromiumRun) Summary {
	s := Summary{
		Frames:          n,
		FPS:             frameFPS(n, span),
		RefreshPeriodMS: float64(period) / 1e6,
	}
	s.PerfDog, s.Janked.PerfDog, s.Janked.PerfDogBig = pd.result(span)
	if period > 0 && n >= 2 {
		s.Chromium, s.Janked.Chromium = ch.result()
	}
	if period < 0 {
		s.RefreshPeriodMS = 0
	}
	if span > 0 {
		s.DurationS = float64(span) / 1e9
	}
	return s
}

// SummarizeSurfaceFlinger summarizes one window of SurfaceFlinger
// present times (B, ns, ascending, already de-duplicated) with refresh
// period R (ns). Percentiles are over frame times F (design: "For the
// SurfaceFlinger source the values are F"); the default jank is PerfDog Jank.
func SummarizeSurfaceFlinger(present []int64, period int64) Summary {
	s := frameSummaryTimes(present, period)
	s.Source = SourceSurfaceFlinger
	if len(present) >= 2 {
		f := make([]int64, len(present)-1)
		for i := 1; i < len(present); i++ {
			f[i-1] = present[i] - present[i-1]
		}
		s.FrameTimeMS = framePercentilesInPlace(f)
	}
	s.Jank = s.PerfDog.Jank
	s.JankDefinition = JankDefinitionPerfDog
	return s
}

// UsableGfxInfo returns the rows of one window that gfxinfo.Judge
// (without a clock) finds to be frames, sorted by IntendedVsync.
func UsableGfxInfo(frames []gfxinfo.FrameStats) []gfxinfo.FrameStats {
	out := make([]gfxinfo.FrameStats, 0, len(frames))
	for i, r := range gfxinfo.Judge(frames, 0) {
		if r == "" {
			out = append(out, frames[i])
		}
	}
	if !slices.IsSortedFunc(out, gfxCompareVsync) {
		slices.SortStableFunc(out, gfxCompareVsync)
	}
	return out
}

func gfxUsable(f gfxinfo.FrameStats) bool { return gfxinfo.RowReject(f, 0) == "" }

func gfxCompareVsync(a, b gfxinfo.FrameStats) int {
	switch {
	case a.IntendedVsync < b.IntendedVsync:
		return -1
	case a.IntendedVsync > b.IntendedVsync:
		return 1
	}
	return 0
}

// SummarizeGfxInfo summarizes one window of gfxinfo frames with refresh
// period R (ns). It keeps the rows gfxinfo.RowReject accepts; t is
// IntendedVsync and percentiles are over durations (FrameCompleted −
// IntendedVsync), per the design. The default jank is the deadline-missed count.
func SummarizeGfxInfo(frames []gfxinfo.FrameStats, period int64) Summary {
	return frameSummarizeGfx(frames, func(f *gfxinfo.FrameStats) *gfxinfo.FrameStats { return f }, period)
}

// Summarize summarizes one window of a session's frames, all of one
// source: SummarizeSurfaceFlinger over their present times, or
// SummarizeGfxInfo over their rows.
func Summarize(source string, frames []Frame, period int64) Summary {
	if source == SourceSurfaceFlinger {
		t := make([]int64, len(frames))
		for i, f := range frames {
			t[i] = f.ActualPresent
		}
		return SummarizeSurfaceFlinger(t, period)
	}
	return frameSummarizeGfx(frames, func(f *Frame) *gfxinfo.FrameStats { return &f.FrameStats }, period)
}

// frameSummarizeGfx is SummarizeGfxInfo over the rows row finds in
// frames, parsed or kept by a session alike.
func frameSummarizeGfx[F any](frames []F, row func(*F) *gfxinfo.FrameStats, period int64) Summary {
	// Work on (t, duration, missed) triples rather than copies of whole
	// frames: an hour at 120 Hz is 432,000 of them.
	type kept struct {
		t, d   int64
		missed bool
	}
	k := make([]kept, 0, len(frames))
	missed := 0
	for i := range frames {
		f := row(&frames[i])
		if !gfxUsable(*f) {
			continue
		}
		m := MissedDeadline(*f, period)
		if m {
			missed++
		}
		k = append(k, kept{f.IntendedVsync, f.Duration(), m})
	}
	byT := func(a, b kept) int {
		switch {
		case a.t < b.t:
			return -1
		case a.t > b.t:
			return 1
		}
		return 0
	}
	if !slices.IsSortedFunc(k, byT) {
		slices.SortStableFunc(k, byT)
	}
	t := make([]int64, len(k))
	d := make([]int64, len(k))
	var late []int64
	for i, x := range k {
		t[i], d[i] = x.t, x.d
		if x.missed {
			late = append(late, x.t)
		}
	}
	return gfxSummaryOf(t, d, late, period)
}

// gfxSummaryOf is the gfxinfo summary of frames at times t (sorted) with
// durations d, those at late having missed their deadline. It reorders d.
func gfxSummaryOf(t, d, late []int64, period int64) Summary {
	missed := len(late)
	s := frameSummaryTimes(t, period)
	s.Janked.DeadlineMissed = late
	s.Source = SourceGfxInfo
	s.DeadlineMissed = &missed
	m := MatrixLevels(d, period)
	s.Matrix = &m
	v := VitalsCounts(d)
	s.Vitals = &v
	s.FrameTimeMS = framePercentilesInPlace(d) // last: it reorders d
	s.Jank = missed
	s.JankDefinition = JankDefinitionDeadlineMissed
	return s
}

// SummarizeSurfaceFlingerTimes is SummarizeSurfaceFlinger of
// the present times st with refresh period R (ns), computed in the times'
// own memory: it reorders them, so it is called once.
func SummarizeSurfaceFlingerTimes(st *surfaceflinger.Times, period int64) Summary {
	return frameSummarizeTimes(st, period, 1<<16)
}

// frameSummarizeTimes is SummarizeSurfaceFlingerTimes reading the
// times back chunk at a time.
func frameSummarizeTimes(st *surfaceflinger.Times, period int64, chunk int) Summary {
	n := st.Len()
	var pd perfDogRun
	var ch chromiumRun
	// The times are read back into buf a chunk at a time after the four
	// before it, which the definitions look back at (PerfDog four, Chromium
	// one).
	buf := make([]int64, 0, 4+min(chunk, n))
	seen := 0 // the times read before buf's new ones
	flush := func() {
		keep := min(seen, 4)
		pd.run(buf, 4)
		if period > 0 {
			ch.run(buf, max(keep, 1), float64(period))
		}
		seen += len(buf) - keep
		tail := buf[max(len(buf)-4, 0):]
		buf = append(buf[:0], tail...)
	}
	st.Each(func(t int64) {
		buf = append(buf, t)
		if len(buf) == cap(buf) {
			flush()
		}
	})
	if len(buf) > min(seen, 4) {
		flush()
	}
	s := frameSummaryRuns(n, st.Span(), period, &pd, &ch)
	s.Source = SourceSurfaceFlinger
	if n >= 2 {
		// The frame times are f: the wide ones, marked by the largest
		// value, are the largest, and come in wide's order sorted.
		f, wide := st.FrameTimes()
		wide = slices.Clone(wide)
		slices.Sort(wide)
		narrow := len(f) - len(wide)
		s.FrameTimeMS = framePercentilesBy(f, func(k int) int64 {
			if f[k] == math.MaxUint32 {
				return wide[k-narrow]
			}
			return int64(f[k])
		})
	}
	s.Jank = s.PerfDog.Jank
	s.JankDefinition = JankDefinitionPerfDog
	return s
}

// FrameSummarizeGfxInfoTimes is FrameSummarizeGfxInfo over the times of
// frames (GfxInfoScanWindow.Frames).
func SummarizeGfxInfoTimes(frames []gfxinfo.FrameTimes, period int64) Summary {
	t := make([]int64, 0, len(frames))
	d := make([]int64, 0, len(frames))
	var late []int64
	for _, x := range frames {
		f := gfxinfo.FrameStats{IntendedVsync: x.IntendedVsync, FrameCompleted: x.FrameCompleted, FrameDeadline: x.FrameDeadline}
		if !gfxUsable(f) {
			continue
		}
		if n := len(t); n > 0 && f.IntendedVsync < t[n-1] {
			// Out of vsync order: the general path sorts them.
			var g gfxinfo.FrameStats
			return frameSummarizeGfx(frames, func(x *gfxinfo.FrameTimes) *gfxinfo.FrameStats {
				g = gfxinfo.FrameStats{IntendedVsync: x.IntendedVsync, FrameCompleted: x.FrameCompleted, FrameDeadline: x.FrameDeadline}
				return &g
			}, period)
		}
		t = append(t, f.IntendedVsync)
		d = append(d, f.Duration())
		if MissedDeadline(f, period) {
			late = append(late, f.IntendedVsync)
		}
	}
	return gfxSummaryOf(t, d, late, period)
}

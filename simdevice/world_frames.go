package simdevice

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/perfgate/perfgate/simdevice/internal/format"
)

// Ring sizes as a phone keeps them.
const (
	gfxRingFrames = 120 // hwui FrameInfo history per window
	sfRingFrames  = 127 // SurfaceFlinger FrameTracker per layer (NUM_FRAME_RECORDS)
	latchNs       = 1_000_000
	// truthFramesKept bounds TruthFrames: about 28 minutes at 120 Hz.
	truthFramesKept = 200_000
	int64Max        = math.MaxInt64
	diedKept        = 64 // frames of killed processes kept for traces
)

// gfxWindow is hwui's per-window state: the framestats ring and the stats
// kept since the last reset.
type gfxWindow struct {
	since  int64
	ring   []TruthFrame
	durs   []int64 // FrameCompleted − IntendedVsync of every frame since reset
	gpu    []int64 // GpuCompleted − SwapBuffers
	missed int     // deadline missed (the API's rule)
	legacy int     // duration > one period
	mvsync int     // frames that started after skipped vsyncs
	slowUI int     // UI-thread part > one period

	havePrev     bool
	prevPid      int
	prevIntended int64
}

func (g *gfxWindow) reset(t int64) { *g = gfxWindow{since: t} }

// add puts a presented frame in the ring and the stats.
func (g *gfxWindow) add(f TruthFrame, period int64) {
	g.ring = ringPush(g.ring, f, gfxRingFrames)
	g.durs = append(g.durs, f.Duration)
	g.gpu = append(g.gpu, f.GpuCompleted-f.SwapBuffers)
	if f.Missed {
		g.missed++
	}
	if f.Duration > period {
		g.legacy++
	}
	if f.SyncQueued-f.IntendedVsync > period {
		g.slowUI++
	}
}

// renderLocked computes the frames whose intended vsync lies before end. A
// frame is rendered on the vsync grid; a slow frame keeps the main thread
// busy, so the vsyncs it spans render nothing, as on a phone.
func (w *World) renderLocked(end int64) {
	if w.app == nil || w.fg != fgResumed || w.displayAt >= 0 || w.phase == nil || w.phase.EveryVsyncs == 0 {
		return
	}
	p := w.phase
	for {
		v := w.gridAtOrAfter(max(w.nextVsync, w.phaseStart))
		if v >= end {
			return
		}
		// The frame's noise factor, keyed by its ordinal on the device
		// (the vsync id makeFrame gives it).
		k := w.noise.factor(drawFrame, w.vsyncID+1, 0)
		d, jk := w.frameDuration(p, w.phaseFrames, k)
		var cause *Cause
		if jk != nil && jk.Cause != "" {
			cause = w.wl.cause(jk.Cause)
		}
		d0 := w.normalDuration(p, w.phaseFrames, k)
		f := w.makeFrame(v, d, jk != nil, cause, d0)
		work := d - min(d0, d)
		if bl := w.mainThreadLocked(&f, cause, work, jk != nil && jk.ANR); len(bl) > 0 && cause != nil {
			w.frameBlocks[f.IntendedVsync] = bl
		}
		w.traceCausesLocked(&f, p, w.phaseFrames)
		f.Sections = frameSections(&f, p, w.phaseFrames)
		w.pending = append(w.pending, f)
		if picks(w.wl.FrameQuirks.PopupEvery, w.phaseFrames) {
			w.popupQueue = append(w.popupQueue, w.makePopupFrame(v))
		}
		w.phaseFrames++
		w.nextVsync = max(v+int64(p.EveryVsyncs)*w.period, w.gridAtOrAfter(v+d))
		if skipped := d / w.period; skipped >= 30 {
			// Choreographer warns once the main thread stalled 30 frames
			// (SKIPPED_FRAME_WARNING_LIMIT); it logs when the next frame starts.
			w.logAtLocked(v+d, w.app.pid, w.app.pid, 'I', "Choreographer",
				fmt.Sprintf("Skipped %d frames!  The application may be doing too much work on its main thread.", skipped))
		}
		if d > 700*int64(time.Millisecond) {
			w.logAtLocked(f.Completed, w.app.pid, w.app.pid+12, 'I', "OpenGLRenderer", w.daveyLine(f))
		}
	}
}

// frameDuration is FrameCompleted − IntendedVsync of frame i of phase p and
// the jank that made it slow, nil for a normal frame; k is the frame's
// noise factor (1 without Config.Noise).
//
// A slow frame's whole duration, its normal part and its extra work alike,
// scales by the same k as a normal frame's; the noise does not decide which
// frames are slow. A jank of n ≥ 3 vsyncs lasts n − ¼ periods, at least
// 1.375 times the two-period deadline of API ≥ 31 (2.75 times the one
// period below), and a normal frame at most 0.495 of a period, so only a
// factor of the far tail (below 0.73 or above 2: beyond 4 standard
// deviations for a combined 7 %) moves a frame across its deadline. There
// is no clamp: at large percentages the tail does what it would, and a
// 2-vsync jank, just inside the API ≥ 31 deadline, misses it once k exceeds
// 1.14, as a real one near its deadline would now and then. An ANR's frame
// keeps its configured length, so the system still gives up five seconds
// into its work.
func (w *World) frameDuration(p *Phase, i int, k float64) (int64, *Jank) {
	for n := range p.Janks {
		j := &p.Janks[n]
		hit := slices.Contains(j.At, i) || (j.Every > 0 && (i+1)%j.Every == 0)
		if !hit || j.SurfaceFlinger {
			continue
		}
		if j.ANR {
			k = 1
		}
		if j.Ms > 0 {
			return scaleNs(int64(j.Ms*1e6), k), j
		}
		return scaleNs(int64(j.Vsyncs)*w.period-w.period/4, k), j
	}
	return w.normalDuration(p, i, k), nil
}

// normalDuration is how long frame i of phase p takes when nothing makes
// it slow, times the frame's noise factor k.
func (w *World) normalDuration(p *Phase, i int, k float64) int64 {
	if p.FrameMs > 0 {
		return scaleNs(int64(p.FrameMs*1e6), k)
	}
	// 45% of a period with a ±10% wobble keeps normal frames visibly
	// different yet well inside one period.
	return scaleNs(int64(float64(w.period)*0.45*(1+0.1*math.Sin(float64(i)))), k)
}

// makeFrame lays out one frame's timestamps from its intended vsync v and
// duration d. The UI thread takes the first 40% of d and the RenderThread
// the rest, the GPU finishing with it; a frame a cause made slow has the
// stages of a normal one (d0) and the cause's work in its phase (see
// frameStages).
func (w *World) makeFrame(v, d int64, slow bool, cause *Cause, d0 int64) TruthFrame {
	w.vsyncID++
	st := frameStages(d, d0, cause)
	phase := "" // a launch's first frame comes before its phase
	if w.phase != nil {
		phase = w.phase.Name
	}
	f := TruthFrame{
		Package: w.wl.Package, Window: w.windowName(), Layer: w.appLayer(), Phase: phase,
		Pid: w.app.pid, VsyncID: w.vsyncID + 27_400_000, Slow: slow,
		IntendedVsync: v, Vsync: v,
		HandleInputStart:       v + st[0],
		AnimationStart:         v + st[1],
		PerformTraversalsStart: v + st[2],
		DrawStart:              v + st[3],
		SyncQueued:             v + st[4],
		SyncStart:              v + st[5],
		IssueDrawCommandsStart: v + st[6],
		SwapBuffers:            v + st[7],
		SwapBuffersCompleted:   v + st[8],
		Completed:              v + d,
		GpuCompleted:           v + d,
		DequeueBufferNs:        21_000,
		QueueBufferNs:          280_000,
	}
	if cause != nil {
		f.Cause = cause.Name
		f.WaitMessage = cause.Phase == "wait"
	}
	f.Duration = d
	// FrameDeadline: API ≥ 31 hwui takes the deadline from the frame
	// timeline, on real captures about two periods after IntendedVsync;
	// older APIs have no column and a frame is late past one period.
	if w.cfg.API >= 31 {
		f.Deadline = v + 2*w.period
	} else {
		f.Deadline = v + w.period
	}
	f.Missed = f.Completed > f.Deadline
	present := w.gridAtOrAfter(f.Completed + latchNs)
	if n := len(w.pending); n > 0 && present <= w.pending[n-1].Present {
		present = w.pending[n-1].Present + w.period
	} else if n := len(w.frames); n > 0 && present <= w.frames[n-1].Present {
		present = w.frames[n-1].Present + w.period
	}
	f.Present = present
	f.SFDesired = v + w.period
	f.SFActual = present
	f.SFReady = f.GpuCompleted
	return f
}

// presentLocked moves rendered frames whose present time has come into the
// buffers a dump shows and into the truth writer.
func (w *World) presentLocked(now int64) {
	k := 0
	for k < len(w.popupQueue) && w.popupQueue[k].Present <= now {
		f := w.popupQueue[k]
		f.Index = w.frameCount
		w.frameCount++
		w.popup.add(f, w.period)
		w.frames = append(w.frames, f)
		w.writeTruthLocked(f)
		k++
	}
	w.popupQueue = slices.Delete(w.popupQueue, 0, k)
	n := 0
	for n < len(w.pending) && w.pending[n].Present <= now {
		n++
	}
	if n == 0 {
		return
	}
	for _, f := range w.pending[:n] {
		f.Index = w.frameCount
		w.frameCount++
		w.applyQuirks(&f)
		if f.Missed {
			w.missedCount++
		}
		if len(w.frames) >= truthFramesKept {
			// Keep memory bounded on a long-running device; the truth
			// writer still receives every frame.
			w.frames = slices.Delete(w.frames, 0, len(w.frames)-truthFramesKept/2)
		}
		w.frames = append(w.frames, f)
		w.flips++
		g := &w.gfx
		g.add(f, w.period)
		// A frame that follows skipped vsyncs started late on the grid.
		if g.havePrev && f.Pid == g.prevPid && f.IntendedVsync-g.prevIntended > w.period*int64(max(1, w.everyOf(f.Phase))) {
			g.mvsync++
		}
		g.havePrev, g.prevPid, g.prevIntended = true, f.Pid, f.IntendedVsync
		w.sf = ringPush(w.sf, f, sfRingFrames)
		w.writeTruthLocked(f)
	}
	w.pending = slices.Delete(w.pending, 0, n)
}

func (w *World) everyOf(phase string) int {
	if p := w.wl.phase(phase); p != nil {
		return p.EveryVsyncs
	}
	return 1
}

// ringPush appends f to a ring of n frames. The slice may hold up to 2n
// frames so that trimming (one copy) happens once per n frames; readers
// take ringTail.
func ringPush(r []TruthFrame, f TruthFrame, n int) []TruthFrame {
	if len(r) >= 2*n {
		r = r[:copy(r, r[len(r)-n+1:])]
	}
	return append(r, f)
}

// ringTail is the newest n frames of a ring.
func ringTail(r []TruthFrame, n int) []TruthFrame {
	return r[max(0, len(r)-n):]
}

// windowName is the window hwui names in framestats.
func (w *World) windowName() string { return w.window }

// appLayer is the SurfaceFlinger layer that carries the app's frames: the
// window's own layer up to API 30, the BLAST SurfaceView layer from API 31
// as real Android 12+ phones list it.
func (w *World) appLayer() string { return w.layer }

// daveyLine is hwui's Davey! message for f, with its true times.
func (w *World) daveyLine(f TruthFrame) string {
	return format.Davey(w.cfg.API, w.period, f.Duration/int64(time.Millisecond), f.row(0))
}

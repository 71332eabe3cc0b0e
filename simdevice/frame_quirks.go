package simdevice

import (
	"fmt"
	"math"

	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/simdevice/internal/format"
)

// FrameQuirks make the app's frame rows as hostile as real phones print
// them. Each quirk was seen in a capture in ../shared/fixtures, and each is
// off in the zero value. A field named …Every picks the frames whose
// TruthFrame.Index is N−1, 2N−1, … (one quirk per frame: the first of
// Stuck, Garbage, Sentinel, Stale, Flagged, Late that picks it; NoVsyncID,
// StalePresent and Twin add to it). The truth (TruthFrame.Reject) says
// which rows are frames and why the others are not.
type FrameQuirks struct {
	// InFlight shows the row of a frame still drawing, with FrameCompleted 0
	// until it is presented, as every phone does.
	InFlight bool `json:"in_flight,omitempty"`
	// StuckEvery: the frame's row never shows its completion
	// (FrameCompleted 0 forever; anavmode capture, SpaActivity row 32).
	StuckEvery int `json:"stuck_every,omitempty"`
	// LateEvery and LateMs: the frame's row shows FrameCompleted 0 until
	// LateMs (1..1000) after the frame was presented. The row is a frame.
	LateEvery int `json:"late_every,omitempty"`
	LateMs    int `json:"late_ms,omitempty"`
	// GarbageEvery: FrameCompleted 288234774265332736 (anavmode, Settings
	// home rows 66–67).
	GarbageEvery int `json:"garbage_every,omitempty"`
	// SentinelEvery: FrameCompleted and GpuCompleted INT64_MAX (Android 12L
	// Davey! lines, reveny117).
	SentinelEvery int `json:"sentinel_every,omitempty"`
	// StaleEvery: FrameCompleted of a frame 4 s older, left in the ring
	// slot (anavmode, RecentsActivity rows 19–20).
	StaleEvery int `json:"stale_every,omitempty"`
	// FlaggedEvery: Flags 2, a RenderThread animation frame (anavmode).
	FlaggedEvery int `json:"flagged_every,omitempty"`
	// TwinEvery: a Flags 2 row with the frame's IntendedVsync and Vsync
	// comes before the frame's row (anavmode, NotificationShade rows
	// 112–113). The frame's row stays a frame.
	TwinEvery int `json:"twin_every,omitempty"`
	// NoVsyncIDEvery: FrameTimelineVsyncId -1 and FrameDeadline INT64_MAX
	// (solox249, API 31+): a frame judged by its duration.
	NoVsyncIDEvery int `json:"no_vsync_id_every,omitempty"`
	// StalePresentEvery: DisplayPresentTime of a frame 3 s older, before
	// the frame's IntendedVsync (anavmode, SpaActivity rows 116–119; API
	// 31+). The row stays a frame.
	StalePresentEvery int `json:"stale_present_every,omitempty"`
	// PopupEvery: a second window of the app (a popup) renders with every
	// Nth frame of the main window, in the same vsync, as the three
	// Settings windows of the anavmode capture each have their block.
	PopupEvery int `json:"popup_every,omitempty"`

	// SFPendingMs: SurfaceFlinger --latency prints B = INT64_MAX for the
	// frames presented in the last SFPendingMs (1..1000), a fence not yet
	// signalled.
	SFPendingMs int `json:"sf_pending_ms,omitempty"`
	// SFSentinelAC: columns A and C print INT64_MAX (Honor 9, Android 8).
	SFSentinelAC bool `json:"sf_sentinel_ac,omitempty"`
	// SFRows "zeros" prints every slot of the app layer as "0 0 0" (Pixel 2
	// and SoloX non-BLAST captures); "period_only" prints only the refresh
	// period (TECNO capture). The frames are not readable from the layer.
	SFRows string `json:"sf_rows,omitempty"`
}

// garbageCompleted is the FrameCompleted an Android 14 tablet printed.
const garbageCompleted = 288234774265332736

// rowQuirk is what the row of one frame shows.
type rowQuirk int

const (
	quirkNone rowQuirk = iota
	quirkStuck
	quirkGarbage
	quirkSentinel
	quirkStale
	quirkFlagged
	quirkLate
)

func (q *FrameQuirks) validate() error {
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("%w: frame_quirks.%s: %s", ErrWorkload, field, fmt.Sprintf(format, args...))
	}
	for name, v := range map[string]int{"stuck_every": q.StuckEvery, "late_every": q.LateEvery, "garbage_every": q.GarbageEvery,
		"sentinel_every": q.SentinelEvery, "stale_every": q.StaleEvery, "flagged_every": q.FlaggedEvery, "twin_every": q.TwinEvery,
		"no_vsync_id_every": q.NoVsyncIDEvery, "stale_present_every": q.StalePresentEvery, "popup_every": q.PopupEvery} {
		if v < 0 || v > 1_000_000 {
			return bad(name, "%d out of range 0..1000000", v)
		}
	}
	if (q.LateEvery > 0) != (q.LateMs > 0) || q.LateMs < 0 || q.LateMs > 1000 {
		return bad("late_ms", "%d: set late_every and late_ms (1..1000) together", q.LateMs)
	}
	if q.SFPendingMs < 0 || q.SFPendingMs > 1000 {
		return bad("sf_pending_ms", "%d out of range 0..1000", q.SFPendingMs)
	}
	switch q.SFRows {
	case "", "zeros", "period_only":
	default:
		return bad("sf_rows", "%q: want zeros or period_only", q.SFRows)
	}
	return nil
}

func picks(every, index int) bool { return every > 0 && index%every == every-1 }

// applyQuirks decides, when the frame is presented, what its row shows and
// records the verdict in the truth.
func (w *World) applyQuirks(f *TruthFrame) {
	if f.First {
		f.Reject = string(gfxinfo.RejectFlags)
		return
	}
	q := &w.wl.FrameQuirks
	i := f.Index
	switch {
	case picks(q.StuckEvery, i):
		f.quirk, f.Reject = quirkStuck, string(gfxinfo.RejectNotCompleted)
	case picks(q.GarbageEvery, i):
		f.quirk, f.Reject = quirkGarbage, string(gfxinfo.RejectBeyondClock)
	case picks(q.SentinelEvery, i):
		f.quirk, f.Reject = quirkSentinel, string(gfxinfo.RejectSentinel)
	case picks(q.StaleEvery, i):
		f.quirk, f.Reject = quirkStale, string(gfxinfo.RejectCompletedBeforeVsync)
	case picks(q.FlaggedEvery, i):
		f.quirk, f.Reject = quirkFlagged, string(gfxinfo.RejectFlags)
	case picks(q.LateEvery, i):
		f.quirk = quirkLate
		f.ShownCompletedNs = f.Present + int64(q.LateMs)*1e6
	}
	// The twin is the RenderThread's row of the UI frame's vsync: a frame
	// whose own row is flagged has none.
	f.Twin = picks(q.TwinEvery, i) && f.quirk != quirkFlagged
	if w.cfg.API >= 31 && picks(q.NoVsyncIDEvery, i) {
		// No frame timeline: the deadline rule falls back to the duration.
		f.VsyncID, f.Deadline = -1, int64Max
		f.Missed = f.Duration > w.period
	}
	if w.cfg.API >= 31 && picks(q.StalePresentEvery, i) {
		f.stalePresent = true
	}
}

// rowCompleted is the FrameCompleted and GpuCompleted the row of f shows at
// device time now.
func (w *World) rowCompleted(f TruthFrame) (completed, gpu int64) {
	switch f.quirk {
	case quirkStuck:
		return 0, 0
	case quirkGarbage:
		return garbageCompleted, garbageCompleted - 19e15
	case quirkSentinel:
		return int64Max, int64Max
	case quirkStale:
		return f.Completed - 4e9, f.GpuCompleted - 4e9
	case quirkLate:
		if w.now < f.ShownCompletedNs {
			return 0, 0
		}
	}
	return f.Completed, f.GpuCompleted
}

// Popup window of the PopupEvery quirk.
const popupToken = "PopupWindow:6c1e7d2"

// popupWindowName is the popup's hwui window name as the truth names it.
func popupWindowName() string { return popupToken }

// makePopupFrame lays out a popup frame in vsync v: short, drawn after the
// main window's.
func (w *World) makePopupFrame(v int64) TruthFrame {
	d := scaleNs(w.period*3/10, w.noise.factor(drawPopup, w.vsyncID, 0))
	at := func(frac float64) int64 { return v + int64(float64(d)*frac) }
	f := TruthFrame{
		Package: w.wl.Package, Window: popupWindowName(), Phase: w.phase.Name, Pid: w.app.pid,
		VsyncID: w.vsyncID + 27_400_000, IntendedVsync: v, Vsync: v,
		HandleInputStart: at(0.01), AnimationStart: at(0.02), PerformTraversalsStart: at(0.05), DrawStart: at(0.2),
		SyncQueued: at(0.4), SyncStart: at(0.41), IssueDrawCommandsStart: at(0.43), SwapBuffers: at(0.8),
		SwapBuffersCompleted: at(0.82), Completed: v + d, GpuCompleted: v + d,
		DequeueBufferNs: 18_000, QueueBufferNs: 210_000, Duration: d,
	}
	f.Deadline = v + 2*w.period
	if w.cfg.API < 31 {
		f.Deadline = v + w.period
	}
	f.Missed = f.Completed > f.Deadline
	f.Present = w.gridAtOrAfter(f.Completed + latchNs)
	return f
}

// sfRow is how the app layer's --latency prints f at device time now.
func (w *World) sfRow(f TruthFrame) (a, b, c int64) {
	q := &w.wl.FrameQuirks
	a, b, c = f.SFDesired, f.SFActual, f.SFReady
	if q.SFPendingMs > 0 && w.now-f.SFActual < int64(q.SFPendingMs)*1e6 {
		b = int64Max
	}
	if q.SFSentinelAC {
		a, c = math.MaxInt64, math.MaxInt64
	}
	return a, b, c
}

// popupWindowLocked is the popup window's section of a gfxinfo dump.
func (w *World) popupWindowLocked(framestats bool) format.GfxWindow {
	win := format.GfxWindow{
		ViewRoot: fmt.Sprintf("%s/android.view.ViewRootImpl@%07x", popupToken, 0x5e6f7a8^w.app.pid),
		Visible:  true, Name: popupToken, Stats: w.popup.stats(),
	}
	if framestats {
		win.Rows = w.profileRows(ringTail(w.popup.ring, gfxRingFrames))
	}
	return win
}

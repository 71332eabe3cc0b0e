package simdevice

import (
	"fmt"
	"io"

	"github.com/perfgate/perfgate/simdevice/internal/format"
)

// gfxStats are the counters of one hwui window as gfxinfo prints them.
func (g *gfxWindow) stats() format.GfxStats {
	return format.GfxStats{Since: g.since, Durations: g.durs, GPU: g.gpu, Missed: g.missed, Legacy: g.legacy, MissedVsync: g.mvsync, SlowUI: g.slowUI}
}

// profileRows are the PROFILEDATA rows of frames as the row of each shows
// at device time now, quirks included: a Twin frame's RenderThread row
// comes before its own.
func (w *World) profileRows(frames []TruthFrame) []format.ProfileRow {
	rows := make([]format.ProfileRow, 0, len(frames))
	for _, f := range frames {
		if f.Twin {
			// The RenderThread animation row of the same vsync, done quickly.
			t := f
			t.Twin, t.quirk, t.stalePresent = false, quirkNone, false
			t.Completed = f.IntendedVsync + w.period/3
			t.GpuCompleted, t.SwapBuffersCompleted = t.Completed, t.Completed
			rows = append(rows, w.profileRow(t, 2))
		}
		flags := int64(0)
		switch {
		case f.First:
			flags = 1 // WindowLayoutChanged
		case f.quirk == quirkFlagged:
			flags = 2
		}
		rows = append(rows, w.profileRow(f, flags))
	}
	return rows
}

// profileRow is the row of f as it shows at device time now: its
// completion as the frame's quirk makes it print (rowCompleted), and no
// present time before its completion.
func (w *World) profileRow(f TruthFrame, flags int64) format.ProfileRow {
	r := f.row(flags)
	r.Completed, r.GpuCompleted = w.rowCompleted(f)
	if f.stalePresent {
		r.Present = f.IntendedVsync - 3e9
	} else if r.Completed == 0 {
		r.Present = 0
	}
	return r
}

// row is f's FrameInfo as it really happened.
func (f TruthFrame) row(flags int64) format.ProfileRow {
	return format.ProfileRow{
		Flags: flags, VsyncID: f.VsyncID, IntendedVsync: f.IntendedVsync, Vsync: f.Vsync,
		HandleInputStart: f.HandleInputStart, AnimationStart: f.AnimationStart, PerformTraversalsStart: f.PerformTraversalsStart, DrawStart: f.DrawStart,
		Deadline: f.Deadline, SyncQueued: f.SyncQueued, SyncStart: f.SyncStart, IssueDrawCommandsStart: f.IssueDrawCommandsStart, SwapBuffers: f.SwapBuffers,
		Completed: f.Completed, DequeueBuffer: f.DequeueBufferNs, QueueBuffer: f.QueueBufferNs, GpuCompleted: f.GpuCompleted,
		SwapBuffersCompleted: f.SwapBuffersCompleted, Present: f.Present,
	}
}

// inFlightLocked is the rows of frames whose RenderThread work has started
// but which are not presented yet (FrameQuirks.InFlight): FrameCompleted 0.
func (w *World) inFlightLocked() []TruthFrame {
	if !w.wl.FrameQuirks.InFlight {
		return nil
	}
	var out []TruthFrame
	for _, f := range w.pending {
		if f.SyncStart <= w.now {
			f.quirk, f.Twin, f.stalePresent = quirkStuck, false, false // prints FrameCompleted 0
			out = append(out, f)
		}
	}
	return out
}

// dumpsysGfxinfo is `dumpsys gfxinfo <pkg> [framestats|reset]`.
func (w *World) dumpsysGfxinfo(args []string, stdout io.Writer) int {
	var pkg string
	var framestats, reset bool
	for _, a := range args {
		switch a {
		case "framestats":
			framestats = true
		case "reset":
			reset = true
		case "-a", "--checkin":
		default:
			pkg = a
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	if w.isReplayed(pkg) {
		io.WriteString(stdout, w.replayGfxinfoLocked(reset))
		return 0
	}
	if pkg != "" && (pkg != w.wl.Package || w.app == nil) {
		fmt.Fprintf(stdout, "No process found for: %s\n", pkg)
		return 0
	}
	g := format.Gfxinfo{API: w.cfg.API, Period: w.period, Uptime: w.now / 1e6, Realtime: w.realtimeLocked() / 1e6, Framestats: framestats}
	if w.app != nil {
		g.Pid, g.Package, g.Process, g.Views = w.app.pid, w.wl.Package, w.gfx.stats(), len(w.wl.Screen)+2
		main := format.GfxWindow{
			ViewRoot: fmt.Sprintf("%s/android.view.ViewRootImpl@%07x", w.windowName(), 0x73f2e63^w.app.pid),
			Visible:  w.fg == fgResumed, Name: w.windowName(), Stats: g.Process,
		}
		if framestats {
			flying := w.inFlightLocked()
			main.Rows = append(w.profileRows(ringTail(w.gfx.ring, gfxRingFrames-len(flying))), w.profileRows(flying)...)
		}
		g.Windows = append(g.Windows, main)
		if w.wl.FrameQuirks.PopupEvery > 0 {
			g.Windows = append(g.Windows, w.popupWindowLocked(framestats))
		}
	}
	format.WriteGfxinfo(stdout, g)
	if reset {
		// reset clears the stats and the framestats history after dumping.
		w.gfx.reset(w.now)
		w.popup.reset(w.now)
	}
	return 0
}

// realtimeLocked is elapsedRealtime: uptime plus the time the phone slept.
func (w *World) realtimeLocked() int64 { return w.now + 41*3600*1e9 }

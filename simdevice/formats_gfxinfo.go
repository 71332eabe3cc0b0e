package simdevice

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// hwui's frame-time histogram buckets in ms (JankTracker): 5..32 by 1,
// 34..48 by 2, 53..133 by 4, 150..4950 by 50.
var gfxBuckets = func() []int {
	var b []int
	for v := 5; v <= 32; v++ {
		b = append(b, v)
	}
	for v := 34; v <= 48; v += 2 {
		b = append(b, v)
	}
	for v := 53; v <= 133; v += 4 {
		b = append(b, v)
	}
	for v := 150; v <= 4950; v += 50 {
		b = append(b, v)
	}
	return b
}()

// GPU histogram buckets: 1..25 ms, then 4950.
var gpuBuckets = func() []int {
	var b []int
	for v := 1; v <= 25; v++ {
		b = append(b, v)
	}
	return append(b, 4950)
}()

// histogram counts durations (ns) into buckets: a frame goes to the first
// bucket at or above its length in whole ms, the last bucket takes the rest.
func histogram(buckets []int, durs []int64) []int {
	h := make([]int, len(buckets))
	for _, d := range durs {
		ms := int((d + 999_999) / 1_000_000)
		i, _ := slices.BinarySearch(buckets, ms)
		h[min(i, len(h)-1)]++
	}
	return h
}

// histPercentile is hwui's percentile: the bucket holding the nearest-rank
// p-th frame.
func histPercentile(buckets, h []int, p int) int {
	total := 0
	for _, c := range h {
		total += c
	}
	if total == 0 {
		return 0
	}
	rank := (total*p + 99) / 100
	seen := 0
	for i, c := range h {
		seen += c
		if seen >= rank {
			return buckets[i]
		}
	}
	return buckets[len(buckets)-1]
}

func writeHistogram(b *strings.Builder, label string, buckets, h []int) {
	b.WriteString(label)
	for i, v := range buckets {
		fmt.Fprintf(b, " %dms=%d", v, h[i])
	}
	b.WriteByte('\n')
}

// gfxStatsLocked writes the stats block of one window (or the process),
// in the API's layout (droidmonitor API 28 / flashlight API 30 / soundvis
// API 33+ captures).
func (w *World) gfxStatsLocked(b *strings.Builder, g *gfxWindow) {
	n := len(g.durs)
	pct := func(k int) string {
		if n == 0 {
			return "0.00%"
		}
		return fmt.Sprintf("%.2f%%", float64(k)*100/float64(n))
	}
	h := histogram(gfxBuckets, g.durs)
	fmt.Fprintf(b, "Stats since: %dns\n", g.since)
	fmt.Fprintf(b, "Total frames rendered: %d\n", n)
	fmt.Fprintf(b, "Janky frames: %d (%s)\n", g.missed, pct(g.missed))
	if w.cfg.API >= 31 {
		fmt.Fprintf(b, "Janky frames (legacy): %d (%s)\n", g.legacy, pct(g.legacy))
	}
	for _, p := range []int{50, 90, 95, 99} {
		fmt.Fprintf(b, "%dth percentile: %dms\n", p, histPercentile(gfxBuckets, h, p))
	}
	fmt.Fprintf(b, "Number Missed Vsync: %d\n", g.mvsync)
	fmt.Fprintf(b, "Number High input latency: 0\n")
	fmt.Fprintf(b, "Number Slow UI thread: %d\n", g.slowUI)
	fmt.Fprintf(b, "Number Slow bitmap uploads: 0\n")
	fmt.Fprintf(b, "Number Slow issue draw commands: 0\n")
	fmt.Fprintf(b, "Number Frame deadline missed: %d\n", g.missed)
	if w.cfg.API >= 31 {
		fmt.Fprintf(b, "Number Frame deadline missed (legacy): %d\n", g.legacy)
	}
	writeHistogram(b, "HISTOGRAM:", gfxBuckets, h)
	if w.cfg.API >= 31 {
		gh := histogram(gpuBuckets, g.gpu)
		for _, p := range []int{50, 90, 95, 99} {
			fmt.Fprintf(b, "%dth gpu percentile: %dms\n", p, histPercentile(gpuBuckets, gh, p))
		}
		writeHistogram(b, "GPU HISTOGRAM:", gpuBuckets, gh)
	}
}

// profileHeader is the PROFILEDATA header per API: 16 columns on API 28,
// 17 (+GpuCompleted) on API 29/30, 23 on API 33/34 with the
// FrameDeadline,FrameInterval,FrameStartTime labels real phones print
// (the FrameInterval column holds a timestamp, FrameStartTime the period).
func profileHeader(api int) string {
	switch {
	case api >= 31:
		return "Flags,FrameTimelineVsyncId,IntendedVsync,Vsync,InputEventId,HandleInputStart,AnimationStart,PerformTraversalsStart,DrawStart,FrameDeadline,FrameInterval,FrameStartTime,SyncQueued,SyncStart,IssueDrawCommandsStart,SwapBuffers,FrameCompleted,DequeueBufferDuration,QueueBufferDuration,GpuCompleted,SwapBuffersCompleted,DisplayPresentTime,CommandSubmissionCompleted,"
	case api >= 29:
		return "Flags,IntendedVsync,Vsync,OldestInputEvent,NewestInputEvent,HandleInputStart,AnimationStart,PerformTraversalsStart,DrawStart,SyncQueued,SyncStart,IssueDrawCommandsStart,SwapBuffers,FrameCompleted,DequeueBufferDuration,QueueBufferDuration,GpuCompleted,"
	}
	return "Flags,IntendedVsync,Vsync,OldestInputEvent,NewestInputEvent,HandleInputStart,AnimationStart,PerformTraversalsStart,DrawStart,SyncQueued,SyncStart,IssueDrawCommandsStart,SwapBuffers,FrameCompleted,DequeueBufferDuration,QueueBufferDuration,"
}

func (w *World) profileRow(b *strings.Builder, f TruthFrame) {
	if f.Twin {
		// The RenderThread animation row of the same vsync, done quickly.
		t := f
		t.Twin, t.quirk, t.stalePresent = false, quirkNone, false
		t.Completed = f.IntendedVsync + w.period/3
		t.GpuCompleted, t.SwapBuffersCompleted = t.Completed, t.Completed
		w.profileRowFlags(b, t, 2)
		// The frame's own row comes after.
	}
	flags := int64(0)
	if f.quirk == quirkFlagged {
		flags = 2
	}
	w.profileRowFlags(b, f, flags)
}

func (w *World) profileRowFlags(b *strings.Builder, f TruthFrame, flags int64) {
	var buf [512]byte
	out := buf[:0]
	put := func(vs ...int64) {
		for _, v := range vs {
			out = strconv.AppendInt(out, v, 10)
			out = append(out, ',')
		}
	}
	completed, gpu := w.rowCompleted(f)
	present := f.Present
	if f.stalePresent {
		present = f.IntendedVsync - 3e9
	} else if completed == 0 {
		present = 0
	}
	if w.cfg.API >= 31 {
		// FrameInterval holds a timestamp and FrameStartTime the period:
		// the label swap real API 31-34 phones print.
		put(flags, f.VsyncID, f.IntendedVsync, f.Vsync, 0, f.HandleInputStart, f.AnimationStart, f.PerformTraversalsStart, f.DrawStart,
			f.Deadline, f.HandleInputStart-3000, w.period, f.SyncQueued, f.SyncStart, f.IssueDrawCommandsStart, f.SwapBuffers,
			completed, f.DequeueBufferNs, f.QueueBufferNs, gpu, f.SwapBuffersCompleted, present, f.SwapBuffers)
	} else {
		// OldestInputEvent = INT64_MAX and NewestInputEvent = 0: no input.
		put(flags, f.IntendedVsync, f.Vsync, int64Max, 0, f.HandleInputStart, f.AnimationStart, f.PerformTraversalsStart, f.DrawStart,
			f.SyncQueued, f.SyncStart, f.IssueDrawCommandsStart, f.SwapBuffers, completed, f.DequeueBufferNs, f.QueueBufferNs)
		if w.cfg.API >= 29 {
			put(gpu)
		}
	}
	out = append(out, '\n')
	b.Write(out)
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
	var b strings.Builder
	if w.isReplayed(pkg) {
		io.WriteString(stdout, w.replayGfxinfoLocked(reset))
		return 0
	}
	if pkg != "" && (pkg != w.wl.Package || w.app == nil) {
		fmt.Fprintf(stdout, "No process found for: %s\n", pkg)
		return 0
	}
	fmt.Fprintf(&b, "Applications Graphics Acceleration Info:\nUptime: %d Realtime: %d\n\n", w.now/1e6, w.realtimeLocked()/1e6)
	if w.app == nil {
		io.WriteString(stdout, b.String())
		return 0
	}
	fmt.Fprintf(&b, "** Graphics info for pid %d [%s] **\n\n", w.app.pid, w.wl.Package)
	w.gfxStatsLocked(&b, &w.gfx)
	if w.cfg.API >= 31 {
		b.WriteString("\nPipeline=Skia (OpenGL)\nCPU Caches:\n  Glyph Cache: 848.59 KB (1 entry)\n  Glyph Count: 56 \nTotal CPU memory usage:\n  868953 bytes, 848.59 KB (0.00 bytes is purgeable)\n")
		b.WriteString("GPU Caches:\n  Other:\n    Buffer Object: 464.00 bytes (2 entries)\n  Image:\n    Texture: 405.98 KB (98 entries)\n  Scratch:\n    RenderTarget: 12.00 KB (2 entries)\n    Texture: 2.00 MB (2 entries)\nTotal GPU memory usage:\n  2781745 bytes, 2.65 MB (431.34 KB is purgeable)\n\n")
	} else {
		b.WriteString("Font Cache (CPU):\n  Size: 17.95 kB\n  Glyph Count: 10\nCPU Caches:\nGPU Caches:\n  Other:\n    Buffer Object: 63.00 KB (2 entries)\n  Image:\n    Texture: 77.68 KB (6 entries)\n  Scratch:\n    RenderTarget: 272.00 KB (1 entry)\n    Texture: 1.00 MB (1 entry)\n")
		b.WriteString("Other Caches:\n                         Current / Maximum\n  VectorDrawableAtlas    0.00 kB /   0.00 KB (entries = 0)\n  Layers Total           0.00 KB (numLayers = 0)\nTotal GPU memory usage:\n  1536700 bytes, 1.47 MB (476.68 KB is purgeable)\n\n\nPipeline=Skia (OpenGL)\n\nLayout Cache Info:\n  Usage: 14/5000 entries\n  Hit ratio: 147/162 (0.907407)\n")
	}
	root := fmt.Sprintf("%s/android.view.ViewRootImpl@%07x", w.windowName(), 0x73f2e63^w.app.pid)
	fmt.Fprintf(&b, "Profile data in ms:\n\n\t%s (visibility=%d)\n", root, map[bool]int{true: 0, false: 8}[w.fg == fgResumed])
	if w.cfg.API >= 31 {
		fmt.Fprintf(&b, "Window: %s\n", w.windowName())
		w.gfxStatsLocked(&b, &w.gfx)
		b.WriteString("\n")
	}
	if framestats {
		b.WriteString("\n---PROFILEDATA---\n")
		b.WriteString(profileHeader(w.cfg.API))
		b.WriteByte('\n')
		flying := w.inFlightLocked()
		for _, f := range ringTail(w.gfx.ring, gfxRingFrames-len(flying)) {
			w.profileRow(&b, f)
		}
		for _, f := range flying {
			w.profileRow(&b, f)
		}
		b.WriteString("---PROFILEDATA---\n\n")
	}
	if w.wl.FrameQuirks.PopupEvery > 0 {
		w.writePopupLocked(&b, framestats)
	}
	fmt.Fprintf(&b, "View hierarchy:\n\n  %s\n  %d views, 10.66 kB of render nodes\n\n\n", root, len(w.wl.Screen)+2)
	fmt.Fprintf(&b, "Total ViewRootImpl   : 1\nTotal attached Views : %d\nTotal RenderNode     : 10.66 kB (used) / 34.73 kB (capacity)\n\n", len(w.wl.Screen)+2)
	if reset {
		// reset clears the stats and the framestats history after dumping.
		w.gfx.reset(w.now)
		w.popup.reset(w.now)
	}
	io.WriteString(stdout, b.String())
	return 0
}

// realtimeLocked is elapsedRealtime: uptime plus the time the phone slept.
func (w *World) realtimeLocked() int64 { return w.now + 41*3600*1e9 }

package format

import (
	"fmt"
	"io"
	"math"
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

// GfxStats are the counters of a gfxinfo stats block, kept by hwui since
// the last reset.
type GfxStats struct {
	Since       int64   // uptime of the last reset, ns
	Durations   []int64 // FrameCompleted − IntendedVsync of every frame, ns
	GPU         []int64 // GpuCompleted − SwapBuffers of every frame, ns
	Missed      int     // frames that missed their deadline
	Legacy      int     // frames longer than one refresh period
	MissedVsync int     // frames that started after skipped vsyncs
	SlowUI      int     // frames whose UI-thread part took longer than a period
}

// writeGfxStats writes the stats block of one window (or the process), in
// the API's layout (droidmonitor API 28 / flashlight API 30 / soundvis
// API 33+ captures).
func writeGfxStats(b *strings.Builder, api int, g GfxStats) {
	n := len(g.Durations)
	pct := func(k int) string {
		if n == 0 {
			return "0.00%"
		}
		return fmt.Sprintf("%.2f%%", float64(k)*100/float64(n))
	}
	h := histogram(gfxBuckets, g.Durations)
	fmt.Fprintf(b, "Stats since: %dns\n", g.Since)
	fmt.Fprintf(b, "Total frames rendered: %d\n", n)
	fmt.Fprintf(b, "Janky frames: %d (%s)\n", g.Missed, pct(g.Missed))
	if api >= 31 {
		fmt.Fprintf(b, "Janky frames (legacy): %d (%s)\n", g.Legacy, pct(g.Legacy))
	}
	for _, p := range []int{50, 90, 95, 99} {
		fmt.Fprintf(b, "%dth percentile: %dms\n", p, histPercentile(gfxBuckets, h, p))
	}
	fmt.Fprintf(b, "Number Missed Vsync: %d\n", g.MissedVsync)
	fmt.Fprintf(b, "Number High input latency: 0\n")
	fmt.Fprintf(b, "Number Slow UI thread: %d\n", g.SlowUI)
	fmt.Fprintf(b, "Number Slow bitmap uploads: 0\n")
	fmt.Fprintf(b, "Number Slow issue draw commands: 0\n")
	fmt.Fprintf(b, "Number Frame deadline missed: %d\n", g.Missed)
	if api >= 31 {
		fmt.Fprintf(b, "Number Frame deadline missed (legacy): %d\n", g.Legacy)
	}
	writeHistogram(b, "HISTOGRAM:", gfxBuckets, h)
	if api >= 31 {
		gh := histogram(gpuBuckets, g.GPU)
		for _, p := range []int{50, 90, 95, 99} {
			fmt.Fprintf(b, "%dth gpu percentile: %dms\n", p, histPercentile(gpuBuckets, gh, p))
		}
		writeHistogram(b, "GPU HISTOGRAM:", gpuBuckets, gh)
	}
}

// ProfileHeader is the PROFILEDATA header per API: 16 columns on API 28,
// 17 (+GpuCompleted) on API 29/30, 23 on API 33/34 with the
// FrameDeadline,FrameInterval,FrameStartTime labels real phones print
// (the FrameInterval column holds a timestamp, FrameStartTime the period).
func ProfileHeader(api int) string {
	switch {
	case api >= 31:
		return "Flags,FrameTimelineVsyncId,IntendedVsync,Vsync,InputEventId,HandleInputStart,AnimationStart,PerformTraversalsStart,DrawStart,FrameDeadline,FrameInterval,FrameStartTime,SyncQueued,SyncStart,IssueDrawCommandsStart,SwapBuffers,FrameCompleted,DequeueBufferDuration,QueueBufferDuration,GpuCompleted,SwapBuffersCompleted,DisplayPresentTime,CommandSubmissionCompleted,"
	case api >= 29:
		return "Flags,IntendedVsync,Vsync,OldestInputEvent,NewestInputEvent,HandleInputStart,AnimationStart,PerformTraversalsStart,DrawStart,SyncQueued,SyncStart,IssueDrawCommandsStart,SwapBuffers,FrameCompleted,DequeueBufferDuration,QueueBufferDuration,GpuCompleted,"
	}
	return "Flags,IntendedVsync,Vsync,OldestInputEvent,NewestInputEvent,HandleInputStart,AnimationStart,PerformTraversalsStart,DrawStart,SyncQueued,SyncStart,IssueDrawCommandsStart,SwapBuffers,FrameCompleted,DequeueBufferDuration,QueueBufferDuration,"
}

// ProfileRow is what one PROFILEDATA row shows, in ns (timestamps on the
// uptime clock); the API's layout picks and orders the columns.
type ProfileRow struct {
	Flags                  int64
	VsyncID                int64 // FrameTimelineVsyncId (API 31+)
	IntendedVsync, Vsync   int64
	HandleInputStart       int64
	AnimationStart         int64
	PerformTraversalsStart int64
	DrawStart              int64
	Deadline               int64 // FrameDeadline (API 31+)
	SyncQueued, SyncStart  int64
	IssueDrawCommandsStart int64
	SwapBuffers            int64
	Completed              int64 // FrameCompleted
	DequeueBuffer          int64 // DequeueBufferDuration
	QueueBuffer            int64 // QueueBufferDuration
	GpuCompleted           int64 // API 29+
	SwapBuffersCompleted   int64 // API 31+
	Present                int64 // DisplayPresentTime (API 31+)
}

// writeProfileRow writes r in the API's column layout; period is the
// refresh period in ns.
func writeProfileRow(b *strings.Builder, api int, period int64, r ProfileRow) {
	var buf [512]byte
	out := buf[:0]
	put := func(vs ...int64) {
		for _, v := range vs {
			out = strconv.AppendInt(out, v, 10)
			out = append(out, ',')
		}
	}
	if api >= 31 {
		// FrameInterval holds a timestamp and FrameStartTime the period:
		// the label swap real API 31-34 phones print.
		put(r.Flags, r.VsyncID, r.IntendedVsync, r.Vsync, 0, r.HandleInputStart, r.AnimationStart, r.PerformTraversalsStart, r.DrawStart,
			r.Deadline, r.HandleInputStart-3000, period, r.SyncQueued, r.SyncStart, r.IssueDrawCommandsStart, r.SwapBuffers,
			r.Completed, r.DequeueBuffer, r.QueueBuffer, r.GpuCompleted, r.SwapBuffersCompleted, r.Present, r.SwapBuffers)
	} else {
		// OldestInputEvent = INT64_MAX and NewestInputEvent = 0: no input.
		put(r.Flags, r.IntendedVsync, r.Vsync, math.MaxInt64, 0, r.HandleInputStart, r.AnimationStart, r.PerformTraversalsStart, r.DrawStart,
			r.SyncQueued, r.SyncStart, r.IssueDrawCommandsStart, r.SwapBuffers, r.Completed, r.DequeueBuffer, r.QueueBuffer)
		if api >= 29 {
			put(r.GpuCompleted)
		}
	}
	out = append(out, '\n')
	b.Write(out)
}

// GfxWindow is one window's section of a gfxinfo dump.
type GfxWindow struct {
	ViewRoot string // "<name>/android.view.ViewRootImpl@<hash>"
	Visible  bool
	Name     string // the window's name (API 31+ "Window:" line)
	Stats    GfxStats
	Rows     []ProfileRow // framestats, oldest first
}

// Gfxinfo is `dumpsys gfxinfo <pkg> [framestats]` of one process.
type Gfxinfo struct {
	API              int
	Period           int64 // refresh period, ns
	Uptime, Realtime int64 // ms
	Pid              int   // 0: the package has no process (header only)
	Package          string
	Process          GfxStats
	Windows          []GfxWindow
	Framestats       bool // print every window's PROFILEDATA
	Views            int  // views in the main window's hierarchy
}

// WriteGfxinfo writes g in the API's layout.
func WriteGfxinfo(w io.Writer, g Gfxinfo) {
	var b strings.Builder
	fmt.Fprintf(&b, "Applications Graphics Acceleration Info:\nUptime: %d Realtime: %d\n\n", g.Uptime, g.Realtime)
	if g.Pid == 0 {
		io.WriteString(w, b.String())
		return
	}
	fmt.Fprintf(&b, "** Graphics info for pid %d [%s] **\n\n", g.Pid, g.Package)
	writeGfxStats(&b, g.API, g.Process)
	if g.API >= 31 {
		b.WriteString("\nPipeline=Skia (OpenGL)\nCPU Caches:\n  Glyph Cache: 848.59 KB (1 entry)\n  Glyph Count: 56 \nTotal CPU memory usage:\n  868953 bytes, 848.59 KB (0.00 bytes is purgeable)\n")
		b.WriteString("GPU Caches:\n  Other:\n    Buffer Object: 464.00 bytes (2 entries)\n  Image:\n    Texture: 405.98 KB (98 entries)\n  Scratch:\n    RenderTarget: 12.00 KB (2 entries)\n    Texture: 2.00 MB (2 entries)\nTotal GPU memory usage:\n  2781745 bytes, 2.65 MB (431.34 KB is purgeable)\n\n")
	} else {
		b.WriteString("Font Cache (CPU):\n  Size: 17.95 kB\n  Glyph Count: 10\nCPU Caches:\nGPU Caches:\n  Other:\n    Buffer Object: 63.00 KB (2 entries)\n  Image:\n    Texture: 77.68 KB (6 entries)\n  Scratch:\n    RenderTarget: 272.00 KB (1 entry)\n    Texture: 1.00 MB (1 entry)\n")
		b.WriteString("Other Caches:\n                         Current / Maximum\n  VectorDrawableAtlas    0.00 kB /   0.00 KB (entries = 0)\n  Layers Total           0.00 KB (numLayers = 0)\nTotal GPU memory usage:\n  1536700 bytes, 1.47 MB (476.68 KB is purgeable)\n\n\nPipeline=Skia (OpenGL)\n\nLayout Cache Info:\n  Usage: 14/5000 entries\n  Hit ratio: 147/162 (0.907407)\n")
	}
	b.WriteString("Profile data in ms:\n\n")
	for _, win := range g.Windows {
		visibility := 8
		if win.Visible {
			visibility = 0
		}
		fmt.Fprintf(&b, "\t%s (visibility=%d)\n", win.ViewRoot, visibility)
		if g.API >= 31 {
			fmt.Fprintf(&b, "Window: %s\n", win.Name)
			writeGfxStats(&b, g.API, win.Stats)
			b.WriteString("\n")
		}
		if g.Framestats {
			b.WriteString("\n---PROFILEDATA---\n")
			b.WriteString(ProfileHeader(g.API))
			b.WriteByte('\n')
			for _, r := range win.Rows {
				writeProfileRow(&b, g.API, g.Period, r)
			}
			b.WriteString("---PROFILEDATA---\n\n")
		}
	}
	root := ""
	if len(g.Windows) > 0 {
		root = g.Windows[0].ViewRoot
	}
	fmt.Fprintf(&b, "View hierarchy:\n\n  %s\n  %d views, 10.66 kB of render nodes\n\n\n", root, g.Views)
	fmt.Fprintf(&b, "Total ViewRootImpl   : 1\nTotal attached Views : %d\nTotal RenderNode     : 10.66 kB (used) / 34.73 kB (capacity)\n\n", g.Views)
	io.WriteString(w, b.String())
}

// Package capturegen writes long frame captures for tests and benchmarks:
// `dumpsys gfxinfo <pkg> framestats` and `dumpsys SurfaceFlinger --latency`
// text as a phone prints it, of any number of frames, with janks, animation
// rows and the Android 13 header (23 columns, FrameInterval and
// FrameStartTime swapped), so the analysis of an hour at 120 Hz (432,000
// frames, about 116 MB of gfxinfo) can be measured without keeping such a
// file.
package capturegen

import (
	"bufio"
	"io"
	"math"
	"strconv"
)

// Capture describes the frames to write.
type Capture struct {
	// Frames is the number of frames; Hz the refresh rate.
	Frames int
	Hz     float64
	// JankEvery makes every JankEvery-th frame last 3.5 periods (and skip
	// the vsyncs it spans); 0 never.
	JankEvery int
	// FlaggedEvery adds an animation row (Flags 1) after every
	// FlaggedEvery-th frame; 0 never.
	FlaggedEvery int
}

// Hour is an hour at 120 Hz with a jank every 97 frames and an animation
// row every 200.
var Hour = Capture{Frames: 432_000, Hz: 120, JankEvery: 97, FlaggedEvery: 200}

const start = int64(314_846_275_541_194) // ns since boot, as on a phone up for 3.6 days

func (c Capture) period() int64 { return int64(math.Round(1e9 / c.Hz)) }

// frames calls fn with each frame's intended vsync and duration.
func (c Capture) frames(fn func(i int, vsync, dur int64)) {
	p := c.period()
	v := start
	for i := 0; i < c.Frames; i++ {
		d := p * 45 / 100
		if c.JankEvery > 0 && (i+1)%c.JankEvery == 0 {
			d = p*3 + p/2
		}
		fn(i, v, d)
		v += p * (1 + d/p)
	}
}

// GfxInfo writes the capture as gfxinfo framestats of one window.
func (c Capture) GfxInfo(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	p := c.period()
	end := start
	c.frames(func(_ int, v, d int64) { end = v + d })
	gfxHead(bw, end/1e6+5, c.Frames)
	bw.WriteString("\tcom.example.feed/com.example.feed.MainActivity/android.view.ViewRootImpl@73f2e63 (visibility=0)\n")
	bw.WriteString("Window: com.example.feed/com.example.feed.MainActivity\nStats since: ")
	bw.WriteString(strconv.FormatInt(start, 10))
	bw.WriteString("ns\n\n---PROFILEDATA---\n")
	bw.WriteString("Flags,FrameTimelineVsyncId,IntendedVsync,Vsync,InputEventId,HandleInputStart,AnimationStart,PerformTraversalsStart,DrawStart,FrameDeadline,FrameInterval,FrameStartTime,SyncQueued,SyncStart,IssueDrawCommandsStart,SwapBuffers,FrameCompleted,DequeueBufferDuration,QueueBufferDuration,GpuCompleted,SwapBuffersCompleted,DisplayPresentTime,CommandSubmissionCompleted,\n")
	var buf []byte
	row := func(flags int64, id int, v, d int64) {
		buf = buf[:0]
		put := func(x int64) { buf = strconv.AppendInt(buf, x, 10); buf = append(buf, ',') }
		put(flags)
		put(int64(27_432_918 + 8*id))
		put(v)
		put(v)
		put(0)
		put(v + d*5/100)
		put(v + d*6/100)
		put(v + d*20/100)
		put(v + d*25/100)
		put(v + 2*p)         // FrameDeadline
		put(v + d*5/100 - 1) // "FrameInterval": a timestamp on API 31–34
		put(p)               // "FrameStartTime": the period
		put(v + d*40/100)
		put(v + d*42/100)
		put(v + d*45/100)
		put(v + d*70/100)
		put(v + d) // FrameCompleted
		put(21302)
		put(290781)
		put(v + d)
		put(v + d*75/100)
		put(v + d + p)
		put(v + d*70/100)
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	c.frames(func(i int, v, d int64) {
		row(0, i, v, d)
		if c.FlaggedEvery > 0 && (i+1)%c.FlaggedEvery == 0 {
			row(1, i, v, d/2)
		}
	})
	bw.WriteString("---PROFILEDATA---\n\nView hierarchy:\n\n  com.example.feed/com.example.feed.MainActivity/android.view.ViewRootImpl@73f2e63\n  212 views, 301.52 kB of render nodes\n\nTotal ViewRootImpl   : 1\n")
	return bw.Flush()
}

// gfxHead writes a gfxinfo dump's lines up to its first window, its
// clock at uptime ms.
func gfxHead(bw *bufio.Writer, uptime int64, frames int) {
	bw.WriteString("Applications Graphics Acceleration Info:\nUptime: ")
	bw.WriteString(strconv.FormatInt(uptime, 10))
	bw.WriteString(" Realtime: ")
	bw.WriteString(strconv.FormatInt(uptime+1_105_330_509, 10))
	bw.WriteString("\n\n** Graphics info for pid 31667 [com.example.feed] **\n\nStats since: ")
	bw.WriteString(strconv.FormatInt(start, 10))
	bw.WriteString("ns\nTotal frames rendered: ")
	bw.WriteString(strconv.Itoa(frames))
	bw.WriteString("\n\nProfile data in ms:\n\n")
}

// SurfaceFlinger writes the capture as `dumpsys SurfaceFlinger --latency`:
// the period, then desired present, actual present and frame ready times.
func (c Capture) SurfaceFlinger(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	p := c.period()
	bw.WriteString(strconv.FormatInt(p, 10))
	bw.WriteByte('\n')
	var buf []byte
	c.frames(func(_ int, v, d int64) {
		present := v + p*(1+d/p) + p
		buf = strconv.AppendInt(buf[:0], v+p, 10)
		buf = append(buf, '\t')
		buf = strconv.AppendInt(buf, present, 10)
		buf = append(buf, '\t')
		buf = strconv.AppendInt(buf, v+d, 10)
		buf = append(buf, '\n')
		bw.Write(buf)
	})
	return bw.Flush()
}

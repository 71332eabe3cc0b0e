package format

import (
	"fmt"
	"time"
)

// LogFormat is logcat's output format: Format is "threadtime" (the
// default), "time" or "brief"; Epoch prints seconds since 1970, Monotonic
// seconds since boot on CLOCK_MONOTONIC, Year the year, Usec microseconds
// (liblog's modifiers).
type LogFormat struct {
	Format                       string
	Epoch, Monotonic, Year, Usec bool
}

// LogLine prints one log entry logged at t the way `logcat -v <format>`
// does, with liblog's layouts: a 19-wide seconds count under -v epoch, a
// 6-wide one under -v monotonic (t is then the time since boot, as
// time.Unix(0, ns)).
func LogLine(f LogFormat, t time.Time, pid, tid int, level byte, tag, msg string) string {
	t = t.UTC()
	var ts string
	switch {
	case f.Monotonic:
		ts = fmt.Sprintf("%6d", t.Unix())
	case f.Epoch:
		ts = fmt.Sprintf("%19d", t.Unix())
	case f.Year:
		ts = t.Format("2006-01-02 15:04:05")
	default:
		ts = t.Format("01-02 15:04:05")
	}
	if f.Usec {
		ts += fmt.Sprintf(".%06d", t.Nanosecond()/1e3)
	} else {
		ts += fmt.Sprintf(".%03d", t.Nanosecond()/1e6)
	}
	switch f.Format {
	case "time":
		return fmt.Sprintf("%s %c/%-8s(%5d): %s\n", ts, level, tag, pid, msg)
	case "brief":
		return fmt.Sprintf("%c/%-8s(%5d): %s\n", level, tag, pid, msg)
	}
	return fmt.Sprintf("%s %5d %5d %c %-8s: %s\n", ts, pid, tid, level, tag, msg)
}

// Davey is the message of hwui's "Davey!" log line for a frame that took
// ms milliseconds: its FrameInfo as label=value pairs, in the API's
// columns (period is the refresh period, ns).
func Davey(api int, period, ms int64, r ProfileRow) string {
	if api >= 31 {
		return fmt.Sprintf("Davey! duration=%dms; Flags=0, FrameTimelineVsyncId=%d, IntendedVsync=%d, Vsync=%d, InputEventId=0, HandleInputStart=%d, AnimationStart=%d, PerformTraversalsStart=%d, DrawStart=%d, FrameDeadline=%d, FrameInterval=%d, FrameStartTime=%d, SyncQueued=%d, SyncStart=%d, IssueDrawCommandsStart=%d, SwapBuffers=%d, FrameCompleted=%d, DequeueBufferDuration=%d, QueueBufferDuration=%d, GpuCompleted=%d, SwapBuffersCompleted=%d, DisplayPresentTime=%d, ",
			ms, r.VsyncID, r.IntendedVsync, r.Vsync, r.HandleInputStart, r.AnimationStart, r.PerformTraversalsStart, r.DrawStart,
			r.Deadline, r.HandleInputStart-3000, period, r.SyncQueued, r.SyncStart, r.IssueDrawCommandsStart, r.SwapBuffers,
			r.Completed, r.DequeueBuffer, r.QueueBuffer, r.GpuCompleted, r.SwapBuffersCompleted, r.Present)
	}
	s := fmt.Sprintf("Davey! duration=%dms; Flags=0, IntendedVsync=%d, Vsync=%d, OldestInputEvent=9223372036854775807, NewestInputEvent=0, HandleInputStart=%d, AnimationStart=%d, PerformTraversalsStart=%d, DrawStart=%d, SyncQueued=%d, SyncStart=%d, IssueDrawCommandsStart=%d, SwapBuffers=%d, FrameCompleted=%d, DequeueBufferDuration=%d, QueueBufferDuration=%d, ",
		ms, r.IntendedVsync, r.Vsync, r.HandleInputStart, r.AnimationStart, r.PerformTraversalsStart, r.DrawStart,
		r.SyncQueued, r.SyncStart, r.IssueDrawCommandsStart, r.SwapBuffers, r.Completed, r.DequeueBuffer, r.QueueBuffer)
	if api >= 29 {
		s += fmt.Sprintf("GpuCompleted=%d, ", r.GpuCompleted)
	}
	return s
}

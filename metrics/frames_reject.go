package metrics

import (
	"slices"
	"time"
)

// Which rows of frame output are frames (DESIGN.md "A number that cannot be
// real is not data"). Real phones print rows that are not frames: hwui's
// RenderThread animations (Flags ≠ 0), rows still drawing (FrameCompleted 0),
// ring slots that still hold an older frame's value (a FrameCompleted before
// the row's own IntendedVsync), garbage (FrameCompleted 288234774265332736 on
// an Android 14 tablet), INT64_MAX sentinels, and SurfaceFlinger slots never
// written or whose fence is pending. Such a row is not a frame: it is counted
// under one FrameReject and never averaged in. This file is the one home of
// that rule; the collectors and `perfgate analyze frames` call it.

// FrameReject names why a row of frame output is not a frame.
type FrameReject string

// The reasons, in the order the rule checks them.
const (
	// FrameRejectFlags: gfxinfo Flags ≠ 0 (the design's rule: RenderThread
	// animations, skipped frames, window changes).
	FrameRejectFlags FrameReject = "flags"
	// FrameRejectSentinel: IntendedVsync ≤ 0 or INT64_MAX, or FrameCompleted
	// negative or INT64_MAX: a placeholder, not a time.
	FrameRejectSentinel FrameReject = "sentinel"
	// FrameRejectNotCompleted: FrameCompleted 0, the row of a frame still
	// drawing, or of one that never completed.
	FrameRejectNotCompleted FrameReject = "not_completed"
	// FrameRejectBeyondClock: IntendedVsync or FrameCompleted later than the
	// dump's own clock (its Uptime line) by more than FrameClockSlack; for
	// SurfaceFlinger, a present time later than the device clock read with
	// it.
	FrameRejectBeyondClock FrameReject = "beyond_clock"
	// FrameRejectCompletedBeforeVsync: FrameCompleted before IntendedVsync (a
	// ring slot still showing an older frame's value).
	FrameRejectCompletedBeforeVsync FrameReject = "completed_before_vsync"
	// FrameRejectTooLong: FrameCompleted − IntendedVsync above
	// FrameMaxDuration, longer than any frame a phone draws.
	FrameRejectTooLong FrameReject = "too_long"
	// FrameRejectDuplicateVsync: an IntendedVsync not after that of an
	// earlier frame of the same window (a repeated vsync).
	FrameRejectDuplicateVsync FrameReject = "duplicate_vsync"
	// FrameRejectEmpty: a SurfaceFlinger row whose present time B is 0 (a
	// slot never written, as a layer without buffers prints).
	FrameRejectEmpty FrameReject = "empty"
	// FrameRejectPendingFence: a SurfaceFlinger row whose B is INT64_MAX
	// (the present fence had not signalled).
	FrameRejectPendingFence FrameReject = "pending_fence"
	// FrameRejectBackwards: a SurfaceFlinger present time B not after the
	// previous frame's.
	FrameRejectBackwards FrameReject = "backwards"
)

// The limits of the rule.
const (
	// FrameMaxDuration is the longest frame the rule accepts: a minute, far
	// past frozen frames (700 ms) and ANRs (5 s), far below the years that
	// garbage completion times give.
	FrameMaxDuration = time.Minute
	// FrameClockSlack is how far past a dump's clock a timestamp may lie:
	// dumpsys prints the Uptime line before each app writes its rows, and a
	// dump of every process takes seconds.
	FrameClockSlack = 10 * time.Second
)

// FrameRejects counts rejected rows by reason.
type FrameRejects map[FrameReject]int

// Add counts one row under reason; an empty reason is not counted.
func (r FrameRejects) Add(reason FrameReject) {
	if reason != "" {
		r[reason]++
	}
}

// Total is the number of rows counted.
func (r FrameRejects) Total() int {
	n := 0
	for _, c := range r {
		n += c
	}
	return n
}

// Reasons lists the reasons counted, sorted, for stable output.
func (r FrameRejects) Reasons() []FrameReject {
	out := make([]FrameReject, 0, len(r))
	for k, c := range r {
		if c > 0 {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// GfxInfoRowReject applies the rule to one PROFILEDATA row on its own: it
// returns why the row is not a frame, or "" when it is one. clockNs is the
// dump's clock (GfxInfo.ClockNs), 0 when unknown. Rows are checked in the
// order of the FrameReject constants, so a flagged row is always "flags".
// DisplayPresentTime and FrameDeadline do not decide: a value of theirs that
// cannot be real is treated as absent (see GfxInfoFrameDeadlineMissed).
func GfxInfoRowReject(f GfxInfoFrame, clockNs int64) FrameReject {
	switch {
	case f.Flags != 0:
		return FrameRejectFlags
	case f.IntendedVsync <= 0 || f.IntendedVsync == frameInt64Max || f.FrameCompleted < 0 || f.FrameCompleted == frameInt64Max:
		return FrameRejectSentinel
	case f.FrameCompleted == 0:
		return FrameRejectNotCompleted
	case clockNs > 0 && (f.IntendedVsync > clockNs+int64(FrameClockSlack) || f.FrameCompleted > clockNs+int64(FrameClockSlack)):
		return FrameRejectBeyondClock
	case f.FrameCompleted < f.IntendedVsync:
		return FrameRejectCompletedBeforeVsync
	case f.FrameCompleted-f.IntendedVsync > int64(FrameMaxDuration):
		return FrameRejectTooLong
	}
	return ""
}

// GfxInfoRowPending reports a verdict that a later dump may change: the row
// of a frame still drawing shows FrameCompleted 0, or the value its ring slot
// held before (earlier than its IntendedVsync), until the frame completes.
func GfxInfoRowPending(r FrameReject) bool {
	return r == FrameRejectNotCompleted || r == FrameRejectCompletedBeforeVsync
}

// GfxInfoJudge applies the rule to one window's rows in output order, as one
// dump shows them: GfxInfoRowReject for each row, and a row that passes it
// but whose IntendedVsync is not after that of an earlier frame of the window
// is a duplicate. It returns one verdict per row ("" for a frame).
func GfxInfoJudge(rows []GfxInfoFrame, clockNs int64) []FrameReject {
	out := make([]FrameReject, len(rows))
	var last int64
	for i, f := range rows {
		r := GfxInfoRowReject(f, clockNs)
		if r == "" && f.IntendedVsync <= last {
			r = FrameRejectDuplicateVsync
		}
		if r == "" {
			last = f.IntendedVsync
		}
		out[i] = r
	}
	return out
}

// GfxInfoFramesOf applies GfxInfoJudge to a PROFILEDATA table taken at
// clockNs: it returns the frames, in output order, and the count of the
// other rows by reason.
func GfxInfoFramesOf(t *GfxInfoFrameTable, clockNs int64) ([]GfxInfoFrame, FrameRejects) {
	rows := t.Frames()
	rejects := FrameRejects{}
	frames := rows[:0]
	for i, r := range GfxInfoJudge(rows, clockNs) {
		if r != "" {
			rejects.Add(r)
			continue
		}
		frames = append(frames, rows[i])
	}
	return frames, rejects
}

// ClockNs is the dump's clock in ns (the Uptime line, CLOCK_MONOTONIC, the
// clock of the frame timestamps), 0 when the dump has none.
func (g *GfxInfo) ClockNs() int64 {
	if g.UptimeMillis <= 0 {
		return 0
	}
	return g.UptimeMillis * int64(time.Millisecond)
}

// SurfaceFlingerRowReject applies the rule to one --latency row: B = 0 is an
// empty slot, B = INT64_MAX a pending fence, another B ≤ 0 a sentinel, a B
// not after prevB (the previous frame's, 0 for none) goes backwards, and
// with clockNs > 0 (the device clock read with the output) a B later than
// clockNs + FrameClockSlack is beyond the clock. A and C do not decide: phones
// print INT64_MAX there (Android 8 Honor 9 capture) for frames B shows.
func SurfaceFlingerRowReject(f SurfaceFlingerFrame, prevB, clockNs int64) FrameReject {
	b := f.ActualPresent
	switch {
	case b == 0:
		return FrameRejectEmpty
	case b == frameInt64Max:
		return FrameRejectPendingFence
	case b < 0:
		return FrameRejectSentinel
	case clockNs > 0 && b > clockNs+int64(FrameClockSlack):
		return FrameRejectBeyondClock
	case b <= prevB:
		return FrameRejectBackwards
	}
	return ""
}

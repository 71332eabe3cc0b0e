package gfxinfo

import (
	"math"
	"slices"
	"time"
)

// frameInt64Max is the sentinel the platform prints for "no value" (a pending
// fence in SurfaceFlinger, a frame without a vsync id in hwui).
const frameInt64Max = math.MaxInt64

// Which rows of frame output are frames (DESIGN.md "A number that cannot be
// real is not data"). Real phones print rows that are not frames: hwui's
// RenderThread animations (Flags ≠ 0), rows still drawing (FrameCompleted 0),
// ring slots that still hold an older frame's value (a FrameCompleted before
// the row's own IntendedVsync), garbage (FrameCompleted 288234774265332736 on
// an Android 14 tablet), INT64_MAX sentinels, and SurfaceFlinger slots never
// written or whose fence is pending. Such a row is not a frame: it is counted
// under one Reject and never averaged in. This file is the one home of
// that rule; the collectors and `perfgate analyze frames` call it.

// Reject names why a row of frame output is not a frame.
type Reject string

// The reasons, in the order the rule checks them.
const (
	// RejectFlags: gfxinfo Flags ≠ 0 (the design's rule: RenderThread
	// animations, skipped frames, window changes).
	RejectFlags Reject = "flags"
	// RejectSentinel: IntendedVsync ≤ 0 or INT64_MAX, or FrameCompleted
	// negative or INT64_MAX: a placeholder, not a time.
	RejectSentinel Reject = "sentinel"
	// RejectNotCompleted: FrameCompleted 0, the row of a frame still
	// drawing, or of one that never completed.
	RejectNotCompleted Reject = "not_completed"
	// RejectBeyondClock: IntendedVsync or FrameCompleted later than the
	// dump's own clock (its Uptime line) by more than ClockSlack; for
	// SurfaceFlinger, a present time later than the device clock read with
	// it.
	RejectBeyondClock Reject = "beyond_clock"
	// RejectCompletedBeforeVsync: FrameCompleted before IntendedVsync (a
	// ring slot still showing an older frame's value).
	RejectCompletedBeforeVsync Reject = "completed_before_vsync"
	// RejectTooLong: FrameCompleted − IntendedVsync above
	// MaxDuration, longer than any frame a phone draws.
	RejectTooLong Reject = "too_long"
	// RejectDuplicateVsync: an IntendedVsync not after that of an
	// earlier frame of the same window (a repeated vsync).
	RejectDuplicateVsync Reject = "duplicate_vsync"
	// RejectEmpty: a SurfaceFlinger row whose present time B is 0 (a
	// slot never written, as a layer without buffers prints).
	RejectEmpty Reject = "empty"
	// RejectPendingFence: a SurfaceFlinger row whose B is INT64_MAX
	// (the present fence had not signalled).
	RejectPendingFence Reject = "pending_fence"
	// RejectBackwards: a SurfaceFlinger present time B not after the
	// previous frame's.
	RejectBackwards Reject = "backwards"
)

// The limits of the rule.
const (
	// MaxDuration is the longest frame the rule accepts: a minute, far
	// past frozen frames (700 ms) and metrics.ANRs (5 s), far below the years that
	// garbage completion times give.
	MaxDuration = time.Minute
	// ClockSlack is how far past a dump's clock a timestamp may lie:
	// dumpsys prints the Uptime line before each app writes its rows, and a
	// dump of every process takes seconds.
	ClockSlack = 10 * time.Second
)

// Rejects counts rejected rows by reason.
type Rejects map[Reject]int

// Add counts one row under reason; an empty reason is not counted.
func (r Rejects) Add(reason Reject) {
	if reason != "" {
		r[reason]++
	}
}

// Total is the number of rows counted.
func (r Rejects) Total() int {
	n := 0
	for _, c := range r {
		n += c
	}
	return n
}

// Reasons lists the reasons counted, sorted, for stable output.
func (r Rejects) Reasons() []Reject {
	out := make([]Reject, 0, len(r))
	for k, c := range r {
		if c > 0 {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// RowReject applies the rule to one PROFILEDATA row on its own: it
// returns why the row is not a frame, or "" when it is one. clockNs is the
// dump's clock (Info.ClockNs), 0 when unknown. Rows are checked in the
// order of the Reject constants, so a flagged row is always "flags".
// DisplayPresentTime and FrameDeadline do not decide: a value of theirs that
// cannot be real is treated as absent (see frames.MissedDeadline).
func RowReject(f FrameStats, clockNs int64) Reject {
	switch {
	case f.Flags != 0:
		return RejectFlags
	case f.IntendedVsync <= 0 || f.IntendedVsync == frameInt64Max || f.FrameCompleted < 0 || f.FrameCompleted == frameInt64Max:
		return RejectSentinel
	case f.FrameCompleted == 0:
		return RejectNotCompleted
	case clockNs > 0 && (f.IntendedVsync > clockNs+int64(ClockSlack) || f.FrameCompleted > clockNs+int64(ClockSlack)):
		return RejectBeyondClock
	case f.FrameCompleted < f.IntendedVsync:
		return RejectCompletedBeforeVsync
	case f.FrameCompleted-f.IntendedVsync > int64(MaxDuration):
		return RejectTooLong
	}
	return ""
}

// RowPending reports a verdict that a later dump may change: the row
// of a frame still drawing shows FrameCompleted 0, or the value its ring slot
// held before (earlier than its IntendedVsync), until the frame completes.
func RowPending(r Reject) bool {
	return r == RejectNotCompleted || r == RejectCompletedBeforeVsync
}

// Judge applies the rule to one window's rows in output order, as one
// dump shows them: RowReject for each row, and a row that passes it
// but whose IntendedVsync is not after that of an earlier frame of the window
// is a duplicate. It returns one verdict per row ("" for a frame).
func Judge(rows []FrameStats, clockNs int64) []Reject {
	out := make([]Reject, len(rows))
	var last int64
	for i, f := range rows {
		r := RowReject(f, clockNs)
		if r == "" && f.IntendedVsync <= last {
			r = RejectDuplicateVsync
		}
		if r == "" {
			last = f.IntendedVsync
		}
		out[i] = r
	}
	return out
}

// FramesOf applies Judge to a PROFILEDATA table taken at
// clockNs: it returns the frames, in output order, and the count of the
// other rows by reason.
func FramesOf(t *FrameTable, clockNs int64) ([]FrameStats, Rejects) {
	rows := t.Frames()
	rejects := Rejects{}
	frames := rows[:0]
	for i, r := range Judge(rows, clockNs) {
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
func (g *Info) ClockNs() int64 {
	if g.UptimeMillis <= 0 {
		return 0
	}
	return g.UptimeMillis * int64(time.Millisecond)
}

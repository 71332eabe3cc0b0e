package gfxinfo

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestGfxInfoRowReject(t *testing.T) {
	const clock = 26045845 * ms // the anavmode capture's Uptime line
	ok := FrameStats{IntendedVsync: 25828682995260, FrameCompleted: 25828695000000}
	with := func(change func(*FrameStats)) FrameStats { f := ok; change(&f); return f }
	tests := []struct {
		name  string
		f     FrameStats
		clock int64
		want  Reject
	}{
		{"a frame", ok, clock, ""},
		{"a frame, no clock", ok, 0, ""},
		{"RenderThread animation", with(func(f *FrameStats) { f.Flags = 2 }), clock, RejectFlags},
		{"flagged and garbage", with(func(f *FrameStats) { f.Flags = 10; f.FrameCompleted = 1 }), clock, RejectFlags},
		{"still drawing", with(func(f *FrameStats) { f.FrameCompleted = 0 }), clock, RejectNotCompleted},
		{"Davey INT64_MAX completion", with(func(f *FrameStats) { f.FrameCompleted = math.MaxInt64 }), clock, RejectSentinel},
		{"negative completion", with(func(f *FrameStats) { f.FrameCompleted = -1 }), clock, RejectSentinel},
		{"no vsync", with(func(f *FrameStats) { f.IntendedVsync = 0 }), clock, RejectSentinel},
		// SettingsHomepageActivity row 66 of the anavmode capture.
		{"garbage completion", with(func(f *FrameStats) { f.FrameCompleted = 288234774265332736 }), clock, RejectBeyondClock},
		{"garbage completion, no clock", with(func(f *FrameStats) { f.FrameCompleted = 288234774265332736 }), 0, RejectTooLong},
		{"completed just within the slack", with(func(f *FrameStats) { f.IntendedVsync = clock; f.FrameCompleted = clock + int64(ClockSlack) }), clock, ""},
		{"vsync beyond the clock", with(func(f *FrameStats) {
			f.IntendedVsync = clock + int64(ClockSlack) + 1
			f.FrameCompleted = f.IntendedVsync + ms
		}), clock, RejectBeyondClock},
		// RecentsActivity row 19: the slot still holds a frame of 4 s before.
		{"stale completion", FrameStats{IntendedVsync: 24299277923990, FrameCompleted: 24294916467447}, clock, RejectCompletedBeforeVsync},
		{"a minute", with(func(f *FrameStats) { f.FrameCompleted = f.IntendedVsync + int64(MaxDuration) }), clock, ""},
		{"over a minute", with(func(f *FrameStats) { f.FrameCompleted = f.IntendedVsync + int64(MaxDuration) + 1 }), 0, RejectTooLong},
		// Stale DisplayPresentTime and a deadline of INT64_MAX do not decide.
		{"stale present time", with(func(f *FrameStats) { f.DisplayPresentTime = 25828107040153 }), clock, ""},
		{"no deadline", with(func(f *FrameStats) { f.FrameDeadline = math.MaxInt64 }), clock, ""},
	}
	for _, tc := range tests {
		if got := RowReject(tc.f, tc.clock); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	for _, r := range []Reject{RejectNotCompleted, RejectCompletedBeforeVsync} {
		if !RowPending(r) {
			t.Errorf("%s is what a row still drawing shows", r)
		}
	}
	if RowPending(RejectBeyondClock) || RowPending("") {
		t.Error("garbage and frames are final")
	}
}

func TestGfxInfoJudgeDuplicates(t *testing.T) {
	rows := []FrameStats{
		{IntendedVsync: 100 * ms, FrameCompleted: 110 * ms},
		{Flags: 2, IntendedVsync: 116 * ms, FrameCompleted: 120 * ms}, // an animation frame
		{IntendedVsync: 116 * ms, FrameCompleted: 130 * ms},           // the UI frame of the same vsync: a frame
		{IntendedVsync: 116 * ms, FrameCompleted: 131 * ms},           // the same vsync again
		{IntendedVsync: 108 * ms, FrameCompleted: 140 * ms},           // before a frame already taken
		{IntendedVsync: 133 * ms, FrameCompleted: 0},                  // drawing: does not block
		{IntendedVsync: 150 * ms, FrameCompleted: 160 * ms},
	}
	got := Judge(rows, 0)
	want := []Reject{"", RejectFlags, "", RejectDuplicateVsync, RejectDuplicateVsync, RejectNotCompleted, ""}
	if strings.Join(rejectStrings(got), ",") != strings.Join(rejectStrings(want), ",") {
		t.Errorf("verdicts %q, want %q", got, want)
	}
}

func rejectStrings(rs []Reject) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r)
		if r == "" {
			out[i] = "frame"
		}
	}
	return out
}

func first[A, B any](a A, _ B) A { return a }

func TestFrameRejects(t *testing.T) {
	r := Rejects{}
	r.Add("")
	r.Add(RejectFlags)
	r.Add(RejectFlags)
	r.Add(RejectBeyondClock)
	if r.Total() != 3 || len(r) != 2 || strings.Join(rejectStrings(r.Reasons()), ",") != "beyond_clock,flags" {
		t.Errorf("%v total %d reasons %v", r, r.Total(), r.Reasons())
	}
}

const ms = int64(time.Millisecond)

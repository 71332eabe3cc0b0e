// Package framesrc is a session's frame source. It plans the frame poll of
// a tick (`dumpsys gfxinfo <pkg> framestats`, filtered on the device once
// the dump's columns are known, or `dumpsys SurfaceFlinger --latency
// <layer>`), takes from each poll the frames earlier polls did not show
// (DESIGN.md "Metric definitions"), rejects the rows that cannot be frames
// and waits a bounded time for those still drawing, and summarises a
// step's frames. What it finds goes into the session's result.Result: the
// frames, the rows rejected and the gaps of frames lost between two polls.
//
// A Source is not safe for concurrent use; the session calls it under its
// lock.
package framesrc

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/android/surfaceflinger"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/perftest/internal/devcmd"
	"github.com/perfgate/perfgate/result"
)

// BufferLen is the smaller of the device's frame ring buffers: gfxinfo
// keeps the last 120 frames per window, SurfaceFlinger 127 per layer.
const BufferLen = 120

// Env is what the session gives its frame source.
type Env struct {
	// Result receives the frames, the rows rejected and the gaps of frames
	// lost when a ring wrapped between two polls.
	Result *result.Result
	// Note records a note for the Result.
	Note func(format string, args ...any)
	// StepAt names the step open at host time hostNs, for a gap.
	StepAt func(hostNs int64) string
	// GfxClock maps host time onto the gfxinfo dumps' Uptime line
	// (CLOCK_MONOTONIC), which the source feeds; ProcClock onto
	// /proc/uptime (CLOCK_BOOTTIME), which the session feeds.
	GfxClock, ProcClock Clock
}

// Clock is one of the session's maps of host time (ns since the session
// began) onto a device clock.
type Clock interface {
	// Observe adds a round trip sent at sendNs and answered at recvNs in
	// which the device read devNs, at resolution resNs, on the clock
	// named source.
	Observe(source string, sendNs, recvNs, devNs, resNs int64)
	// Latest is the latest device time host time hostNs may map to; ok is
	// false while the map has no observation.
	Latest(hostNs int64) (devNs int64, ok bool)
}

// Config is what the session chose for its frames.
type Config struct {
	Package string // the app, whose gfxinfo is polled
	// Kind is frames.SourceGfxInfo or frames.SourceSurfaceFlinger, as
	// chosen ("" when frames are not collected and no source was named).
	Kind      string
	Layer     string        // the SurfaceFlinger layer polled
	RefreshHz float64       // the device's refresh rate
	Interval  time.Duration // the cheap lane's tick interval
	Settle    time.Duration // how long Stop waits for frames in flight
}

// Tick is what the session read in the round trip of a frame poll, besides
// the dump.
type Tick struct {
	SendNs, RecvNs int64 // host ns: the round trip sent, and answered
	// UptimeNs is /proc/uptime (ns) read after the dump in the same round
	// trip, 0 if unread; SurfaceFlinger rows past it are rejected.
	UptimeNs int64
	// DumpUptimeNs is /proc/uptime (ns) read right before a SurfaceFlinger
	// dump (Plan.Uptime), 0 if unread.
	DumpUptimeNs int64
}

// Plan is a frame poll: its commands, run in this order in one round trip.
type Plan struct {
	// Uptime asks for /proc/uptime read right before the dump
	// (Tick.DumpUptimeNs): SurfaceFlinger rows carry no clock of their
	// own, and a clock read before the dump bounds what it holds, so Stop
	// polls until it has passed the stop and no frame presented before
	// the stop is left out of the last dump.
	Uptime bool
	// Cmd is the dump; Filtered says it keeps only the rows not taken yet.
	Cmd      string
	Filtered bool
}

// Source is a session's frame source.
type Source struct {
	res                 *result.Result
	note                func(format string, args ...any)
	stepAt              func(hostNs int64) string
	clockGfx, clockProc Clock
	cfg                 Config

	// inFlight are the rows still drawing when Stop's last poll ran, left
	// out of the frames (Source.finishPending).
	inFlight    []inFlightFrame
	gfxWin      map[string]*gfxWindowState
	gfxClock    int64 // the last gfxinfo dump's clock (ns)
	lastNewHost int64 // host ns of the last poll that took a frame
	// lastUptime is /proc/uptime (ns) read right before the last
	// SurfaceFlinger dump, 0 unread: every frame presented before it is in
	// that dump or an earlier one.
	lastUptime int64
	// lastFramePoll is when the last tick that polled frames was planned
	// (host ns), 0 before the first.
	lastFramePoll int64
	sfFenceWait   bool // the last --latency poll ended at a pending fence
	// frameDumps counts gfxinfo dumps read; gfxVsyncCol is the
	// IntendedVsync column of their rows (0 unknown, -1 unusable), and
	// gfxFilterOff says the device cannot filter them (filter.go).
	frameDumps   int
	gfxVsyncCol  int
	gfxFilterOff bool
	laterBuf     []bool
	flaggedAt    []int64
	sfLast       int64                       // greatest B kept
	sfKey        surfaceflinger.LatencyFrame // the last row taken or rejected
	sfHaveKey    bool
	sfPolls      int   // --latency polls,
	sfEmptyPolls int   // those that showed no frame,
	sfPeriodOnly int   // and those that showed only the period line
	sfPeriod     int64 // first line of --latency
}

// New is a frame source writing into env.Result; Use tells it what to
// poll.
func New(env Env) *Source {
	return &Source{
		res: env.Result, note: env.Note, stepAt: env.StepAt,
		clockGfx: env.GfxClock, clockProc: env.ProcClock,
		gfxWin: map[string]*gfxWindowState{},
	}
}

// Use sets what the session chose, before the first poll.
func (s *Source) Use(cfg Config) { s.cfg = cfg }

// Kind is the source chosen: frames.SourceGfxInfo or
// frames.SourceSurfaceFlinger ("" for none).
func (s *Source) Kind() string { return s.cfg.Kind }

// Layer is the SurfaceFlinger layer polled, "" for gfxinfo.
func (s *Source) Layer() string { return s.cfg.Layer }

func (s *Source) surfaceFlinger() bool { return s.cfg.Kind == frames.SourceSurfaceFlinger }

// Cmd names the source's command for reasons.
func (s *Source) Cmd() string {
	if s.surfaceFlinger() {
		return "dumpsys SurfaceFlinger --latency " + adbx.Quote(s.cfg.Layer)
	}
	return "dumpsys gfxinfo " + s.cfg.Package + " framestats"
}

// ClearCmd clears the source's frame history, so the first poll holds
// only the session's frames.
func (s *Source) ClearCmd() string {
	if s.surfaceFlinger() {
		return "dumpsys SurfaceFlinger --latency-clear " + adbx.Quote(s.cfg.Layer)
	}
	return "dumpsys gfxinfo " + adbx.Quote(s.cfg.Package) + " reset"
}

// Plan is the next frame poll, planned at host time nowNs.
func (s *Source) Plan(nowNs int64) Plan {
	s.lastFramePoll = nowNs
	if s.surfaceFlinger() {
		return Plan{Uptime: true, Cmd: "dumpsys SurfaceFlinger --latency " + adbx.Quote(s.cfg.Layer)}
	}
	p := Plan{Cmd: "dumpsys gfxinfo " + adbx.Quote(s.cfg.Package) + " framestats"}
	if f := s.gfxFilter(); f != "" {
		p.Cmd += " | grep -E " + adbx.Quote(f)
		p.Filtered = true
	}
	return p
}

// Due says whether a tick planned at host time nowNs polls frames. The
// device keeps a window's last BufferLen frames, and an app draws at most
// one a refresh period, however idle it was before a burst: frames are
// polled once the time since the last poll, plus the tick after this one,
// would pass framePollShare of that ring's time, and on every tick while a
// row waits to be resolved (one still drawing, a pending fence), so the
// rejection rule's bounded wait sees it as often as before.
func (s *Source) Due(nowNs int64) bool {
	if s.lastFramePoll == 0 || s.sfFenceWait || s.cfg.RefreshHz <= 0 {
		return true
	}
	for _, st := range s.gfxWin {
		if len(st.pending) > 0 {
			return true
		}
	}
	ring := float64(BufferLen) / s.cfg.RefreshHz * float64(time.Second)
	return float64(nowNs-s.lastFramePoll)+float64(s.cfg.Interval) > framePollShare*ring
}

// framePollShare is the part of the device's frame ring time that may pass
// between two frame polls: the rest is room for a host or device that
// stalls (1.5 s at 60 Hz, 0.75 s at 120 Hz), past which the ring wraps and
// the steps of the time lost have no frame figures. A poll's bytes are
// mostly its new rows, whatever the share: BenchmarkScrollBytes reads 1–3 %
// more at 0.25 than at 0.4, where two copies of the test suite at once
// met stalls past the room.
const framePollShare = 0.25

// Absorb parses one frame poll, the output res of cmd (filtered: cmd keeps
// only the rows not taken yet, Plan.Filtered), and takes the frames it has
// not taken yet (DESIGN.md: SurfaceFlinger keeps B greater than the last B
// kept; gfxinfo keeps IntendedVsync greater than the last kept for that
// window), counts the rows that are not frames by reason (gfxinfo.Reject),
// feeds the gfxinfo Uptime line to the gfxinfo clock map and returns how
// many frames were new.
func (s *Source) Absorb(t Tick, res adbx.Result, cmd string, filtered bool) int {
	if t.DumpUptimeNs > 0 {
		s.lastUptime = t.DumpUptimeNs
	}
	text := devcmd.Output(res)
	if i := strings.Index(cmd, " | grep -E "); i >= 0 {
		cmd = cmd[:i] + " | grep -E <rows not taken>" // notes need not quote the pattern
	}
	// grep exits 1 when it keeps no line; anything else that is not a
	// success (127: no grep) means this device polls whole dumps.
	if filtered && res.ExitCode != 0 && (res.ExitCode != 1 || len(bytes.TrimSpace(res.Stderr)) > 0) {
		s.gfxFilterOff = true
		s.note("frames: %v; polling whole framestats dumps", res.Err("grep -E"))
		return 0
	}
	if s.surfaceFlinger() {
		if res.ExitCode != 0 {
			s.note("frames: %v", res.Err(cmd))
			return 0
		}
		return s.absorbSF(text, cmd, t.SendNs, t.UptimeNs)
	}
	return s.absorbGfx(text, cmd, t.SendNs, t.RecvNs)
}

// Pending reports whether frames of the time before host time stopNs may
// still be missing from what the polls took, so Stop polls again; nowNs is
// the host time now.
//
// SurfaceFlinger places a frame by its present time, and a dump shows every
// frame presented before it: the frames are in once a poll read the device
// clock past the stop (the latest the clock map allows), and no row waits
// for its present fence.
//
// gfxinfo places a frame by its vsync, and a frame drawing shows no row
// until it completes; rows complete in vsync order, so a window is done
// once it shows a row of a vsync after the stop. A window without one may
// still be drawing while it completed a frame within Settle of device time
// before the last dump; an app that drew nothing for that long is idle. A
// row still drawing under the rejection rule is waited for too.
func (s *Source) Pending(stopNs, nowNs int64) bool {
	if s.surfaceFlinger() {
		if s.sfFenceWait {
			return true
		}
		stopDev, ok := s.clockProc.Latest(stopNs)
		if !ok || s.lastUptime == 0 {
			return false
		}
		return s.lastUptime < stopDev
	}
	stopDev := int64(math.MaxInt64)
	if d, ok := s.clockGfx.Latest(stopNs); ok {
		stopDev = d
	}
	quiet := int64(s.cfg.Settle)
	for _, st := range s.gfxWin {
		for pk := range st.pending {
			if pk.intended < stopDev {
				return true
			}
		}
		if st.lastKept >= stopDev {
			continue
		}
		if s.gfxClock > 0 {
			if s.gfxClock-st.lastDone < quiet {
				return true
			}
		} else if nowNs-s.lastNewHost < quiet {
			return true
		}
	}
	return false
}

// Finish runs at Stop, at host time nowNs, after the last poll: it settles
// the rows still drawing (finishPending) and notes a layer that showed no
// frame in any poll.
func (s *Source) Finish(nowNs int64) {
	s.finishPending(nowNs)
	if s.surfaceFlinger() && s.sfPolls > 0 && s.sfEmptyPolls == s.sfPolls {
		what := "only empty rows"
		if s.sfPeriodOnly == s.sfPolls {
			what = "only the refresh period line"
		}
		s.note("frames: dumpsys SurfaceFlinger --latency %s showed %s in every poll: the layer holds no frames of the app (on Android 11+ a wrong or non-BLAST layer prints this)", adbx.Quote(s.cfg.Layer), what)
	}
}

// Forget drops what the source remembers of the windows' rows, so the next
// dump's frames are all new (for benchmarks).
func (s *Source) Forget() { clear(s.gfxWin) }

// addFrame adds a frame to the Result, in time order: a row that finished
// drawing late goes before the frames taken past it.
func (s *Source) addFrame(f frames.Frame) {
	fr := s.res.Frames
	i := len(fr)
	for i > 0 && fr[i-1].Time() > f.Time() {
		i--
	}
	s.res.Frames = slices.Insert(fr, i, f)
}

// rejectRow counts a row that is not a frame; every reason but Flags ≠ 0
// (the many animation rows) also names the row in the Result.
func (s *Source) rejectRow(f frames.Frame, reason gfxinfo.Reject, waited, host int64) {
	r := s.res
	if r.FramesRejected == nil {
		r.FramesRejected = gfxinfo.Rejects{}
	}
	r.FramesRejected.Add(reason)
	if reason == gfxinfo.RejectFlags {
		s.flaggedAt = append(s.flaggedAt, f.Time())
		return
	}
	r.RejectedFrames = append(r.RejectedFrames, result.RejectedFrame{Frame: f, Reason: string(reason), WaitedNs: waited, HostNs: host})
}

// lostFrames records that the device's frame buffer wrapped between two
// polls: the oldest frame of a full buffer, at device time to, is newer
// than the newest of the poll before, at from; the frames between are
// lost.
//
// The span is narrowed by half a refresh period at each end: a frame's time
// is a vsync's, so a frame lost is a vsync or more after from and before
// to, and half the period now still holds should the display switch to
// twice its rate. A span with no room for one (the ring turned exactly
// once between the polls) lost none, and is no gap: otherwise a step
// ending within a frame of from would be told its frames were lost.
func (s *Source) lostFrames(hostNs int64, cmd string, from, to int64) {
	if s.cfg.RefreshHz > 0 || s.sfPeriod > 0 {
		p := s.PeriodNs()
		if to-from < p {
			return
		}
		from, to = from+p/2-1, to-p/2+1
	}
	s.res.Gaps = append(s.res.Gaps, result.Gap{
		Lane: "cheap", HostNs: hostNs, Step: s.stepAt(hostNs),
		Error:      cmd + ": frame buffer wrapped between polls; frames were lost",
		LostFromNs: from, LostToNs: to,
	})
}

// PeriodNs is R of the metric definitions: the SurfaceFlinger output's
// first line for that source, else the device's refresh rate.
func (s *Source) PeriodNs() int64 {
	if s.surfaceFlinger() && s.sfPeriod > 0 {
		return s.sfPeriod
	}
	return int64(math.Round(1e9 / s.cfg.RefreshHz))
}

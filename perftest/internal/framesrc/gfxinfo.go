package framesrc

import (
	"cmp"
	"errors"
	"math"
	"slices"
	"time"

	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/frames"
)

// absorbGfx takes the new frames of a framestats dump polled in the round
// trip sent at host time send and answered at recv.
func (s *Source) absorbGfx(text []byte, cmd string, send, recv int64) int {
	g, err := gfxinfo.Parse(text)
	if errors.Is(err, gfxinfo.ErrNoProcess) {
		return 0 // the app is not running; health tracking records why
	}
	if err != nil {
		s.note("frames: %s: %v", cmd, err)
		return 0
	}
	if g.UptimeMillis > 0 {
		s.clockGfx.Observe("gfxinfo Uptime", send, recv, g.UptimeMillis*int64(time.Millisecond), int64(time.Millisecond))
	}
	clock := g.ClockNs()
	if clock > 0 {
		s.gfxClock = clock
	}
	s.frameDumps++
	n := 0
	for _, w := range g.Windows() {
		if w.Frames == nil {
			continue
		}
		s.learnGfxColumns(w.Frames)
		if st := s.gfxWin[w.Label()]; st != nil {
			st.seenAt = s.frameDumps
		}
		if w.Frames.Len() == 0 {
			continue
		}
		n += s.absorbGfxWindow(w.Label(), w.Frames.Frames(), clock, cmd, send)
	}
	return n
}

// A row still drawing (FrameCompleted 0, or a value older than its own
// vsync that its ring slot kept) never holds back the rows after it. It is
// waited for while no later row of its window has completed; once one has,
// for gfxStuckPolls more polls and gfxStuckWait of device time, and then it
// is dropped, counted and named in the Result. A real phone can leave such a
// row forever (anavmode capture, SpaActivity).
const (
	gfxStuckWait  = 2 * time.Second
	gfxStuckPolls = 3
)

// gfxWindowState is what the source remembers of one gfxinfo window.
type gfxWindowState struct {
	lastKept int64 // greatest IntendedVsync taken
	lastDone int64 // greatest FrameCompleted taken
	prevMax  int64 // greatest IntendedVsync of any row of the previous dump
	seenMax  int64 // greatest IntendedVsync of any row shown so far,
	seenUI   int64 // and of any row of Flags 0
	seenAt   int   // the last dump (Source.frameDumps) that showed the window
	// done holds the rows taken or rejected that the ring may still show.
	done map[gfxRowKey]struct{}
	// pending holds the rows still drawing, by key with flagged false.
	pending map[gfxRowKey]*gfxPending
}

// gfxRowKey tells rows apart across dumps: an animation row (Flags ≠ 0) and
// the UI frame of the same vsync share IntendedVsync on real phones.
type gfxRowKey struct {
	intended, vsync int64
	flagged         bool
}

type gfxPending struct {
	frame  gfxinfo.FrameStats
	reason gfxinfo.Reject
	// firstDev and firstHost are when the row was first seen; afterDev,
	// afterHost and afterPolls count from the first dump in which a later
	// row of the window had completed.
	firstDev, firstHost int64
	afterDev, afterHost int64
	afterPolls          int
}

// gfxRowDone reports a row with a completion time, whatever its flags.
func gfxRowDone(f gfxinfo.FrameStats) bool {
	return f.FrameCompleted > 0 && f.FrameCompleted >= f.IntendedVsync && f.FrameCompleted != math.MaxInt64
}

// absorbGfxWindow takes one window's new frames from one dump.
func (s *Source) absorbGfxWindow(name string, rows []gfxinfo.FrameStats, clock int64, cmd string, send int64) int {
	st := s.gfxWin[name]
	if st == nil {
		st = &gfxWindowState{done: map[gfxRowKey]struct{}{}, pending: map[gfxRowKey]*gfxPending{}}
		s.gfxWin[name] = st
	}
	minIV, maxIV := rows[0].IntendedVsync, rows[0].IntendedVsync
	for _, f := range rows {
		minIV, maxIV = min(minIV, f.IntendedVsync), max(maxIV, f.IntendedVsync)
		if f.Flags == 0 {
			st.seenUI = max(st.seenUI, f.IntendedVsync)
		}
	}
	// Frames were lost only when the ring holds nothing of the last dump.
	if len(rows) >= BufferLen && st.prevMax != 0 && minIV > st.prevMax {
		s.lostFrames(send, cmd, st.prevMax, minIV)
	}
	st.prevMax = maxIV
	st.seenMax = max(st.seenMax, maxIV)
	st.seenAt = s.frameDumps
	// later[i]: some row after row i has completed.
	later := slices.Grow(s.laterBuf[:0], len(rows))[:len(rows)]
	later[len(rows)-1] = false
	for i := len(rows) - 2; i >= 0; i-- {
		later[i] = later[i+1] || gfxRowDone(rows[i+1])
	}
	s.laterBuf = later
	var seen map[gfxRowKey]bool // pending rows this dump shows
	n := 0
	for i, f := range rows {
		key := gfxRowKey{f.IntendedVsync, f.Vsync, f.Flags != 0}
		if _, ok := st.done[key]; ok {
			continue
		}
		r := gfxinfo.RowReject(f, clock)
		pk := gfxRowKey{f.IntendedVsync, f.Vsync, false}
		p := st.pending[pk]
		if f.Flags == 0 && gfxinfo.RowPending(r) {
			if seen == nil {
				seen = map[gfxRowKey]bool{}
			}
			seen[pk] = true
			s.waitFor(name, st, pk, f, r, later[i], clock, send)
			continue
		}
		delete(st.pending, pk)
		st.done[key] = struct{}{}
		// A row that was drawing when later rows were taken completes
		// below the last kept vsync; it is still new.
		if r == "" && f.IntendedVsync <= st.lastKept && p == nil {
			r = gfxinfo.RejectDuplicateVsync
		}
		if r != "" {
			s.rejectRow(gfxFrame(name, f), r, 0, send)
			continue
		}
		s.addFrame(gfxFrame(name, f))
		st.lastKept = max(st.lastKept, f.IntendedVsync)
		st.lastDone = max(st.lastDone, f.FrameCompleted)
		s.lastNewHost = send
		n++
	}
	// A row still drawing that the dump no longer shows left the ring.
	for pk := range st.pending {
		if !seen[pk] {
			s.dropPending(name, st, pk, clock, send)
		}
	}
	for k := range st.done {
		if k.intended < minIV {
			delete(st.done, k)
		}
	}
	return n
}

// waitFor keeps row f of window name, still drawing (its rejection reason
// r is one the rule waits on), under key pk, and drops it once later rows
// (later: some row after it has completed) have completed for
// gfxStuckPolls polls and gfxStuckWait.
func (s *Source) waitFor(name string, st *gfxWindowState, pk gfxRowKey, f gfxinfo.FrameStats, r gfxinfo.Reject, later bool, clock, send int64) {
	p := st.pending[pk]
	if p == nil {
		p = &gfxPending{firstDev: clock, firstHost: send}
		st.pending[pk] = p
	}
	p.frame, p.reason = f, r
	if !later {
		return
	}
	if p.afterPolls == 0 {
		p.afterDev, p.afterHost = clock, send
	}
	p.afterPolls++
	waited := send - p.afterHost
	if clock > 0 && p.afterDev > 0 {
		waited = clock - p.afterDev
	}
	if p.afterPolls > gfxStuckPolls && waited >= int64(gfxStuckWait) {
		s.dropPending(name, st, pk, clock, send)
	}
}

// dropPending gives up on a row still drawing.
func (s *Source) dropPending(name string, st *gfxWindowState, pk gfxRowKey, clock, host int64) {
	p := st.pending[pk]
	delete(st.pending, pk)
	st.done[pk] = struct{}{}
	waited := host - p.firstHost
	if clock > 0 && p.firstDev > 0 {
		waited = clock - p.firstDev
	}
	s.rejectRow(gfxFrame(name, p.frame), p.reason, waited, host)
}

// gfxFrame is a gfxinfo row of window name as the Result keeps it: the
// columns the frame math reads, and the stage columns a janky frame's
// phases are made of.
func gfxFrame(name string, f gfxinfo.FrameStats) frames.Frame {
	return frames.Frame{Source: frames.SourceGfxInfo, Window: name, FrameStats: gfxinfo.FrameStats{
		IntendedVsync: f.IntendedVsync, Vsync: f.Vsync, FrameCompleted: f.FrameCompleted, FrameDeadline: f.FrameDeadline,
		HandleInputStart: f.HandleInputStart, AnimationStart: f.AnimationStart, PerformTraversalsStart: f.PerformTraversalsStart,
		DrawStart: f.DrawStart, SyncQueued: f.SyncQueued, SyncStart: f.SyncStart,
		IssueDrawCommandsStart: f.IssueDrawCommandsStart, SwapBuffers: f.SwapBuffers}}
}

// inFlightFrame is a row still drawing when Stop's last poll ran: its
// vsync, and how long it had drawn by that poll's device clock (0 when the
// dump had no clock).
type inFlightFrame struct {
	vsync, drawingNs int64
}

// finishPending runs at Stop, at host time host: a row still drawing after
// a later row of its window completed, or for longer than gfxStuckWait, is
// dropped; one drawing for less is a frame in flight. It is left out of the
// frames, as any frame the last poll did not see, but counted in its step
// (Step.FramesInFlight): unlike a frame drawn after that poll, it was seen.
func (s *Source) finishPending(host int64) {
	names := make([]string, 0, len(s.gfxWin))
	for n := range s.gfxWin {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		st := s.gfxWin[name]
		keys := make([]gfxRowKey, 0, len(st.pending))
		for k, p := range st.pending {
			if p.afterPolls > 0 || s.gfxClock-p.frame.IntendedVsync > int64(gfxStuckWait) {
				keys = append(keys, k)
			}
		}
		slices.SortFunc(keys, func(a, b gfxRowKey) int { return cmp.Compare(a.intended, b.intended) })
		for _, k := range keys {
			s.dropPending(name, st, k, s.gfxClock, host)
		}
		for k := range st.pending {
			f := inFlightFrame{vsync: k.intended}
			if s.gfxClock > 0 {
				f.drawingNs = max(0, s.gfxClock-k.intended)
			}
			s.inFlight = append(s.inFlight, f)
		}
	}
}

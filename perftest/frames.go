package perftest

import (
	"bytes"
	"cmp"
	"errors"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/gfxinfo"
	framespkg "github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/result"
)

// absorbFrames parses one frame poll and takes the frames it has not taken
// yet (DESIGN.md: SurfaceFlinger keeps B greater than the last B kept;
// gfxinfo keeps IntendedVsync greater than the last kept for that window),
// counts the rows that are not frames by reason (gfxinfo.Reject), feeds
// the gfxinfo Uptime line to the clock map and returns how many frames were
// new. uptimeNs is the device clock read in the same tick, 0 if unknown.
func (c *collector) absorbFrames(res adbx.Result, cmd string, filtered bool, send, recv, uptimeNs int64) int {
	text := output(res)
	if i := strings.Index(cmd, " | grep -E "); i >= 0 {
		cmd = cmd[:i] + " | grep -E <rows not taken>" // notes need not quote the pattern
	}
	// grep exits 1 when it keeps no line; anything else that is not a
	// success (127: no grep) means this device polls whole dumps.
	if filtered && res.ExitCode != 0 && (res.ExitCode != 1 || len(bytes.TrimSpace(res.Stderr)) > 0) {
		c.gfxFilterOff = true
		c.note("frames: %s; polling whole framestats dumps", failure(res, "grep -E"))
		return 0
	}
	if c.source == SourceSurfaceFlinger {
		if res.ExitCode != 0 {
			c.note("frames: %s", failure(res, cmd))
			return 0
		}
		return c.absorbSF(text, cmd, send, uptimeNs)
	}
	g, err := gfxinfo.Parse(text)
	if errors.Is(err, gfxinfo.ErrNoProcess) {
		return 0 // the app is not running; health tracking records why
	}
	if err != nil {
		c.note("frames: %s: %v", cmd, err)
		return 0
	}
	if g.UptimeMillis > 0 {
		c.clockGfx.observe("gfxinfo Uptime", send, recv, g.UptimeMillis*int64(time.Millisecond), int64(time.Millisecond))
	}
	clock := g.ClockNs()
	if clock > 0 {
		c.gfxClock = clock
	}
	c.frameDumps++
	n := 0
	for _, w := range g.Windows() {
		if w.Frames == nil {
			continue
		}
		c.learnGfxColumns(w.Frames)
		if st := c.gfxWin[w.Label()]; st != nil {
			st.seenAt = c.frameDumps
		}
		if w.Frames.Len() == 0 {
			continue
		}
		n += c.absorbGfxWindow(w.Label(), w.Frames.Frames(), clock, cmd, send)
	}
	return n
}

// framesDue says whether the next tick polls frames. The device keeps a
// window's last frameBufferLen frames, and an app draws at most one a
// refresh period, however idle it was before a burst: frames are polled
// once the time since the last poll, plus the tick after this one, would
// pass framePollShare of that ring's time, and on every tick while a row
// waits to be resolved (one still drawing, a pending fence), so the
// rejection rule's bounded wait sees it as often as before. The first
// clockPolls ticks all poll frames: the gfxinfo dump's Uptime line is the
// clock the session maps steps onto, and a map is as tight as its best
// round trips.
func (c *collector) framesDue() bool {
	// A step that ended waits for a poll after its end to be written
	// with its frames (Session.polledLocked).
	if c.lastFramePoll == 0 || c.sfFenceWait || c.refreshHz <= 0 || c.ticks < clockPolls || c.s.ckArmed {
		return true
	}
	for _, st := range c.gfxWin {
		if len(st.pending) > 0 {
			return true
		}
	}
	ring := float64(frameBufferLen) / c.refreshHz * float64(time.Second)
	return float64(c.s.now()-c.lastFramePoll)+float64(c.cfg.Interval) > framePollShare*ring
}

// clockPolls is how many ticks from the start poll frames every time.
const clockPolls = 10

// framePollShare is the part of the device's frame ring time that may pass
// between two frame polls: the rest is room for a host or device that
// stalls (1.5 s at 60 Hz, 0.75 s at 120 Hz), past which the ring wraps and
// the steps of the time lost have no frame figures. A poll's bytes are
// mostly its new rows, whatever the share: BenchmarkScrollBytes reads 1–3 %
// more at 0.25 than at 0.4, where two copies of the test suite at once
// met stalls past the room.
const framePollShare = 0.25

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

// gfxWindowState is what the collector remembers of one gfxinfo window.
type gfxWindowState struct {
	lastKept int64 // greatest IntendedVsync taken
	lastDone int64 // greatest FrameCompleted taken
	prevMax  int64 // greatest IntendedVsync of any row of the previous dump
	seenMax  int64 // greatest IntendedVsync of any row shown so far,
	seenUI   int64 // and of any row of Flags 0
	seenAt   int   // the last dump (collector.frameDumps) that showed the window
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
func (c *collector) absorbGfxWindow(name string, rows []gfxinfo.FrameStats, clock int64, cmd string, send int64) int {
	st := c.gfxWin[name]
	if st == nil {
		st = &gfxWindowState{done: map[gfxRowKey]struct{}{}, pending: map[gfxRowKey]*gfxPending{}}
		c.gfxWin[name] = st
	}
	minIV, maxIV := rows[0].IntendedVsync, rows[0].IntendedVsync
	for _, f := range rows {
		minIV, maxIV = min(minIV, f.IntendedVsync), max(maxIV, f.IntendedVsync)
		if f.Flags == 0 {
			st.seenUI = max(st.seenUI, f.IntendedVsync)
		}
	}
	// Frames were lost only when the ring holds nothing of the last dump.
	if len(rows) >= frameBufferLen && st.prevMax != 0 && minIV > st.prevMax {
		c.lostFrames(send, cmd, st.prevMax, minIV)
	}
	st.prevMax = maxIV
	st.seenMax = max(st.seenMax, maxIV)
	st.seenAt = c.frameDumps
	// later[i]: some row after row i has completed.
	later := slices.Grow(c.laterBuf[:0], len(rows))[:len(rows)]
	later[len(rows)-1] = false
	for i := len(rows) - 2; i >= 0; i-- {
		later[i] = later[i+1] || gfxRowDone(rows[i+1])
	}
	c.laterBuf = later
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
			if p == nil {
				p = &gfxPending{firstDev: clock, firstHost: send}
				st.pending[pk] = p
			}
			p.frame, p.reason = f, r
			if seen == nil {
				seen = map[gfxRowKey]bool{}
			}
			seen[pk] = true
			if later[i] {
				if p.afterPolls == 0 {
					p.afterDev, p.afterHost = clock, send
				}
				p.afterPolls++
				waited := send - p.afterHost
				if clock > 0 && p.afterDev > 0 {
					waited = clock - p.afterDev
				}
				if p.afterPolls > gfxStuckPolls && waited >= int64(gfxStuckWait) {
					c.dropPending(name, st, pk, clock, send)
				}
			}
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
			c.rejectRow(gfxFrame(name, f), r, 0, send)
			continue
		}
		c.addFrame(gfxFrame(name, f))
		st.lastKept = max(st.lastKept, f.IntendedVsync)
		st.lastDone = max(st.lastDone, f.FrameCompleted)
		c.lastNewHost = send
		n++
	}
	// A row still drawing that the dump no longer shows left the ring.
	for pk := range st.pending {
		if !seen[pk] {
			c.dropPending(name, st, pk, clock, send)
		}
	}
	for k := range st.done {
		if k.intended < minIV {
			delete(st.done, k)
		}
	}
	return n
}

// dropPending gives up on a row still drawing.
func (c *collector) dropPending(name string, st *gfxWindowState, pk gfxRowKey, clock, host int64) {
	p := st.pending[pk]
	delete(st.pending, pk)
	st.done[pk] = struct{}{}
	waited := host - p.firstHost
	if clock > 0 && p.firstDev > 0 {
		waited = clock - p.firstDev
	}
	c.rejectRow(gfxFrame(name, p.frame), p.reason, waited, host)
}

// gfxFrame is a gfxinfo row of window name as the Result keeps it: the
// columns the frame math reads, and the stage columns a janky frame's
// phases are made of.
func gfxFrame(name string, f gfxinfo.FrameStats) framespkg.Frame {
	return framespkg.Frame{Source: framespkg.SourceGfxInfo, Window: name, FrameStats: gfxinfo.FrameStats{
		IntendedVsync: f.IntendedVsync, Vsync: f.Vsync, FrameCompleted: f.FrameCompleted, FrameDeadline: f.FrameDeadline,
		HandleInputStart: f.HandleInputStart, AnimationStart: f.AnimationStart, PerformTraversalsStart: f.PerformTraversalsStart,
		DrawStart: f.DrawStart, SyncQueued: f.SyncQueued, SyncStart: f.SyncStart,
		IssueDrawCommandsStart: f.IssueDrawCommandsStart, SwapBuffers: f.SwapBuffers}}
}

// framesPending reports whether frames of the time before host time stopNs
// may still be missing from what the polls took, so Stop polls again.
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
func (c *collector) framesPending(stopNs int64) bool {
	if !c.cfg.has(CollectFrames) || len(c.pids) == 0 {
		return false
	}
	if c.source == SourceSurfaceFlinger {
		if c.sfFenceWait {
			return true
		}
		if !c.clockProc.ok() || c.lastUptime == 0 {
			return false
		}
		_, hi := c.clockProc.interval()
		return c.lastUptime < stopNs+hi
	}
	stopDev := int64(math.MaxInt64)
	if c.clockGfx.ok() {
		_, hi := c.clockGfx.interval()
		stopDev = stopNs + hi
	}
	quiet := int64(c.cfg.Settle)
	for _, st := range c.gfxWin {
		for pk := range st.pending {
			if pk.intended < stopDev {
				return true
			}
		}
		if st.lastKept >= stopDev {
			continue
		}
		if c.gfxClock > 0 {
			if c.gfxClock-st.lastDone < quiet {
				return true
			}
		} else if c.s.now()-c.lastNewHost < quiet {
			return true
		}
	}
	return false
}

// inFlightFrame is a row still drawing when Stop's last poll ran: its
// vsync, and how long it had drawn by that poll's device clock (0 when the
// dump had no clock).
type inFlightFrame struct {
	vsync, drawingNs int64
}

// finishPending runs at Stop: a row still drawing after a later row of its
// window completed, or for longer than gfxStuckWait, is dropped; one
// drawing for less is a frame in flight. It is left out of the frames, as
// any frame the last poll did not see, but counted in its step
// (Step.FramesInFlight): unlike a frame drawn after that poll, it was seen.
func (c *collector) finishPending() {
	names := make([]string, 0, len(c.gfxWin))
	for n := range c.gfxWin {
		names = append(names, n)
	}
	slices.Sort(names)
	host := c.s.now()
	for _, name := range names {
		st := c.gfxWin[name]
		keys := make([]gfxRowKey, 0, len(st.pending))
		for k, p := range st.pending {
			if p.afterPolls > 0 || c.gfxClock-p.frame.IntendedVsync > int64(gfxStuckWait) {
				keys = append(keys, k)
			}
		}
		slices.SortFunc(keys, func(a, b gfxRowKey) int { return cmp.Compare(a.intended, b.intended) })
		for _, k := range keys {
			c.dropPending(name, st, k, c.gfxClock, host)
		}
		for k := range st.pending {
			f := inFlightFrame{vsync: k.intended}
			if c.gfxClock > 0 {
				f.drawingNs = max(0, c.gfxClock-k.intended)
			}
			c.inFlight = append(c.inFlight, f)
		}
	}
}

// stepInFlight counts the frames of the step's time still drawing when
// Stop's last poll ran, and notes them: they are in none of its figures.
func (c *collector) stepInFlight(st *result.Step) {
	var longest int64
	for _, f := range c.inFlight {
		if f.vsync >= st.DeviceStartNs && f.vsync < st.DeviceEndNs {
			st.FramesInFlight++
			longest = max(longest, f.drawingNs)
		}
	}
	if st.FramesInFlight == 0 {
		return
	}
	st.InFlightMs = math.Round(float64(longest)/1e5) / 10
	if st != c.whole {
		c.note("frames: %d frame(s) of step %q still drawing when Stop's last poll ran, the longest %.1f ms after its vsync: in none of the step's frame figures (Config.Settle, %v, bounds how long Stop waits for frames in flight)",
			st.FramesInFlight, st.Name, st.InFlightMs, c.cfg.Settle)
	}
}

// addFrame adds a frame to the Result, in time order: a row that finished
// drawing late goes before the frames taken past it.
func (c *collector) addFrame(f framespkg.Frame) {
	fr := c.s.res.Frames
	i := len(fr)
	for i > 0 && fr[i-1].Time() > f.Time() {
		i--
	}
	c.s.res.Frames = slices.Insert(fr, i, f)
}

// rejectRow counts a row that is not a frame; every reason but Flags ≠ 0
// (the many animation rows) also names the row in the Result.
func (c *collector) rejectRow(f framespkg.Frame, reason gfxinfo.Reject, waited, host int64) {
	r := c.s.res
	if r.FramesRejected == nil {
		r.FramesRejected = gfxinfo.Rejects{}
	}
	r.FramesRejected.Add(reason)
	if reason == gfxinfo.RejectFlags {
		c.flaggedAt = append(c.flaggedAt, f.Time())
		return
	}
	r.RejectedFrames = append(r.RejectedFrames, result.RejectedFrame{Frame: f, Reason: string(reason), WaitedNs: waited, HostNs: host})
}

// stepRejects counts the rejected rows whose time lies in [start, end).
func (c *collector) stepRejects(start, end int64) gfxinfo.Rejects {
	out := gfxinfo.Rejects{}
	for _, t := range c.flaggedAt {
		if t >= start && t < end {
			out.Add(gfxinfo.RejectFlags)
		}
	}
	for _, rf := range c.s.res.RejectedFrames {
		if t := rf.Time(); t >= start && t < end {
			out.Add(gfxinfo.Reject(rf.Reason))
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// sfBufferLen is the number of frames `--latency` keeps per layer.
const sfBufferLen = 127

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
func (c *collector) lostFrames(hostNs int64, cmd string, from, to int64) {
	if c.refreshHz > 0 || c.sfPeriod > 0 {
		p := c.periodNs()
		if to-from < p {
			return
		}
		from, to = from+p/2-1, to-p/2+1
	}
	c.s.res.Gaps = append(c.s.res.Gaps, result.Gap{
		Lane: "cheap", HostNs: hostNs, Step: c.s.stepAtLocked(hostNs),
		Error:      cmd + ": frame buffer wrapped between polls; frames were lost",
		LostFromNs: from, LostToNs: to,
	})
}

// periodNs is R of the metric definitions: the SurfaceFlinger output's
// first line for that source, else the device's refresh rate.
func (c *collector) periodNs() int64 {
	if c.source == SourceSurfaceFlinger && c.sfPeriod > 0 {
		return c.sfPeriod
	}
	return int64(math.Round(1e9 / c.refreshHz))
}

// frameStats summarises a step's frames: the window (or layer) with the
// most frames is the step's; the others are listed.
func (c *collector) frameStats(frames []framespkg.Frame) (framespkg.Summary, []result.WindowFrames) {
	var order []string
	by := map[string][]framespkg.Frame{}
	for _, f := range frames {
		if _, ok := by[f.Window]; !ok {
			order = append(order, f.Window)
		}
		by[f.Window] = append(by[f.Window], f)
	}
	var windows []result.WindowFrames
	best := ""
	for _, w := range order {
		windows = append(windows, result.WindowFrames{Window: w, Frames: len(by[w])})
		if best == "" || len(by[w]) > len(by[best]) {
			best = w
		}
	}
	st := framespkg.Summarize(string(c.source), by[best], c.periodNs())
	st.Window = best
	return st, windows
}

// liveFrames summarises the open step's frames so far.
func (c *collector) liveFrames(st *result.Step) (int, float64, int) {
	clk := &c.clockGfx
	if !clk.ok() {
		clk = &c.clockProc
	}
	if !clk.ok() {
		return 0, 0, 0
	}
	start := clk.toDevice(st.HostStartNs)
	i := len(c.s.res.Frames)
	for i > 0 && c.s.res.Frames[i-1].Time() >= start {
		i--
	}
	fs, _ := c.frameStats(c.s.res.Frames[i:])
	return fs.Frames, fs.FPS, fs.Jank
}

package perftest

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/android/logcat"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/result"
)

// skipLine is one Choreographer "Skipped N frames!" line of the app.
type skipLine struct {
	hostNs int64
	skip   logcat.SkippedFrames
}

// smoothLog is what the session's one read of the Choreographer lines
// gave: the lines on the host clock, the host time of the oldest line the
// buffer still held, or why there is nothing to go by.
type smoothLog struct {
	read   bool
	lines  []skipLine
	fromNs int64
	why    string
}

// choreographerCmds read, in one round trip, the device clock twice over
// (see endCmds), the app's Choreographer lines (the logcat -s filter keeps
// only them), and the buffer's first lines, which tell how far back it
// still reaches.
func choreographerCmds(api int) []string {
	format := "-v threadtime"
	if api >= 24 {
		format += " -v epoch"
	}
	return []string{"cat /proc/uptime", logDateCmd,
		"logcat -d -b main " + format + " -s Choreographer:I",
		"logcat -d -b main " + format + " | head -n 3"}
}

// readSkips reads the Choreographer lines once the lanes stopped: their
// times place them in the steps, whose SM summarise figures.
//
// A phone (or a host serving a simulated one) that stalled between the
// two /proc/uptime reads around date leaves the lines' times uncertain by
// half the stall: the read is made again, up to logClockTries times, and
// when every one was so stalled the lines are not placed, since a stall's
// line could land in the wrong step.
func (c *collector) readSkips(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, max(c.cfg.TickTimeout, 5*time.Second))
	defer cancel()
	cmds := choreographerCmds(c.s.res.Device.API)
	var apart []string // each try's distance between the two uptime reads
	for try := 1; ; try++ {
		send := c.s.now()
		out, err := c.s.dev.batch(ctx, cmds)
		recv := c.s.now()
		if err == nil && len(out) != len(cmds) {
			err = fmt.Errorf("batch of %d commands returned %d results", len(cmds), len(out))
		}
		c.s.mu.Lock()
		if err != nil {
			c.smooth = smoothLog{read: true, why: fmt.Sprintf("%s: %v", cmds[2], err)}
			c.s.mu.Unlock()
			return
		}
		l, spread := c.placeSkips(cmds, out, send, recv)
		apart = append(apart, (2 * spread).Round(time.Millisecond).String())
		if spread > logClockMaxSpread && try < logClockTries {
			c.s.mu.Unlock()
			continue
		}
		if spread > logClockMaxSpread {
			l = smoothLog{why: fmt.Sprintf("the log's times cannot be placed: the device's /proc/uptime reads around %q were %s apart in %d tries (more than %v); a stall's line could land in the wrong step",
				logDateCmd, strings.Join(apart, ", "), try, 2*logClockMaxSpread)}
		}
		c.smooth = l
		c.smooth.read = true
		c.s.mu.Unlock()
		return
	}
}

// The log clock's reads: how far apart the /proc/uptime reads around date
// may lie (twice the spread), and how many times they are made.
const (
	logClockMaxSpread = 25 * time.Millisecond
	logClockTries     = 3
)

// placeSkips puts the app's Choreographer lines on the host clock. The
// batch read /proc/uptime between host times send and recv; that round
// trip joins the session's others in the /proc/uptime clock map, whose
// intersection places the lines. The batch's own midpoint alone could be
// off by half its round trip, which a busy host can make seconds long, and
// a stall's line would land in the next step.
//
// It also returns the log clock's spread (see logClock), 0 when there are
// no lines to place.
func (c *collector) placeSkips(cmds []string, out []adbx.Result, send, recv int64) (smoothLog, time.Duration) {
	clk, err := parseLogClock(out[0], out[1])
	if err != nil {
		return smoothLog{why: "the log's times cannot be placed: " + err.Error()}, 0
	}
	for _, i := range []int{2, 3} {
		if out[i].ExitCode != 0 {
			return smoothLog{why: failure(out[i], cmds[i])}, 0
		}
	}
	c.clockProc.observe("/proc/uptime", send, recv, clk.up, 10*int64(time.Millisecond))
	offset := c.clockProc.offset()
	host := func(e logcat.Entry) int64 { return clk.boot(e) - offset }
	entries := func(o adbx.Result) []logcat.Entry {
		var es []logcat.Entry
		for _, raw := range strings.Split(string(devtext.Normalize(o.Stdout)), "\n") {
			if e, ok := logcat.ParseLine(raw); ok && !e.Time.IsZero() {
				es = append(es, e)
			}
		}
		return es
	}
	first := entries(out[3])
	if len(first) == 0 {
		return smoothLog{why: cmds[3] + " printed no line with a time"}, 0
	}
	// Only the app's own lines: the pids it ran under in the session.
	pids := slices.Clone(c.s.res.App.PIDs)
	for _, smp := range c.s.res.Samples {
		pids = append(pids, smp.PIDs...)
	}
	l := smoothLog{fromNs: host(first[0])}
	for _, e := range entries(out[2]) {
		for _, s := range logcat.Skipped([]logcat.Entry{e}) {
			if slices.Contains(pids, s.PID) {
				l.lines = append(l.lines, skipLine{host(e), s})
			}
		}
	}
	if len(l.lines) == 0 {
		return l, 0
	}
	return l, clk.spread
}

// smoothness is the step's SM, or nil with the reason in the step's
// catalogue (see markAbsent).
func (c *collector) smoothness(st *result.Step) *result.SmoothnessStats {
	l := c.smooth
	if !l.read || l.why != "" || l.fromNs > st.HostStartNs || !c.ranDuring(st.HostStartNs, st.HostEndNs) {
		return nil
	}
	var skips []logcat.SkippedFrames
	out := &result.SmoothnessStats{Source: "logcat Choreographer: Skipped N frames!", RefreshHz: c.refreshHz, MinSM: c.refreshHz}
	for _, s := range l.lines {
		if s.hostNs >= st.HostStartNs && s.hostNs < st.HostEndNs {
			skips = append(skips, s.skip)
			out.Skipped += s.skip.Frames
		}
	}
	for _, sec := range frames.GTSmoothness(skips, c.refreshHz) {
		out.MinSM = math.Min(out.MinSM, sec.SM)
	}
	return out
}

// smoothWhy says why a step has no SM.
func (c *collector) smoothWhy(st *result.Step) string {
	l := c.smooth
	switch {
	case !l.read:
		return "gt sm: the log was not read (the session ended before Stop)"
	case l.why != "":
		return "gt sm: " + l.why
	case l.fromNs > st.HostStartNs:
		return fmt.Sprintf("gt sm: the log no longer reaches back to the step (its oldest line is %v after the step began)", time.Duration(l.fromNs-st.HostStartNs).Round(time.Millisecond))
	}
	return "gt sm: " + c.notRunningWhy(st.HostStartNs, st.HostEndNs)
}

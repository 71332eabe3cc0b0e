// Package smooth figures GT's smoothness (SM) of each step from the app's
// Choreographer "Skipped N frames!" log lines (DESIGN.md "Metric
// definitions"): the lines are read once, after the session's lanes
// stopped, placed on the host clock, and counted per step.
//
//	var src smooth.Source
//	for again := true; again; {
//		out, err := batch(ctx, src.Cmds(api))
//		again = src.Absorb(smooth.Read{Cmds: cmds, Out: out, Err: err, ...})
//	}
//	st.Smoothness = src.Step(st, ran, refreshHz) // nil: src.Why(st, notRunning)
package smooth

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/android/logcat"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/perftest/internal/logclock"
	"github.com/perfgate/perfgate/result"
)

// skipLine is one Choreographer "Skipped N frames!" line of the app.
type skipLine struct {
	hostNs int64
	skip   logcat.SkippedFrames
}

// Source is what the session's one read of the Choreographer lines gave:
// the lines on the host clock, the host time of the oldest line the
// buffer still held, or why there is nothing to go by. The zero Source
// has read nothing.
type Source struct {
	read   bool
	lines  []skipLine
	fromNs int64
	why    string
	// apart is each try's distance between the two uptime reads.
	apart []string
}

// The log clock's reads: how far apart the /proc/uptime reads around date
// may lie (twice the spread), and how many times they are made.
const (
	logClockMaxSpread = 25 * time.Millisecond
	logClockTries     = 3
)

// Cmds read, in one round trip, the device clock twice over (see
// logclock), the app's Choreographer lines (the logcat -s filter keeps
// only them), and the buffer's first lines, which tell how far back it
// still reaches.
func (s *Source) Cmds(api int) []string {
	format := logclock.Format(api)
	return []string{"cat /proc/uptime", logclock.DateCmd,
		"logcat -d -b main " + format + " -s Choreographer:I",
		"logcat -d -b main " + format + " | head -n 3"}
}

// Read is one read of the log: the commands of Cmds and their output, or
// the error that stopped the batch, sent and answered at host times SendNs
// and RecvNs.
type Read struct {
	Cmds           []string
	Out            []adbx.Result
	Err            error
	SendNs, RecvNs int64
	// Offset joins the batch's /proc/uptime read (device boottime ns),
	// made between sendNs and recvNs, to the session's other reads of
	// that clock, and returns their offset, device − host (ns).
	Offset func(sendNs, recvNs, upNs int64) int64
	// PIDs are the pids the app ran under in the session: only their
	// lines count.
	PIDs []int
}

// Absorb takes a read of Cmds, and reports whether it must be made again.
//
// A phone (or a host serving a simulated one) that stalled between the
// two /proc/uptime reads around date leaves the lines' times uncertain by
// half the stall: the read is made again, up to logClockTries times, and
// when every one was so stalled the lines are not placed, since a stall's
// line could land in the wrong step.
func (s *Source) Absorb(rd Read) (again bool) {
	err := rd.Err
	if err == nil && len(rd.Out) != len(rd.Cmds) {
		err = fmt.Errorf("batch of %d commands returned %d results", len(rd.Cmds), len(rd.Out))
	}
	if err != nil {
		*s = Source{read: true, why: fmt.Sprintf("%s: %v", rd.Cmds[2], err)}
		return false
	}
	l, spread := place(rd)
	s.apart = append(s.apart, (2 * spread).Round(time.Millisecond).String())
	try := len(s.apart)
	if spread > logClockMaxSpread && try < logClockTries {
		return true
	}
	if spread > logClockMaxSpread {
		l = Source{why: fmt.Sprintf("the log's times cannot be placed: the device's /proc/uptime reads around %q were %s apart in %d tries (more than %v); a stall's line could land in the wrong step",
			logclock.DateCmd, strings.Join(s.apart, ", "), try, 2*logClockMaxSpread)}
	}
	*s = l
	s.read = true
	return false
}

// place puts the app's Choreographer lines on the host clock. The batch
// read /proc/uptime between host times send and recv; that round trip
// joins the session's others in the /proc/uptime clock map (rd.Offset),
// whose intersection places the lines. The batch's own midpoint alone
// could be off by half its round trip, which a busy host can make seconds
// long, and a stall's line would land in the next step.
//
// It also returns the log clock's spread (see logclock.Clock), 0 when
// there are no lines to place.
func place(rd Read) (Source, time.Duration) {
	cmds, out := rd.Cmds, rd.Out
	clk, err := logclock.Parse(out[0], out[1])
	if err != nil {
		return Source{why: "the log's times cannot be placed: " + err.Error()}, 0
	}
	for _, i := range []int{2, 3} {
		if out[i].ExitCode != 0 {
			return Source{why: out[i].Err(cmds[i]).Error()}, 0
		}
	}
	offset := rd.Offset(rd.SendNs, rd.RecvNs, clk.Up)
	host := func(e logcat.Entry) int64 { return clk.Boot(e) - offset }
	first := entries(out[3])
	if len(first) == 0 {
		return Source{why: cmds[3] + " printed no line with a time"}, 0
	}
	l := Source{fromNs: host(first[0])}
	for _, e := range entries(out[2]) {
		for _, sk := range logcat.Skipped([]logcat.Entry{e}) {
			if slices.Contains(rd.PIDs, sk.PID) {
				l.lines = append(l.lines, skipLine{host(e), sk})
			}
		}
	}
	if len(l.lines) == 0 {
		return l, 0
	}
	return l, clk.Spread
}

// entries are the log lines with a time that a command printed.
func entries(o adbx.Result) []logcat.Entry {
	var es []logcat.Entry
	for _, raw := range strings.Split(string(devtext.Normalize(o.Stdout)), "\n") {
		if e, ok := logcat.ParseLine(raw); ok && !e.Time.IsZero() {
			es = append(es, e)
		}
	}
	return es
}

// Step is the step's SM, or nil with the reason in Why; ran says whether
// the app ran during the step, refreshHz is the display's rate.
func (s *Source) Step(st *result.Step, ran bool, refreshHz float64) *result.SmoothnessStats {
	if !s.read || s.why != "" || s.fromNs > st.HostStartNs || !ran {
		return nil
	}
	var skips []logcat.SkippedFrames
	out := &result.SmoothnessStats{Source: "logcat Choreographer: Skipped N frames!", RefreshHz: refreshHz, MinSM: refreshHz}
	for _, l := range s.lines {
		if l.hostNs >= st.HostStartNs && l.hostNs < st.HostEndNs {
			skips = append(skips, l.skip)
			out.Skipped += l.skip.Frames
		}
	}
	for _, sec := range frames.GTSmoothness(skips, refreshHz) {
		out.MinSM = math.Min(out.MinSM, sec.SM)
	}
	return out
}

// Why says why a step has no SM; notRunning is why the app counts as not
// running in it, the reason left when the log was read.
func (s *Source) Why(st *result.Step, notRunning string) string {
	switch {
	case !s.read:
		return "gt sm: the log was not read (the session ended before Stop)"
	case s.why != "":
		return "gt sm: " + s.why
	case s.fromNs > st.HostStartNs:
		return fmt.Sprintf("gt sm: the log no longer reaches back to the step (its oldest line is %v after the step began)", time.Duration(s.fromNs-st.HostStartNs).Round(time.Millisecond))
	}
	return "gt sm: " + notRunning
}

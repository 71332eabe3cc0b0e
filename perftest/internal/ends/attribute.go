package ends

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/android/logcat"
	"github.com/perfgate/perfgate/perftest/internal/logclock"
	"github.com/perfgate/perfgate/result"
)

// evidenceTime is when the line that decided a process end was logged: its
// time on the device's boottime clock (up, 0 when unknown) and how coarse
// that is (res).
type evidenceTime struct{ up, res int64 }

// line is a log line of the read, with its time on the device's boottime
// clock (ns; 0 unknown).
type line struct {
	raw  string
	e    logcat.Entry
	boot int64
}

// attribute decides why process p ended from the output of Cmds: only
// the lines of that process (by pid, since it started and not long before
// it was last seen alive), the system's lines naming its pid, and a
// force-stop of pkg between the last tick that saw it and the first that
// did not. It returns cr with Reason, Cause, Evidence and Logcat set, when
// the Evidence line was logged, notes on what could not be read, and
// whether the end counts as a crash: when the log says so, or when no log
// could be read at all.
func attribute(cr result.Crash, p Process, pkg string, interval time.Duration, cmds []string, out []adbx.Result) (result.Crash, evidenceTime, []string, bool) {
	var notes []string
	clk, err := logclock.Parse(out[0], out[1])
	if err != nil {
		notes = append(notes, fmt.Sprintf("process end: pid %d: %v; its log lines are matched by pid alone", p.PID, err))
	}
	lines, failed := readLines(cmds, out, clk, err == nil)
	w := endWindow(p, interval, clk, err == nil)
	keep, events := w.pick(lines, p.PID, pkg)
	cl := logcat.ClassifyEnd(events)
	cr.Reason, cr.Cause = cl.Reason, cl.Cause
	var ev evidenceTime
	if cl.Event != nil {
		cr.Evidence = lines[cl.Event.Entry].raw
		ev = evidenceTime{up: lines[cl.Event.Entry].boot, res: int64(clk.Res + clk.Spread)}
	}
	cr.Logcat = nil
	for i, l := range lines {
		if keep[i] {
			cr.Logcat = append(cr.Logcat, l.raw)
		}
	}
	if len(cr.Logcat) > endLines {
		cr.Logcat = cr.Logcat[len(cr.Logcat)-endLines:]
	}
	switch {
	case len(failed) == len(out)-2:
		notes = append(notes, fmt.Sprintf("process end: pid %d: the log could not be read (%s); counted as a crash", p.PID, strings.Join(failed, "; ")))
		return cr, ev, notes, true
	case len(failed) > 0:
		notes = append(notes, "process end: "+strings.Join(failed, "; "))
	}
	if cr.Reason == logcat.EndUnknown {
		notes = append(notes, fmt.Sprintf("process end: pid %d ended with no crash, kill or force-stop in the log (the app exited, or the lines are gone); recorded as a process end, not a crash", p.PID))
	}
	return cr, ev, notes, cr.Reason == logcat.EndCrash
}

// readLines parses the log reads of the batch (out[2:]) into lines, on the
// device's clock where clk could be read (timed), in time order, with what
// the reads that failed said.
func readLines(cmds []string, out []adbx.Result, clk logclock.Clock, timed bool) ([]line, []string) {
	var lines []line
	var failed []string
	for i, o := range out[2:] {
		if o.ExitCode != 0 {
			failed = append(failed, o.Err(cmds[2+i]).Error())
		}
		for _, raw := range strings.Split(string(devtext.Normalize(o.Stdout)), "\n") {
			e, ok := logcat.ParseLine(raw)
			if !ok {
				continue
			}
			l := line{raw: strings.TrimRight(raw, " \t"), e: e}
			if timed {
				l.boot = clk.Boot(e)
			}
			lines = append(lines, l)
		}
	}
	// The crash buffer and main/system come apart; the process's story
	// reads in time order.
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].boot < lines[j].boot })
	return lines, failed
}

// window is where a process end's lines lie on the device's boottime
// clock: its own and the system's about its pid in [from, to], a
// force-stop of its package in [stopFrom, stopTo]. Without a clock
// (untimed) every line lies in both.
type window struct {
	from, to         int64
	stopFrom, stopTo int64
	untimed          bool
}

// endWindow is the window of process p's end, widened by the clocks'
// resolutions.
func endWindow(p Process, interval time.Duration, clk logclock.Clock, timed bool) window {
	slack := int64(endSlack)
	if timed {
		slack += int64(clk.Res + clk.Spread)
	}
	w := window{from: p.AliveUp - int64(endLookback), to: int64(1<<63 - 1), untimed: !timed}
	if p.AliveUp <= 0 {
		w.from = p.DeadUp - int64(interval) - int64(endLookback)
	}
	w.from = max(w.from, p.StartUp) - slack
	if timed {
		w.to = clk.Up + slack
	}
	// A force-stop names the package, not the process: only one between
	// the two ticks is this death's.
	w.stopFrom, w.stopTo = p.AliveUp-slack, p.DeadUp+slack
	if p.AliveUp <= 0 {
		w.stopFrom = p.DeadUp - int64(interval) - slack
	}
	return w
}

func (w window) inside(l line, a, b int64) bool { return w.untimed || l.boot >= a && l.boot <= b }

// pick marks the lines a process end keeps — the process's own and the
// events about it — and returns those events.
func (w window) pick(lines []line, pid int, pkg string) ([]bool, []logcat.ProcEvent) {
	entries := make([]logcat.Entry, len(lines))
	for i, l := range lines {
		entries[i] = l.e
	}
	keep := make([]bool, len(lines))
	for i, l := range lines {
		keep[i] = l.e.PID == pid && w.inside(l, w.from, w.to)
	}
	var events []logcat.ProcEvent
	for _, ev := range logcat.ProcEvents(entries) {
		l := lines[ev.Entry]
		mine := ev.PID == pid && w.inside(l, w.from, w.to)
		if ev.Kind == logcat.ProcForceStop {
			// Without a clock an old force-stop cannot be told apart.
			mine = ev.Process == pkg && !w.untimed && w.inside(l, w.stopFrom, w.stopTo)
		}
		if ev.Kind == logcat.ProcStart {
			mine = false // a start is another process's story
		}
		if mine {
			events = append(events, ev)
			keep[ev.Entry] = true
		}
	}
	return keep, events
}

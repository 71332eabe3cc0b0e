package perftest

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/android/logcat"
	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/result"
)

// processEnd is an app process that disappeared, with the device times
// (CLOCK_BOOTTIME ns, 0 when unknown) that bound its death: the last tick
// that saw it, the tick that did not, and its start.
type processEnd struct {
	pid     int
	aliveUp int64
	deadUp  int64
	startUp int64
}

// Placing a death in the log.
const (
	// endLookback is how long before the last tick that saw a process its
	// own lines may tell of its end: a Java crash is logged before the
	// process is killed, an ANR before the user or the system acts.
	endLookback = 10 * time.Second
	// endSlack widens every window for the clocks' resolutions (/proc/uptime
	// 10 ms, logcat 1 ms, the reads' order in their batches).
	endSlack = 50 * time.Millisecond
	// endLines is how many log lines a process end keeps.
	endLines = 200
)

// endCmds reads, in one round trip, the device clock twice over (boottime
// and wall time, to place log lines on the tick clock) and the log: the
// whole crash buffer (API 21+), which keeps crashes however chatty the
// device is, and the last 2000 lines of main and system. Lines carry epoch
// times where logcat has the modifier (API 24+), else the year-less local
// time of -v threadtime.
func endCmds(api int) []string {
	format := "-v threadtime"
	if api >= 24 {
		format += " -v epoch"
	}
	cmds := []string{"cat /proc/uptime", logDateCmd}
	if api >= 21 {
		cmds = append(cmds, "logcat -d -b crash "+format)
	}
	return append(cmds, "logcat -d -b main -b system "+format+" -t 2000")
}

// readEnd reads the log about a process that disappeared and records it as
// a crash or, when the log says it was force-stopped or killed or does not
// say, as a process end. A crash whose log cannot be read at all is kept a
// crash, so that no crash goes uncounted.
func (c *collector) readEnd(cr result.Crash, end processEnd) {
	defer c.aux.Done()
	ctx, cancel := context.WithTimeout(context.Background(), max(c.cfg.TickTimeout, 5*time.Second))
	defer cancel()
	cmds := endCmds(c.s.res.Device.API)
	out, err := c.s.dev.batch(ctx, cmds)
	recv := c.s.now()
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	r := c.s.res
	if err == nil && len(out) != len(cmds) {
		err = fmt.Errorf("batch of %d commands returned %d results", len(cmds), len(out))
	}
	if err != nil {
		cr.Reason = logcat.EndUnknown
		c.note("process end: pid %d: the log could not be read (%v); counted as a crash", end.pid, err)
		r.Crashes = append(r.Crashes, cr)
		return
	}
	cr, ev, notes, crash := attributeEnd(cr, end, c.cfg.Package, c.cfg.Interval, cmds, out)
	c.placeEnd(&cr, ev, out[0], recv)
	for _, n := range notes {
		c.note("%s", n)
	}
	if crash {
		r.Crashes = append(r.Crashes, cr)
		return
	}
	r.ProcessEnds = append(r.ProcessEnds, cr)
}

// evidenceTime is when the line that decided a process end was logged: its
// time on the device's boottime clock (up, 0 when unknown) and how coarse
// that is (res).
type evidenceTime struct{ up, res int64 }

// attributeEnd decides why process end.pid ended from the output of
// endCmds: only the lines of that process (by pid, since it started and not
// long before it was last seen alive), the system's lines naming its pid,
// and a force-stop of pkg between the last tick that saw it and the first
// that did not. It returns cr with Reason, Cause, Evidence and Logcat set,
// when the Evidence line was logged, notes on what could not be read, and
// whether the end counts as a crash: when the log says so, or when no log
// could be read at all.
func attributeEnd(cr result.Crash, end processEnd, pkg string, interval time.Duration, cmds []string, out []adbx.Result) (result.Crash, evidenceTime, []string, bool) {
	var ev evidenceTime
	var notes []string
	clk, err := parseLogClock(out[0], out[1])
	if err != nil {
		notes = append(notes, fmt.Sprintf("process end: pid %d: %v; its log lines are matched by pid alone", end.pid, err))
	}
	type line struct {
		raw  string
		e    logcat.Entry
		boot int64 // device boottime ns; 0 unknown
	}
	var lines []line
	var failed []string
	for i, o := range out[2:] {
		if o.ExitCode != 0 {
			failed = append(failed, failure(o, cmds[2+i]))
		}
		for _, raw := range strings.Split(string(devtext.Normalize(o.Stdout)), "\n") {
			e, ok := logcat.ParseLine(raw)
			if !ok {
				continue
			}
			l := line{raw: strings.TrimRight(raw, " \t"), e: e}
			if err == nil {
				l.boot = clk.boot(e)
			}
			lines = append(lines, l)
		}
	}
	// The crash buffer and main/system come apart; the process's story
	// reads in time order.
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].boot < lines[j].boot })

	slack := int64(endSlack)
	if err == nil {
		slack += int64(clk.res + clk.spread)
	}
	from := end.aliveUp - int64(endLookback)
	if end.aliveUp <= 0 {
		from = end.deadUp - int64(interval) - int64(endLookback)
	}
	from = max(from, end.startUp) - slack
	to := int64(1<<63 - 1)
	if err == nil {
		to = clk.up + slack
	}
	// A force-stop names the package, not the process: only one between
	// the two ticks is this death's.
	stopFrom, stopTo := end.aliveUp-slack, end.deadUp+slack
	if end.aliveUp <= 0 {
		stopFrom = end.deadUp - int64(interval) - slack
	}
	inside := func(l line, a, b int64) bool { return err != nil || l.boot >= a && l.boot <= b }

	entries := make([]logcat.Entry, len(lines))
	for i, l := range lines {
		entries[i] = l.e
	}
	keep := make([]bool, len(lines))
	for i, l := range lines {
		keep[i] = l.e.PID == end.pid && inside(l, from, to)
	}
	var events []logcat.ProcEvent
	for _, ev := range logcat.ProcEvents(entries) {
		l := lines[ev.Entry]
		mine := ev.PID == end.pid && inside(l, from, to)
		if ev.Kind == logcat.ProcForceStop {
			// Without a clock an old force-stop cannot be told apart.
			mine = ev.Process == pkg && err == nil && inside(l, stopFrom, stopTo)
		}
		if ev.Kind == logcat.ProcStart {
			mine = false // a start is another process's story
		}
		if mine {
			events = append(events, ev)
			keep[ev.Entry] = true
		}
	}
	cl := logcat.ClassifyEnd(events)
	cr.Reason, cr.Cause = cl.Reason, cl.Cause
	if cl.Event != nil {
		cr.Evidence = lines[cl.Event.Entry].raw
		ev = evidenceTime{up: lines[cl.Event.Entry].boot, res: int64(clk.res + clk.spread)}
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
		notes = append(notes, fmt.Sprintf("process end: pid %d: the log could not be read (%s); counted as a crash", end.pid, strings.Join(failed, "; ")))
		return cr, ev, notes, true
	case len(failed) > 0:
		notes = append(notes, "process end: "+strings.Join(failed, "; "))
	}
	if cr.Reason == logcat.EndUnknown {
		notes = append(notes, fmt.Sprintf("process end: pid %d ended with no crash, kill or force-stop in the log (the app exited, or the lines are gone); recorded as a process end, not a crash", end.pid))
	}
	return cr, ev, notes, cr.Reason == logcat.EndCrash
}

// logClock places logcat times on the device's boottime clock, from one
// reading of both: up is /proc/uptime, epoch and local what `date` printed
// right after it (local is the wall time in the device's zone, read as
// UTC, for year-less threadtime lines), res its resolution.
type logClock struct {
	up    int64
	epoch time.Time
	local time.Time
	res   time.Duration
	// spread is half the time between the /proc/uptime reads around
	// date: up is their midpoint, so off by at most spread.
	spread time.Duration
}

// logDateCmd reads the wall clock, then /proc/uptime again: the uptime
// read before it (the batch's command before) and this one bracket the
// date, so a phone or host that stalls between two commands widens the
// bracket rather than shifting every log line by the stall.
const logDateCmd = "date '+%s.%N %Y-%m-%d %H:%M:%S'; cat /proc/uptime"

// parseLogClock reads the outputs of `cat /proc/uptime` and logDateCmd:
// `date '+%s.%N %Y-%m-%d %H:%M:%S'` (an old toolbox date prints "%N" as
// "N": then the clock is good to the second), and /proc/uptime after it,
// whose absence leaves the first read alone to place the date.
func parseLogClock(uptime, date adbx.Result) (logClock, error) {
	var c logClock
	if uptime.ExitCode != 0 {
		return c, fmt.Errorf("no device clock: %s", failure(uptime, "cat /proc/uptime"))
	}
	up, err := procfs.ParseUptime(uptime.Stdout)
	if err != nil {
		return c, fmt.Errorf("no device clock: /proc/uptime printed %q", clipText(string(uptime.Stdout)))
	}
	c.up = up
	const cmd = "date '+%s.%N %Y-%m-%d %H:%M:%S'"
	if date.ExitCode != 0 {
		return c, fmt.Errorf("no wall clock: %s", failure(date, cmd))
	}
	line, after, _ := strings.Cut(strings.TrimSpace(string(date.Stdout)), "\n")
	f := strings.Fields(line)
	bad := fmt.Errorf("no wall clock: %s printed %q", cmd, clipText(line))
	if len(f) != 3 {
		return c, bad
	}
	secs, frac, _ := strings.Cut(f[0], ".")
	n, err := strconv.ParseInt(secs, 10, 64)
	if err != nil || n <= 0 {
		return c, bad
	}
	c.res = time.Second
	var ns int64
	if len(frac) == 9 {
		if v, err := strconv.ParseInt(frac, 10, 64); err == nil && v >= 0 {
			ns, c.res = v, time.Millisecond // logcat prints milliseconds
		}
	}
	c.epoch = time.Unix(n, ns).UTC()
	local, err := time.Parse("2006-01-02 15:04:05", f[1]+" "+f[2])
	if err != nil {
		return c, bad
	}
	c.local = local.Add(time.Duration(ns))
	if up2, err := procfs.ParseUptime([]byte(after)); err == nil && up2 >= up {
		c.spread = time.Duration(up2-up) / 2
		c.up = up + int64(c.spread)
	}
	return c, nil
}

// boot maps a log line's time to device boottime ns (0 for a line without
// a time). Year-less local times take the year that puts them nearest the
// clock reading; a daylight-saving change between the two is not undone.
func (c logClock) boot(e logcat.Entry) int64 {
	switch {
	case e.Time.IsZero():
		return 0
	case e.Epoch:
		return c.up + int64(e.Time.Sub(c.epoch))
	}
	t := e.Time
	if t.Year() == 0 {
		t = t.AddDate(c.local.Year(), 0, 0)
		if t.Sub(c.local) > 183*24*time.Hour {
			t = t.AddDate(-1, 0, 0)
		}
	}
	return c.up + int64(t.Sub(c.local))
}

// placeEnd moves an end whose log line tells when it happened to that time,
// and to the step open then: on a busy host the tick that finds a process
// gone can come well after the step it died in has ended. The batch read
// the device's clocks somewhere between send and recv on the host clock,
// and the line's time is cut to its resolution, so the end goes to the
// latest moment those allow (recv, plus the resolution): never into a step
// that ended before the process did, where the batch's midpoint could put
// an end that came a millisecond after its step began. The time is never
// later than the tick that found the process gone.
func (c *collector) placeEnd(cr *result.Crash, ev evidenceTime, uptime adbx.Result, recv int64) {
	if ev.up <= 0 {
		return
	}
	up, ok := uptimeOf(uptime)
	if !ok || up < ev.up {
		return
	}
	at := recv + ev.res - (up - ev.up)
	if at < 0 || at >= cr.HostNs {
		return
	}
	cr.HostNs = at
	cr.Step = c.s.stepAtLocked(at)
}

// Package ends tells why an app process that disappeared during a session
// ended — a crash, a kill by the system, a force-stop — from the device's
// log, read once the process is gone, and places the end at the time its
// log line gives.
//
// A Source follows the app's processes tick by tick (Seen, Started); when
// one is gone, Gone gives the device times that bound its death, and
// Attribute reads the log batch of Cmds about it:
//
//	p := src.Gone(pid, uptimeNs, clockTicks)
//	out, err := batch(ctx, src.Cmds(api))
//	cr, notes, crash := src.Attribute(cr, p, ends.Read{Cmds: cmds, Out: out, Err: err, RecvNs: recv}, pkg, interval, stepAt)
package ends

import (
	"fmt"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/logcat"
	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/perftest/internal/logclock"
	"github.com/perfgate/perfgate/result"
)

// Process is an app process that disappeared, with the device times
// (CLOCK_BOOTTIME ns, 0 when unknown) that bound its death: the last tick
// that saw it, the tick that did not, and its start.
type Process struct {
	PID     int
	AliveUp int64
	DeadUp  int64
	StartUp int64
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

// Source follows the app's processes for placing their ends in the log:
// each pid's last tick that saw it (device boottime ns) and its start time
// (clock ticks since boot). The zero Source follows no process yet.
type Source struct {
	seenUp     map[int]int64
	startTicks map[int]uint64
}

// Seen records that a read at device time up (boottime ns; 0 when the
// clock was not read, which records nothing) found pids running.
func (s *Source) Seen(pids []int, up int64) {
	if up <= 0 {
		return
	}
	if s.seenUp == nil {
		s.seenUp = map[int]int64{}
	}
	for _, pid := range pids {
		s.seenUp[pid] = up
	}
}

// Started records a process's start time, in clock ticks since boot
// (/proc/<pid>/stat).
func (s *Source) Started(pid int, startTicks uint64) {
	if s.startTicks == nil {
		s.startTicks = map[int]uint64{}
	}
	s.startTicks[pid] = startTicks
}

// Gone stops following pid, which a tick at device time deadUp (0 when
// unread) found gone, and returns the times that bound its death;
// clockTicks is the device's clock ticks per second.
func (s *Source) Gone(pid int, deadUp int64, clockTicks int) Process {
	p := Process{PID: pid, AliveUp: s.seenUp[pid], DeadUp: deadUp}
	if st, ok := s.startTicks[pid]; ok && clockTicks > 0 {
		p.StartUp = int64(st) * int64(time.Second) / int64(clockTicks)
	}
	delete(s.seenUp, pid)
	delete(s.startTicks, pid)
	return p
}

// Cmds reads, in one round trip, the device clock twice over (boottime
// and wall time, to place log lines on the tick clock) and the log: the
// whole crash buffer (API 21+), which keeps crashes however chatty the
// device is, and the last 2000 lines of main and system. Lines carry epoch
// times where logcat has the modifier (API 24+), else the year-less local
// time of -v threadtime.
func (s *Source) Cmds(api int) []string {
	format := logclock.Format(api)
	cmds := []string{"cat /proc/uptime", logclock.DateCmd}
	if api >= 21 {
		cmds = append(cmds, "logcat -d -b crash "+format)
	}
	return append(cmds, "logcat -d -b main -b system "+format+" -t 2000")
}

// Read is one read of the log about a process end: the commands of Cmds
// and their output, or the error that stopped the batch, and when its
// answer came back (host ns).
type Read struct {
	Cmds   []string
	Out    []adbx.Result
	Err    error
	RecvNs int64
}

// Attribute reads the log about process p and returns cr as a crash or,
// when the log says it was force-stopped or killed or does not say, as a
// process end (crash false), with notes on what could not be read. A crash
// whose log cannot be read at all is kept a crash, so that no crash goes
// uncounted. Where the log tells when the end happened, cr moves to that
// host time and to the step stepAt names then. pkg is the app's package,
// which its force-stops name, and interval the session's tick interval.
func (s *Source) Attribute(cr result.Crash, p Process, rd Read, pkg string, interval time.Duration, stepAt func(hostNs int64) string) (result.Crash, []string, bool) {
	err := rd.Err
	if err == nil && len(rd.Out) != len(rd.Cmds) {
		err = fmt.Errorf("batch of %d commands returned %d results", len(rd.Cmds), len(rd.Out))
	}
	if err != nil {
		cr.Reason = logcat.EndUnknown
		return cr, []string{fmt.Sprintf("process end: pid %d: the log could not be read (%v); counted as a crash", p.PID, err)}, true
	}
	cr, ev, notes, crash := attribute(cr, p, pkg, interval, rd.Cmds, rd.Out)
	place(&cr, ev, rd.Out[0], rd.RecvNs, stepAt)
	return cr, notes, crash
}

// place moves an end whose log line tells when it happened to that time,
// and to the step open then: on a busy host the tick that finds a process
// gone can come well after the step it died in has ended. The batch read
// the device's clocks somewhere between send and recv on the host clock,
// and the line's time is cut to its resolution, so the end goes to the
// latest moment those allow (recv, plus the resolution): never into a step
// that ended before the process did, where the batch's midpoint could put
// an end that came a millisecond after its step began. The time is never
// later than the tick that found the process gone.
func place(cr *result.Crash, ev evidenceTime, uptime adbx.Result, recv int64, stepAt func(int64) string) {
	if ev.up <= 0 || uptime.ExitCode != 0 {
		return
	}
	up, err := procfs.ParseUptime(uptime.Stdout)
	if err != nil || up < ev.up {
		return
	}
	at := recv + ev.res - (up - ev.up)
	if at < 0 || at >= cr.HostNs {
		return
	}
	cr.HostNs = at
	cr.Step = stepAt(at)
}

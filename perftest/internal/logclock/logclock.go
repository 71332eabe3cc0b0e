// Package logclock places the times of logcat lines on the device's
// boottime clock, the clock of /proc/uptime, from one reading of both that
// a log read makes in its own round trip:
//
//	cmds := []string{"cat /proc/uptime", logclock.DateCmd, "logcat -d " + logclock.Format(api)}
//	clk, err := logclock.Parse(out[0], out[1])
//	up := clk.Boot(entry) // device boottime ns of a parsed line
//
// A process end's log and the Choreographer's skipped-frames lines are
// both read this way, after the fact.
package logclock

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/logcat"
	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/perftest/internal/devcmd"
)

// Clock places logcat times on the device's boottime clock, from one
// reading of both: Up is /proc/uptime, Epoch and Local what `date` printed
// right after it (Local is the wall time in the device's zone, read as
// UTC, for year-less threadtime lines), Res its resolution.
type Clock struct {
	Up    int64
	Epoch time.Time
	Local time.Time
	Res   time.Duration
	// Spread is half the time between the /proc/uptime reads around
	// date: Up is their midpoint, so off by at most Spread.
	Spread time.Duration
}

// DateCmd reads the wall clock, then /proc/uptime again: the uptime read
// before it (the batch's command before) and this one bracket the date,
// so a phone or host that stalls between two commands widens the bracket
// rather than shifting every log line by the stall.
const DateCmd = "date '+%s.%N %Y-%m-%d %H:%M:%S'; cat /proc/uptime"

// Format is logcat's -v format for the device's API level: lines carry
// epoch times where logcat has the modifier (API 24+), else the year-less
// local time of -v threadtime.
func Format(api int) string {
	format := "-v threadtime"
	if api >= 24 {
		format += " -v epoch"
	}
	return format
}

// Parse reads the outputs of `cat /proc/uptime` and DateCmd:
// `date '+%s.%N %Y-%m-%d %H:%M:%S'` (an old toolbox date prints "%N" as
// "N": then the clock is good to the second), and /proc/uptime after it,
// whose absence leaves the first read alone to place the date.
func Parse(uptime, date adbx.Result) (Clock, error) {
	var c Clock
	if uptime.ExitCode != 0 {
		return c, fmt.Errorf("no device clock: %v", uptime.Err("cat /proc/uptime"))
	}
	up, err := procfs.ParseUptime(uptime.Stdout)
	if err != nil {
		return c, fmt.Errorf("no device clock: /proc/uptime printed %q", devcmd.Clip(string(uptime.Stdout)))
	}
	c.Up = up
	const cmd = "date '+%s.%N %Y-%m-%d %H:%M:%S'"
	if date.ExitCode != 0 {
		return c, fmt.Errorf("no wall clock: %v", date.Err(cmd))
	}
	line, after, _ := strings.Cut(strings.TrimSpace(string(date.Stdout)), "\n")
	f := strings.Fields(line)
	bad := fmt.Errorf("no wall clock: %s printed %q", cmd, devcmd.Clip(line))
	if len(f) != 3 {
		return c, bad
	}
	secs, frac, _ := strings.Cut(f[0], ".")
	n, err := strconv.ParseInt(secs, 10, 64)
	if err != nil || n <= 0 {
		return c, bad
	}
	c.Res = time.Second
	var ns int64
	if len(frac) == 9 {
		if v, err := strconv.ParseInt(frac, 10, 64); err == nil && v >= 0 {
			ns, c.Res = v, time.Millisecond // logcat prints milliseconds
		}
	}
	c.Epoch = time.Unix(n, ns).UTC()
	local, err := time.Parse("2006-01-02 15:04:05", f[1]+" "+f[2])
	if err != nil {
		return c, bad
	}
	c.Local = local.Add(time.Duration(ns))
	if up2, err := procfs.ParseUptime([]byte(after)); err == nil && up2 >= up {
		c.Spread = time.Duration(up2-up) / 2
		c.Up = up + int64(c.Spread)
	}
	return c, nil
}

// Boot maps a log line's time to device boottime ns (0 for a line without
// a time). Year-less local times take the year that puts them nearest the
// clock reading; a daylight-saving change between the two is not undone.
func (c Clock) Boot(e logcat.Entry) int64 {
	switch {
	case e.Time.IsZero():
		return 0
	case e.Epoch:
		return c.Up + int64(e.Time.Sub(c.Epoch))
	}
	t := e.Time
	if t.Year() == 0 {
		t = t.AddDate(c.Local.Year(), 0, 0)
		if t.Sub(c.Local) > 183*24*time.Hour {
			t = t.AddDate(-1, 0, 0)
		}
	}
	return c.Up + int64(t.Sub(c.Local))
}

// Package readlog keeps how each read of a measurement source fared, so a
// metric without a value can say why (README "Unmeasured is never zero").
//
//	var l readlog.Log
//	l.Note("cpu: exit 1") // a note made while a tick is absorbed
//	l.Add("cat /proc/stat", hostNs, readlog.ReadErr(ok, res, l.Noted("cpu: ")))
//	l.EndTick()
//	why := readlog.Unreadable("cat /proc/stat", l.Window("cat /proc/stat", "cheap", gaps, start, end))
package readlog

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/android/dumpsys"
	"github.com/perfgate/perfgate/internal/excerpt"
	"github.com/perfgate/perfgate/result"
)

// Read is one read of a source: good, or why not.
type Read struct {
	HostNs int64
	Err    string // "" for a good read
	Tick   bool   // the whole tick failed: the device did not answer the read
}

// Log is the reads of every source, and the notes of the tick being
// absorbed.
type Log struct {
	reads map[string][]Read
	// tickNotes are the notes made during the tick being absorbed, the
	// parse errors a read's exit status does not show.
	tickNotes []string
}

// Add records a read of src at host time hostNs; err is "" for a good one.
func (l *Log) Add(src string, hostNs int64, err string) {
	if l.reads == nil {
		l.reads = map[string][]Read{}
	}
	l.reads[src] = append(l.reads[src], Read{HostNs: hostNs, Err: err})
}

// Note records a note made during the tick being absorbed.
func (l *Log) Note(msg string) { l.tickNotes = append(l.tickNotes, msg) }

// EndTick forgets the notes of the tick absorbed.
func (l *Log) EndTick() { l.tickNotes = l.tickNotes[:0] }

// Noted is the last note of the current tick that starts with prefix,
// without it; "" when there was none.
func (l *Log) Noted(prefix string) string {
	for i := len(l.tickNotes) - 1; i >= 0; i-- {
		if s, ok := strings.CutPrefix(l.tickNotes[i], prefix); ok {
			return s
		}
	}
	return ""
}

// Window returns the reads of src that tell about the host window
// [start, end] — those in it and the first after it, which still sees a
// short step's frames and closes its last interval — oldest first. A tick
// of lane that failed as a whole (one of gaps) is a failed read of every
// source in it; src "" gives those alone.
func (l *Log) Window(src, lane string, gaps []result.Gap, start, end int64) []Read {
	var win []Read
	rs := l.reads[src] // in the order of the ticks
	for i := sort.Search(len(rs), func(i int) bool { return rs[i].HostNs >= start }); i < len(rs); i++ {
		win = append(win, rs[i])
		if rs[i].HostNs > end {
			break
		}
	}
	for _, g := range gaps {
		if g.Lane == lane && g.HostNs >= start && !strings.HasSuffix(g.Error, "frames were lost") {
			win = append(win, Read{HostNs: g.HostNs, Err: "the whole tick failed: " + g.Error, Tick: true})
		}
	}
	sort.SliceStable(win, func(i, j int) bool { return win[i].HostNs < win[j].HostNs })
	for i, r := range win {
		if r.HostNs > end {
			return win[:i+1]
		}
	}
	return win
}

// GoodSince reports whether a read of src succeeded at or after host
// time end.
func (l *Log) GoodSince(src string, end int64) bool {
	rs := l.reads[src]
	for i := len(rs) - 1; i >= 0 && rs[i].HostNs >= end; i-- {
		if rs[i].Err == "" {
			return true
		}
	}
	return false
}

// Within drops the read after end that Window adds.
func Within(rs []Read, end int64) []Read {
	if n := len(rs); n > 0 && rs[n-1].HostNs > end {
		return rs[:n-1]
	}
	return rs
}

// Failed counts the reads that failed.
func Failed(rs []Read) int {
	n := 0
	for _, r := range rs {
		if r.Err != "" {
			n++
		}
	}
	return n
}

// Unreadable is the reason for a source that failed every read in a step,
// or "" when some read was good or none was made.
//
// The device's own answer says why better than a tick it did not answer
// in time: the last answer is quoted, and the ticks that failed as a whole
// are counted beside it (their last error quoted only when the device
// answered no read at all).
func Unreadable(what string, rs []Read) string {
	failed, ticks, last, lastTick := 0, 0, "", ""
	for _, r := range rs {
		if r.Err == "" {
			return ""
		}
		failed++
		if r.Tick {
			ticks++
			lastTick = r.Err
		} else {
			last = r.Err
		}
	}
	switch {
	case failed == 0:
		return ""
	case last == "":
		last = lastTick
	case ticks > 0:
		last += fmt.Sprintf("; %d of them in ticks that failed as a whole", ticks)
	}
	return fmt.Sprintf("%s unreadable on every read in the step (%d failed; last: %s)", what, failed, last)
}

// Short describes a failed command's result for a reason: its exit status
// and what it printed, bounded.
func Short(r adbx.Result) string {
	msg := strings.TrimSpace(string(r.Stderr))
	if msg == "" {
		msg = strings.TrimSpace(string(r.Stdout))
	}
	if msg == "" {
		return fmt.Sprintf("exit %d, no output", r.ExitCode)
	}
	return fmt.Sprintf("exit %d: %s", r.ExitCode, excerpt.Quote(msg))
}

// ReadErr is "" when a read gave its value (ok), else why not: the note
// its parser left this tick, else the command's failure.
func ReadErr(ok bool, res adbx.Result, note string) string {
	switch {
	case ok:
		return ""
	case note != "":
		return note
	}
	return Short(res)
}

// QuoteOutput is err for a reason, with the first line of the output it
// came from when the error does not quote any.
func QuoteOutput(err error, out []byte) string {
	var pe *devtext.ParseError
	if errors.As(err, &pe) && pe.Text != "" || errors.Is(err, dumpsys.ErrMeminfoNoProcess) {
		return err.Error()
	}
	ln := strings.TrimSpace(string(devtext.Normalize(out)))
	if i := strings.IndexByte(ln, '\n'); i >= 0 {
		ln = ln[:i]
	}
	return fmt.Sprintf("%v (output: %s)", err, excerpt.Quote(ln))
}

package causesrc

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/android/logcat"
	"github.com/perfgate/perfgate/causes"
	"github.com/perfgate/perfgate/perftest/internal/devcmd"
)

// causeLogCmds read, in one round trip, the system buffer's Looper and
// ActivityManager lines with times on the device's monotonic clock (the
// frames' clock), and the buffer's first lines, which tell how far back it
// still reaches.
func causeLogCmds() []string {
	const format = "-v threadtime -v usec -v monotonic"
	return []string{"logcat -d -b system " + format + " -s Looper:W ActivityManager:E",
		"logcat -d -b system " + format + " | head -n 3"}
}

// readCauseLog reads the app's slow-message lines and ANRs; appPIDs
// gives every process the session saw the app run.
func (s *Source) readCauseLog(ctx context.Context, appPIDs func() []int) causeLog {
	ctx, cancel := context.WithTimeout(ctx, max(s.cfg.TickTimeout, 10*time.Second))
	defer cancel()
	cmds := causeLogCmds()
	out, err := s.cfg.Batch(ctx, cmds)
	if err == nil && len(out) != len(cmds) {
		err = fmt.Errorf("batch of %d commands returned %d results", len(cmds), len(out))
	}
	if err != nil {
		return causeLog{logWhy: fmt.Sprintf("%s: %v", cmds[0], err)}
	}
	for i := range out {
		if out[i].ExitCode != 0 {
			return causeLog{logWhy: devcmd.Failure(out[i], cmds[i])}
		}
	}
	pids := appPIDs()
	// The buffer's oldest line; an empty buffer lost nothing.
	var l causeLog
	first := strings.TrimSpace(string(devtext.Normalize(out[1].Stdout)))
	l.logFrom = -1
	for _, raw := range strings.Split(first, "\n") {
		if e, ok := logcat.ParseLine(raw); ok && e.Epoch {
			l.logFrom = e.Time.UnixNano()
			break
		}
	}
	switch {
	case l.logFrom >= 0:
	case first == "" || !strings.Contains(first, "\n") && strings.HasPrefix(first, "--------- beginning of"):
		l.logFrom = 0
	default:
		return causeLog{logWhy: fmt.Sprintf("%s printed no line with a monotonic time: %q", cmds[1], devcmd.Clip(first))}
	}
	text := devtext.Normalize(out[0].Stdout)
	var entries []logcat.Entry
	for _, raw := range strings.Split(string(text), "\n") {
		if e, ok := logcat.ParseLine(raw); ok && e.Epoch {
			entries = append(entries, e)
		}
	}
	_, minMs, _ := s.looper.Setting()
	l.blocks = looperBlocks(entries, pids, minMs)
	for _, a := range logcat.ParseANRs(text) {
		if a.Process != s.cfg.Package && !slices.Contains(pids, a.PID) {
			continue
		}
		l.anrs = append(l.anrs, causes.ANR{TimeNs: a.Entry.Time.UnixNano(), PID: a.PID, Reason: a.Reason})
	}
	return l
}

// anrStackCmds read the ANRs' stack dumps (the dropbox's data_app_anr
// entries, else /data/anr/traces.txt, readable to the shell on old
// Android) and ActivityManager's ANR lines again, with their times on the
// device's wall clock, which the dumps' headers give.
func anrStackCmds() []string {
	return []string{"dumpsys dropbox --print data_app_anr", "cat /data/anr/traces.txt",
		"logcat -d -b system -v threadtime -v year -v usec -s ActivityManager:E"}
}

// readANRStacks gives each ANR the main thread's stack of its own dump:
// the dump of its process that the system took nearest the ANR's report
// (see matchANRDumps). It returns notes on what it could not read.
func (s *Source) readANRStacks(ctx context.Context, anrs []causes.ANR) []string {
	if len(anrs) == 0 {
		return nil
	}
	cmds := anrStackCmds()
	actx, cancel := context.WithTimeout(ctx, max(s.cfg.TickTimeout, 10*time.Second))
	out, err := s.cfg.Batch(actx, cmds)
	cancel()
	if err == nil && len(out) != len(cmds) {
		err = fmt.Errorf("batch of %d commands returned %d results", len(cmds), len(out))
	}
	if err != nil {
		return []string{fmt.Sprintf("anrs: the ANR stack dumps could not be read (%s; %s): %v", cmds[0], cmds[1], err)}
	}
	var secs []logcat.ANRTrace
	from := cmds[0] + " or " + cmds[1]
	var failed []string
	for i, o := range out[:2] {
		if o.ExitCode == 0 {
			secs = append(secs, logcat.ParseANRTraces(o.Stdout)...)
		} else {
			failed = append(failed, devcmd.Failure(o, cmds[i]))
		}
	}
	if len(failed) > 0 {
		// A note of an ANR left without a stack quotes the reads that
		// failed: one of the two is often refused (traces.txt on
		// Android 8+), both rarely.
		from += " (" + strings.Join(failed, "; ") + ")"
	}
	if out[2].ExitCode != 0 {
		return []string{"anrs: no stack for the ANRs: " + devcmd.Failure(out[2], cmds[2])}
	}
	return matchANRDumps(anrs, logcat.ParseANRs(out[2].Stdout), secs, from)
}

// ANR dumps are taken before the system logs the ANR ("ANR in …"), a
// few seconds before on a busy phone; a dump further off is another's.
const (
	anrDumpBefore = time.Minute
	anrDumpAfter  = 2 * time.Second
)

// matchANRDumps gives each ANR of anrs (in time order, on the monotonic
// clock) the main thread's stack of its own dump among secs: the i-th ANR
// of a process is the i-th of walls (the same reports on the wall clock),
// and its dump the unused one of its pid nearest its report, within
// anrDumpBefore before it and anrDumpAfter after. It returns a note for
// each ANR left without a stack, saying why; from names where the dumps
// were read.
func matchANRDumps(anrs []causes.ANR, walls []logcat.ANR, secs []logcat.ANRTrace, from string) []string {
	byPID := map[int][]logcat.ANR{}
	for _, w := range walls {
		byPID[w.PID] = append(byPID[w.PID], w)
	}
	used := make([]bool, len(secs))
	seen := map[int]int{}
	var notes []string
	for i := range anrs {
		a := &anrs[i]
		k := seen[a.PID]
		seen[a.PID]++
		if k >= len(byPID[a.PID]) || byPID[a.PID][k].Reason != a.Reason || byPID[a.PID][k].Entry.Time.Year() == 0 {
			notes = append(notes, fmt.Sprintf("anrs: the ANR of pid %d at %.3f s is not in the log read again with wall-clock times, so no dump can be told its own", a.PID, float64(a.TimeNs)/1e9))
			continue
		}
		at := byPID[a.PID][k].Entry.Time
		best := -1
		var bestOff time.Duration
		for j, sec := range secs {
			tm, ok := sec.Time()
			if used[j] || sec.PID != a.PID || !ok || tm.Before(at.Add(-anrDumpBefore)) || tm.After(at.Add(anrDumpAfter)) || sec.Main() == nil {
				continue
			}
			if off := at.Sub(tm).Abs(); best < 0 || off < bestOff {
				best, bestOff = j, off
			}
		}
		if best < 0 {
			notes = append(notes, fmt.Sprintf("anrs: no stack dump of pid %d from the minute before its ANR at %s in %s (Android 8+ keeps /data/anr from the shell; the dropbox entry may be gone)",
				a.PID, at.Format("2006-01-02 15:04:05.000"), from))
			continue
		}
		used[best] = true
		a.MainStack = secs[best].Main().Frames
	}
	return notes
}

// looperBlocks turns the Looper lines of the main threads of processes
// pids into blocks, in the order they ended: AOSP's "Slow dispatch" lines
// (causes.BlockOf), the OEM lines (causes.OEMBlocksOf, with messages of
// at least minMs; one block per message however many lines name it) and
// "Slow delivery" lines (causes.DeliveryBlockOf) where the dispatch
// blocks do not already cover at least half the wait: a phone that logs
// both names the work that made the message late, one that logs
// deliveries only (an OEM build with dispatch logging off) gives no other
// account of that time.
func looperBlocks(entries []logcat.Entry, pids []int, minMs int64) []causes.Block {
	type pidBlock struct {
		pid int
		b   causes.Block
	}
	var ran, waits []pidBlock
	seen := map[[2]int64]bool{}
	lines := logcat.LooperLines(entries)
	for i, ln := range lines {
		e := entries[ln.Entry]
		if ln.Drained || e.PID != e.TID || !slices.Contains(pids, e.PID) {
			continue
		}
		at := e.Time.UnixNano()
		switch {
		case ln.OEM != nil:
			if ln.OEM.Thread != "" && ln.OEM.Thread != "main" {
				continue
			}
			for _, b := range causes.OEMBlocksOf(*ln.OEM, at, minMs) {
				key := [2]int64{int64(e.PID), b.Seq}
				if b.Seq >= 0 && seen[key] {
					continue
				}
				seen[key] = true
				ran = append(ran, pidBlock{e.PID, b.Block})
			}
		case ln.Thread != "main":
		case ln.Kind == logcat.LooperDispatch:
			ran = append(ran, pidBlock{e.PID, causes.BlockOf(ln.LooperSlow, at)})
		default:
			// Looper logs a message's delivery, then its dispatch.
			var took int64
			if i+1 < len(lines) {
				n, ne := lines[i+1], entries[lines[i+1].Entry]
				if n.OEM == nil && !n.Drained && n.Kind == logcat.LooperDispatch && ne.PID == e.PID && ne.TID == e.TID &&
					ne.Time.Sub(e.Time).Abs() <= time.Millisecond && n.Handler == ln.Handler && n.Callback == ln.Callback && n.What == ln.What {
					took = n.Millis
				}
			}
			waits = append(waits, pidBlock{e.PID, causes.DeliveryBlockOf(ln.LooperSlow, at, took)})
		}
	}
	out := make([]causes.Block, 0, len(ran)+len(waits))
	for _, r := range ran {
		out = append(out, r.b)
	}
	for _, w := range waits {
		var covered int64
		for _, r := range ran {
			if r.pid == w.pid {
				covered += max(0, min(r.b.EndNs, w.b.EndNs)-max(r.b.StartNs, w.b.StartNs))
			}
		}
		if 2*covered < w.b.EndNs-w.b.StartNs {
			out = append(out, w.b)
		}
	}
	slices.SortStableFunc(out, func(a, b causes.Block) int { return cmp.Compare(a.EndNs, b.EndNs) })
	return out
}

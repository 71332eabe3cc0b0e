package simdevice

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/android/logcat"
)

// Replay makes the device play a real `dumpsys gfxinfo <pkg> framestats`
// capture as the phone that printed it would have: rows appear in the
// order of the capture as device time passes, a row shows FrameCompleted 0
// until its completion time, each window's ring holds its newest 120 rows,
// and the rest of the process's section is printed as captured. The app
// runs from the start (with the capture's pid) and draws nothing else.
//
// The capture starts to play at the first `dumpsys gfxinfo` naming its
// package (a recording's reset, or a first look), half a second of device
// time before its first row; every timestamp of the capture that is a real
// time on its clock moves by the same offset (ReplayRow gives both),
// values that are not (0, -1, INT64_MAX, garbage past the capture's clock)
// are printed as captured.
type Replay struct {
	// Capture is the capture as saved (UTF-16/BOM/CRLF are fine).
	Capture []byte
	// Package is the app whose section plays; "" picks the only process
	// with PROFILEDATA rows.
	Package string
	// Speed is device time per host time; 0 means 1. Tests run long
	// captures faster.
	Speed float64
}

// replayLeadIn is the device time between the start and the first row.
const replayLeadIn = 500 * time.Millisecond

// ReplayRow is one PROFILEDATA row of a replayed capture, on the device's
// clock (the capture's values plus the replay's offset).
type ReplayRow struct {
	// Window is the window as a parser names it (the ViewRootImpl line).
	Window string
	// Row is the 0-based row of the window's block in the capture.
	Row            int
	Flags          int64
	IntendedVsync  int64
	Vsync          int64
	FrameCompleted int64 // as the row finally shows it
	// AppearNs is when the row enters the window's ring.
	AppearNs int64
	// Hidden: a `dumpsys gfxinfo <pkg> reset` cleared the ring after the
	// row appeared, so no dump after the reset shows it.
	Hidden bool
}

// replay is the playing state.
type replay struct {
	pkg      string
	pid      int
	periodNs int64
	speed    float64
	clockNs  int64 // the capture's Uptime line, ns
	realDiff int64 // Realtime − Uptime of the capture, ms

	head    string       // the lines before the first process section
	parts   []replayPart // the package's section
	windows []*replayWindow

	started  bool
	shift    int64 // added to the capture's times
	resetAt  int64 // device time of the last reset, in capture time
	firstApp int64 // the first row's appearance (capture time)
	endNs    int64 // the last row event (capture time)
}

// replayPart is static text, or the rows of a window's block.
type replayPart struct {
	text string
	win  *replayWindow
}

type replayWindow struct {
	name     string
	cols     []string
	isTime   []bool // columns that hold times
	complete int    // index of FrameCompleted
	deadline int    // index of FrameDeadline, -1
	rows     [][]int64
	appear   []int64 // capture time each row enters the ring
	doneAt   []int64 // capture time FrameCompleted shows, -1: from the start
}

// errReplay is wrapped by every error about a capture to replay.
var errReplay = errors.New("simdevice: replay")

// newReplay reads a capture.
func newReplay(r *Replay) (*replay, error) {
	text := devtext.Normalize(r.Capture)
	g, err := gfxinfo.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errReplay, err)
	}
	var proc *gfxinfo.Process
	var withRows []string
	for _, p := range g.Processes {
		n := 0
		for _, w := range p.Windows {
			if w.Frames != nil {
				n += w.Frames.Len()
			}
		}
		if n > 0 {
			withRows = append(withRows, p.Package)
		}
		if r.Package != "" && p.Package == r.Package || r.Package == "" && n > 0 && proc == nil {
			proc = p
		}
	}
	switch {
	case r.Package == "" && len(withRows) > 1:
		return nil, fmt.Errorf("%w: the capture has frame rows of %d processes (%s); name one", errReplay, len(withRows), strings.Join(withRows, ", "))
	case proc == nil && r.Package != "":
		return nil, fmt.Errorf("%w: the capture has no section for %q (it has %s)", errReplay, r.Package, strings.Join(withRows, ", "))
	case proc == nil:
		return nil, fmt.Errorf("%w: the capture has no PROFILEDATA rows", errReplay)
	}
	if g.UptimeMillis <= 0 {
		return nil, fmt.Errorf("%w: the capture has no \"Uptime:\" line, so its clock is unknown", errReplay)
	}
	if !validPackage(proc.Package) {
		return nil, fmt.Errorf("%w: package %q is not a Java package name", errReplay, proc.Package)
	}
	speed := r.Speed
	if speed == 0 {
		speed = 1
	}
	if speed < 0.1 || speed > 100 || math.IsNaN(speed) {
		return nil, fmt.Errorf("%w: speed %g out of range 0.1..100", errReplay, r.Speed)
	}
	rp := &replay{pkg: proc.Package, pid: proc.PID, speed: speed, clockNs: g.ClockNs(),
		realDiff: g.RealtimeMillis - g.UptimeMillis, firstApp: math.MaxInt64}
	for _, w := range proc.Windows {
		if w.Frames == nil {
			continue
		}
		if p := w.Frames.RefreshPeriod(); p > 0 && rp.periodNs == 0 {
			rp.periodNs = p
		}
	}
	if rp.periodNs == 0 {
		rp.periodNs = 16_666_667
	}
	if err := rp.layout(string(text), proc); err != nil {
		return nil, err
	}
	if rp.firstApp == math.MaxInt64 {
		return nil, fmt.Errorf("%w: %s has no PROFILEDATA rows", errReplay, proc.Package)
	}
	return rp, nil
}

// layout cuts the capture into the head, the package's section and its
// blocks, and works out when each row appears and completes.
func (rp *replay) layout(text string, proc *gfxinfo.Process) error {
	lines := strings.SplitAfter(text, "\n")
	start, end := -1, len(lines)
	header := fmt.Sprintf("** Graphics info for pid %d [%s] **", proc.PID, proc.Package)
	for i, ln := range lines {
		s := strings.TrimSpace(ln)
		if !strings.HasPrefix(s, "** Graphics info for pid") {
			continue
		}
		if start >= 0 {
			end = i
			break
		}
		if s == header {
			start = i
		}
	}
	if start < 0 {
		// A capture pasted without its process line is one section.
		start = 0
		for i, ln := range lines {
			if strings.HasPrefix(strings.TrimSpace(ln), "Uptime:") {
				start = i + 1
				break
			}
		}
	}
	// The dump's own header: the lines before the first process.
	for _, ln := range lines[:start] {
		if strings.HasPrefix(strings.TrimSpace(ln), "** Graphics info for pid") {
			break
		}
		rp.head += ln
	}
	var blocks []*gfxinfo.Window
	for _, w := range proc.Windows {
		if w.Frames != nil {
			blocks = append(blocks, w)
		}
	}
	var static strings.Builder
	const (
		inText = iota
		inHeader
		inRows
	)
	state, k := inText, 0
	for i := start; i < end; i++ {
		s := strings.TrimSpace(lines[i])
		marker := s == "---PROFILEDATA---"
		switch {
		case state == inText:
			static.WriteString(lines[i])
			if marker {
				state = inHeader
				k++
			}
		case marker: // the closing marker, of an empty block too
			static.WriteString(lines[i])
			state = inText
		case state == inHeader:
			static.WriteString(lines[i])
			if s != "" && k <= len(blocks) {
				rp.parts = append(rp.parts, replayPart{text: static.String()}, replayPart{win: rp.window(blocks[k-1])})
				static.Reset()
				state = inRows
			}
		}
		// Rows are printed from the window's state.
	}
	rp.parts = append(rp.parts, replayPart{text: static.String()})
	for _, p := range rp.parts {
		if p.win != nil {
			rp.windows = append(rp.windows, p.win)
		}
	}
	return nil
}

// window lays out one block's rows.
func (rp *replay) window(w *gfxinfo.Window) *replayWindow {
	t := w.Frames
	rw := &replayWindow{name: w.Label(), cols: t.Columns, complete: t.Column("FrameCompleted"), deadline: t.Column("FrameDeadline")}
	for _, c := range t.Columns {
		switch c {
		case "Flags", "FrameTimelineVsyncId", "InputEventId", "DequeueBufferDuration", "QueueBufferDuration", "FrameInterval":
			rw.isTime = append(rw.isTime, false)
		default:
			rw.isTime = append(rw.isTime, true)
		}
	}
	sync := t.Column("SyncStart")
	var prev int64
	for i := 0; i < t.Len(); i++ {
		row := slices.Clone(t.Row(i))
		f := t.Frame(i)
		appear := f.IntendedVsync
		if sync >= 0 && rp.realTime(row[sync]) && row[sync] > appear {
			appear = row[sync]
		}
		if !rp.realTime(appear) {
			appear = prev
		}
		appear = max(appear, prev)
		prev = appear
		done := int64(-1)
		if fc := f.FrameCompleted; rp.realTime(fc) && fc >= appear {
			done = fc
		}
		rw.rows = append(rw.rows, row)
		rw.appear = append(rw.appear, appear)
		rw.doneAt = append(rw.doneAt, done)
		if appear > 0 {
			rp.firstApp = min(rp.firstApp, appear)
		}
		rp.endNs = max(rp.endNs, appear, done)
	}
	return rw
}

// realTime reports a value that is a time on the capture's clock.
func (rp *replay) realTime(v int64) bool {
	return v > 0 && v <= rp.clockNs+int64(gfxinfo.ClockSlack)
}

// start begins the replay at device time now.
func (rp *replay) start(now int64) {
	if rp.started {
		return
	}
	rp.started = true
	rp.shift = now + int64(replayLeadIn) - rp.firstApp
	rp.resetAt = math.MinInt64
}

// dump writes the package's section as the phone shows it at device time
// now.
func (rp *replay) dump(b *strings.Builder, now int64) {
	capNow := now - rp.shift
	up := now / 1e6
	head := rp.head
	if i := strings.Index(head, "Uptime:"); i >= 0 {
		j := strings.IndexByte(head[i:], '\n')
		if j < 0 {
			j = len(head) - i
		}
		head = head[:i] + fmt.Sprintf("Uptime: %d Realtime: %d", up, up+rp.realDiff) + head[i+j:]
	} else {
		head = fmt.Sprintf("Applications Graphics Acceleration Info:\nUptime: %d Realtime: %d\n\n", up, up+rp.realDiff) + head
	}
	b.WriteString(head)
	var buf []byte
	for _, p := range rp.parts {
		if p.win == nil {
			b.WriteString(p.text)
			continue
		}
		w := p.win
		var shown []int
		for i, a := range w.appear {
			if a <= capNow && a > rp.resetAt {
				shown = append(shown, i)
			}
		}
		if len(shown) > gfxRingFrames {
			shown = shown[len(shown)-gfxRingFrames:]
		}
		for _, i := range shown {
			buf = buf[:0]
			for c, v := range w.rows[i] {
				out := v
				if w.isTime[c] && rp.realTime(v) {
					out = v + rp.shift
					// What has not happened yet reads 0; a deadline is known.
					if v > capNow && c != w.deadline {
						out = 0
					}
				}
				if c == w.complete && w.doneAt[i] > capNow {
					out = 0
				}
				buf = strconv.AppendInt(buf, out, 10)
				buf = append(buf, ',')
			}
			buf = append(buf, '\n')
			b.Write(buf)
		}
	}
}

// rows is every row with its final values on the device clock.
func (rp *replay) rows() []ReplayRow {
	var out []ReplayRow
	for _, w := range rp.windows {
		flags, iv, vs := slices.Index(w.cols, "Flags"), slices.Index(w.cols, "IntendedVsync"), slices.Index(w.cols, "Vsync")
		for i, row := range w.rows {
			mv := func(c int) int64 {
				if c < 0 {
					return 0
				}
				if rp.realTime(row[c]) {
					return row[c] + rp.shift
				}
				return row[c]
			}
			out = append(out, ReplayRow{Window: w.name, Row: i, Flags: row[flags], IntendedVsync: mv(iv), Vsync: mv(vs),
				FrameCompleted: mv(w.complete), AppearNs: w.appear[i] + rp.shift, Hidden: w.appear[i] <= rp.resetAt})
		}
	}
	return out
}

// ReplayRows returns every row of the replayed capture on the device's
// clock, and false when the device replays nothing or has not started.
func (w *World) ReplayRows() ([]ReplayRow, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.replay == nil || !w.replay.started {
		return nil, false
	}
	return w.replay.rows(), true
}

// ReplayEnd is the device time of the replay's last row event (a row
// appearing or completing), and false before the replay started.
func (w *World) ReplayEnd() (time.Duration, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.replay == nil || !w.replay.started {
		return 0, false
	}
	return time.Duration(w.replay.endNs + w.replay.shift), true
}

// replayWorkload is the app of a replay: the capture's package, idle.
func replayWorkload(rp *replay) *Workload {
	activity := ".MainActivity"
	for _, w := range rp.windows {
		// "pkg/pkg.Activity/android.view.ViewRootImpl@…"
		if parts := strings.Split(w.name, "/"); len(parts) == 3 && parts[0] == rp.pkg && validPackage(parts[1]) {
			activity = parts[1]
			break
		}
	}
	return &Workload{
		Name: "replay", Package: rp.pkg, UID: 10_321, Activity: activity,
		RefreshHz: 1e9 / float64(rp.periodNs),
		Startup:   Startup{ColdMs: 1},
		Memory:    Memory{JavaKiB: 24_000, NativeKiB: 38_000, CodeKiB: 30_000, GraphicsKiB: 12_000, OtherKiB: 20_000, RSSExtraKiB: 60_000},
		Launch:    "idle",
		Phases:    []Phase{idlePhase()},
	}
}

// replayGfxinfoLocked answers `dumpsys gfxinfo` for the replayed package.
func (w *World) replayGfxinfoLocked(reset bool) string {
	rp := w.replay
	rp.start(w.now)
	var b strings.Builder
	rp.dump(&b, w.now)
	if reset {
		rp.resetAt = w.now - rp.shift
	}
	return b.String()
}

// isReplayed reports whether `dumpsys gfxinfo` for pkg is the replay's.
func (w *World) isReplayed(pkg string) bool {
	return w.replay != nil && (pkg == "" || pkg == w.replay.pkg) && w.app != nil
}

// ReplayedLine is one line of a saved log that ReplayLooperLog played.
type ReplayedLine struct {
	// Entry is the line's index among the capture's parsed entries
	// (logcat.Parse); AtNs when the device logged it (uptime ns).
	Entry    int
	AtNs     int64
	PID, TID int
	Level    byte
	Message  string
}

// ReplayLooperLog plays the "Looper" lines of a saved log (any format
// logcat.Parse reads: -v threadtime, -v time, …) into the device's system
// buffer as lines of the running app, keeping their spacing: the first
// is logged at device time at, each other one as far after it as in the
// capture. Every process of the capture becomes the app's process; a
// thread whose id equals its pid, or, where the format gives no thread,
// a line about the looper named "main" (AOSP's "… main h=…", MIUI's
// "Slow Looper main:", HyperOS's "PerfMonitor"), is the app's main
// thread, any other thread one of the app's others. The messages and
// levels are the capture's. It fails when the app is not running, or the
// capture has no Looper line.
func (w *World) ReplayLooperLog(capture []byte, at time.Duration) ([]ReplayedLine, error) {
	entries, err := logcat.Parse(capture)
	if err != nil {
		return nil, fmt.Errorf("simdevice: replay of a Looper log: %w", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.app == nil {
		return nil, errors.New("simdevice: replay of a Looper log: the app is not running")
	}
	pid := w.app.pid
	others := map[[2]int]int{}
	var out []ReplayedLine
	var t0 time.Time
	for i, e := range entries {
		if e.Tag != logcat.LooperTag || e.Time.IsZero() {
			continue
		}
		if out == nil {
			t0 = e.Time
		}
		tid := pid
		if !replayMainThread(e) {
			k := [2]int{e.PID, e.TID}
			if others[k] == 0 {
				others[k] = pid + 1 + len(others)
			}
			tid = others[k]
		}
		l := ReplayedLine{Entry: i, AtNs: int64(at) + int64(e.Time.Sub(t0)), PID: pid, TID: tid, Level: e.Level, Message: e.Message}
		w.logBufLocked(l.AtNs, "system", l.PID, l.TID, l.Level, logcat.LooperTag, l.Message)
		out = append(out, l)
	}
	if out == nil {
		return nil, errors.New("simdevice: replay of a Looper log: the capture has no line of the tag Looper")
	}
	return out, nil
}

// replayMainThread reports whether a captured Looper line is its
// process's main thread's.
func replayMainThread(e logcat.Entry) bool {
	if e.TID >= 0 {
		return e.TID == e.PID
	}
	if l, ok := logcat.ParseLooperSlow(e.Message); ok {
		return l.Thread == "main"
	}
	r, ok := logcat.ParseLooperReport(e.Message)
	return ok && (r.Thread == "" || r.Thread == "main")
}

package gfxinfo

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/internal/excerpt"
)

// Source names `dumpsys gfxinfo` in errors and reports.
const Source = "dumpsys gfxinfo"

// ErrNoProcess is matched (errors.Is) by a *NoProcessError:
// the package has no running process.
var ErrNoProcess = errors.New("no process found")

// ErrDumpFailed is matched (errors.Is) by a *DumpFailedError:
// the app did not answer the dump (it was busy, dying or frozen).
var ErrDumpFailed = errors.New("failure while dumping the app")

// NoProcessError is `dumpsys gfxinfo <pkg>` for a package that is not
// running ("No process found for: pkg").
type NoProcessError struct {
	Package string
}

func (e *NoProcessError) Error() string {
	return fmt.Sprintf("%s: no process found for %s", Source, excerpt.Quote(e.Package))
}

// Is lets errors.Is(err, ErrNoProcess) match.
func (e *NoProcessError) Is(target error) bool { return target == ErrNoProcess }

// DumpFailedError is a dump where no process answered; Text quotes the
// "Failure while dumping the app: …" line.
type DumpFailedError struct {
	PID     int
	Package string
	Text    string
}

func (e *DumpFailedError) Error() string {
	return fmt.Sprintf("%s: pid %d [%s]: %s", Source, e.PID, e.Package, excerpt.Quote(e.Text))
}

// Is lets errors.Is(err, ErrDumpFailed) match.
func (e *DumpFailedError) Is(target error) bool { return target == ErrDumpFailed }

// Info is one `dumpsys gfxinfo [pkg] [framestats]` output.
type Info struct {
	// UptimeMillis and RealtimeMillis come from the "Uptime: N Realtime: M"
	// header: the device clocks in ms when the dump was taken (0 if absent).
	UptimeMillis   int64
	RealtimeMillis int64
	// Processes in output order; a dump of every process lists many. Text
	// pasted without a "** Graphics info" line gets one process with PID 0.
	Processes []*Process
}

// Process is one "** Graphics info for pid N [pkg] **" section.
type Process struct {
	PID     int
	Package string
	// Summary holds the process-wide statistics printed before the windows.
	Summary Summary
	Windows []*Window
	// Failure quotes "Failure while dumping the app: …" when the process
	// did not answer.
	Failure string
}

// Window is one window (ViewRootImpl) of a process.
type Window struct {
	// Name is the window line without its "(visibility=N)" suffix, e.g.
	// "com.pkg/com.pkg.MainActivity/android.view.ViewRootImpl@73f2e63".
	// Empty when the capture does not name the window.
	Name string
	// Visibility is the N of "(visibility=N)" (0 visible, 4 invisible,
	// 8 gone), -1 when not printed.
	Visibility int
	// Title is the "Window: …" line's value (Android 12+), else "".
	Title string
	// Summary holds the per-window statistics (Android 12+ and some 6.0 builds).
	Summary Summary
	// Profile is the legacy Draw/Prepare/Process/Execute table, nil if absent.
	Profile *ProfileTable
	// Frames is the PROFILEDATA block (framestats), nil if absent.
	Frames *FrameTable
}

// Label returns Name, else Title: how reports refer to the window.
func (w *Window) Label() string {
	if w.Name != "" {
		return w.Name
	}
	return w.Title
}

// Windows lists every window of every process, in output order.
func (g *Info) Windows() []*Window {
	var out []*Window
	for _, p := range g.Processes {
		out = append(out, p.Windows...)
	}
	return out
}

// FrameTable is one PROFILEDATA block: its header and every row, every
// column kept as int64. Columns are found by name, never by index.
type FrameTable struct {
	// Columns are the header's names in data order. When LabelSwapped is set
	// the names FrameInterval and FrameStartTime have been exchanged so that
	// each names the data under it.
	Columns []string
	// Values holds the rows one after another, len(Columns) values each.
	Values []int64
	// LabelSwapped reports the API 31–34 header that prints
	// "FrameInterval,FrameStartTime" above a timestamp and a vsync period; it
	// is detected by magnitude.
	LabelSwapped bool
	// Complete is false when the capture ended before the closing marker.
	Complete bool
	// PartialRowDropped reports a last row cut short by a truncated capture.
	PartialRowDropped bool
	// Line is the 1-based line of the header in the input.
	Line int

	idx gfxColumns
}

// gfxColumns holds the index of each named column, -1 when absent.
type gfxColumns struct {
	flags, intended, vsync, deadline, interval, start, completed, gpu, present int
	// The stage columns frame phases are made of (see frames.PhasesOf).
	input, animation, traversals, draw, syncQueued, syncStart, issue, swap int
}

// FrameStats is one PROFILEDATA row with the columns the frame math uses;
// a column the header lacks reads 0. Times are device monotonic ns. The JSON
// names are those of a frame in a Result (see Frame); the columns no metric
// reads are not kept there.
type FrameStats struct {
	Flags          int64 `json:"-"`
	IntendedVsync  int64 `json:"intended_vsync_ns,omitempty"`
	Vsync          int64 `json:"vsync_ns,omitempty"`
	FrameDeadline  int64 `json:"frame_deadline_ns,omitempty"` // API 31+; INT64_MAX when the frame had no vsync id
	FrameInterval  int64 `json:"-"`                           // the vsync period (ns), after undoing the label swap
	FrameStartTime int64 `json:"-"`                           // a timestamp, after undoing the label swap
	FrameCompleted int64 `json:"frame_completed_ns,omitempty"`
	GpuCompleted   int64 `json:"-"`
	// DisplayPresentTime is -2 or 0 when not available.
	DisplayPresentTime int64 `json:"-"`
	// The stage timestamps between IntendedVsync and FrameCompleted that
	// frame phases are made of (frames.PhasesOf); every framestats header
	// since API 23 has them.
	HandleInputStart       int64 `json:"-"`
	AnimationStart         int64 `json:"-"`
	PerformTraversalsStart int64 `json:"-"`
	DrawStart              int64 `json:"-"`
	SyncQueued             int64 `json:"-"`
	SyncStart              int64 `json:"-"`
	IssueDrawCommandsStart int64 `json:"-"`
	SwapBuffers            int64 `json:"-"`
}

// Duration is the design's gfxinfo frame duration: FrameCompleted −
// IntendedVsync.
func (f FrameStats) Duration() int64 { return f.FrameCompleted - f.IntendedVsync }

// Len is the number of rows.
func (t *FrameTable) Len() int {
	if len(t.Columns) == 0 {
		return 0
	}
	return len(t.Values) / len(t.Columns)
}

// Row returns row i's values in column order (a view into Values).
func (t *FrameTable) Row(i int) []int64 {
	n := len(t.Columns)
	return t.Values[i*n : (i+1)*n : (i+1)*n]
}

// Column returns the index of the named column, -1 if the header lacks it.
func (t *FrameTable) Column(name string) int {
	return slices.Index(t.Columns, name)
}

// Frame returns row i as a FrameStats.
func (t *FrameTable) Frame(i int) FrameStats {
	r := t.Row(i)
	get := func(j int) int64 {
		if j < 0 {
			return 0
		}
		return r[j]
	}
	return FrameStats{
		Flags:              get(t.idx.flags),
		IntendedVsync:      get(t.idx.intended),
		Vsync:              get(t.idx.vsync),
		FrameDeadline:      get(t.idx.deadline),
		FrameInterval:      get(t.idx.interval),
		FrameStartTime:     get(t.idx.start),
		FrameCompleted:     get(t.idx.completed),
		GpuCompleted:       get(t.idx.gpu),
		DisplayPresentTime: get(t.idx.present),

		HandleInputStart:       get(t.idx.input),
		AnimationStart:         get(t.idx.animation),
		PerformTraversalsStart: get(t.idx.traversals),
		DrawStart:              get(t.idx.draw),
		SyncQueued:             get(t.idx.syncQueued),
		SyncStart:              get(t.idx.syncStart),
		IssueDrawCommandsStart: get(t.idx.issue),
		SwapBuffers:            get(t.idx.swap),
	}
}

// Frames returns every row as a FrameStats, flagged rows included.
func (t *FrameTable) Frames() []FrameStats {
	out := make([]FrameStats, t.Len())
	for i := range out {
		out[i] = t.Frame(i)
	}
	return out
}

// RefreshPeriod returns the vsync period (ns) from the FrameInterval column
// (after undoing the label swap): the median of its plausible values, 0 when
// the column is absent or holds none.
func (t *FrameTable) RefreshPeriod() int64 {
	if t.idx.interval < 0 {
		return 0
	}
	var v []int64
	for i := 0; i < t.Len(); i++ {
		p := t.Row(i)[t.idx.interval]
		if gfxPeriodLike(p) {
			v = append(v, p)
		}
	}
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	return v[len(v)/2]
}

// gfxPeriodLike: a vsync period is between 1 ms (1000 Hz) and 1 s, while a
// monotonic timestamp of a device that has been up for a second is larger.
func gfxPeriodLike(v int64) bool { return v >= 1_000_000 && v <= 1_000_000_000 }

// Summary holds the statistics lines of a process or window. Counts
// and percentiles the output did not print are -1.
type Summary struct {
	StatsSinceNanos    int64
	TotalFrames        int64
	JankyFrames        int64
	JankyPercent       float64
	JankyFramesLegacy  int64 // "Janky frames (legacy)", Android 12+
	JankyLegacyPercent float64
	// Percentiles of frame time in ms ("50th percentile: 11ms").
	P50, P90, P95, P99    int64
	MissedVsync           int64
	HighInputLatency      int64
	SlowUIThread          int64
	SlowBitmapUploads     int64
	SlowIssueDrawCommands int64 // also "Number Slow draw" on one 6.0 build
	FrameDeadlineMissed   int64 // "Number Frame deadline missed", API 28+
	// FrameDeadlineMissedLegacy is "Number Frame deadline missed (legacy)".
	FrameDeadlineMissedLegacy int64
	Histogram                 []HistogramBucket
	// GPU percentiles (ms) and histogram, Android 12+.
	GPUP50, GPUP90, GPUP95, GPUP99 int64
	GPUHistogram                   []HistogramBucket
}

// HistogramBucket is one "Nms=C" entry of a frame-time histogram.
type HistogramBucket struct {
	Millis int64
	Count  int64
}

func newGfxInfoSummary() Summary {
	return Summary{
		StatsSinceNanos: -1, TotalFrames: -1, JankyFrames: -1, JankyPercent: -1,
		JankyFramesLegacy: -1, JankyLegacyPercent: -1,
		P50: -1, P90: -1, P95: -1, P99: -1,
		MissedVsync: -1, HighInputLatency: -1, SlowUIThread: -1, SlowBitmapUploads: -1,
		SlowIssueDrawCommands: -1, FrameDeadlineMissed: -1, FrameDeadlineMissedLegacy: -1,
		GPUP50: -1, GPUP90: -1, GPUP95: -1, GPUP99: -1,
	}
}

// IsZero reports a summary with no statistics line.
func (s *Summary) IsZero() bool {
	return s.TotalFrames < 0 && s.JankyFrames < 0 && s.StatsSinceNanos < 0 && s.P90 < 0 && len(s.Histogram) == 0
}

// ProfileTable is the legacy "Profile data in ms" table printed when
// Profile GPU Rendering is set to "In adb shell dumpsys gfxinfo": one row per
// recent frame, values in ms (hwui clamps them at 50.00).
type ProfileTable struct {
	// Columns is "Draw Process Execute" (up to API 20) or
	// "Draw Prepare Process Execute" (API 21+).
	Columns []string
	Rows    [][]float64
}

// Totals returns each row's sum: the frame's metrics.CPU+GPU submission time in ms.
func (t *ProfileTable) Totals() []float64 {
	out := make([]float64, len(t.Rows))
	for i, r := range t.Rows {
		for _, v := range r {
			out[i] += v
		}
	}
	return out
}

// Parse parses `dumpsys gfxinfo [<pkg>] [framestats]` of any API level:
// the header clocks, every process section, each window's statistics,
// legacy Draw/Process/Execute table and PROFILEDATA block. Text may be
// UTF-16/BOM/CRLF as saved. It returns a *NoProcessError or a
// *DumpFailedError for the error outputs and a *devtext.ParseError quoting
// the line for malformed statistics or frame rows.
func Parse(b []byte) (*Info, error) {
	text := devtext.Normalize(b)
	if err := gfxRefused(text); err != nil {
		return nil, err
	}
	p := gfxParser{g: &Info{}}
	if err := p.run(text); err != nil {
		return nil, err
	}
	return p.result()
}

// result is the parsed dump, or the error of a dump that failed in every
// process.
func (p *gfxParser) result() (*Info, error) {
	g := p.g
	var failed *Process
	for _, pr := range g.Processes {
		if pr.Failure == "" {
			return g, nil
		}
		if failed == nil {
			failed = pr
		}
	}
	if failed != nil {
		return nil, &DumpFailedError{PID: failed.PID, Package: failed.Package, Text: failed.Failure}
	}
	return g, nil
}

// gfxRefused is an error when dumpsys answered for the service instead of
// it: a shell without the DUMP permission ("Permission Denial: can't dump
// gfxinfo from from pid=…") or a build without the service ("Can't find
// service: gfxinfo"). Such output holds no frames, and no frames is not 0.
func gfxRefused(text []byte) error {
	for lineNo := 1; len(text) > 0; lineNo++ {
		ln := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			ln, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		ln = bytes.TrimSpace(ln)
		if len(ln) == 0 {
			continue
		}
		if !bytes.HasPrefix(ln, []byte("Permission Denial")) && !bytes.HasPrefix(ln, []byte("Can't find service")) {
			return nil
		}
		s := string(ln)
		if len(s) > 200 {
			s = s[:200] + "…"
		}
		return &devtext.ParseError{Source: Source, Line: lineNo, Text: s, Reason: "dumpsys did not dump gfxinfo"}
	}
	return nil
}

type gfxParser struct {
	g         *Info
	proc      *Process
	win       *Window
	inProfile bool // after "Profile data in ms:"
	inViews   bool // after "View hierarchy:"

	table      *FrameTable // open PROFILEDATA block
	wantHeader bool
	shortRow   *devtext.ParseError // a short row, fatal unless it is the last line

	legacy *ProfileTable
	// sections counts the processes and windows made (gfxMaxSections).
	sections int

	// rowFn, when set, takes each PROFILEDATA row (Scan) instead of
	// the table, in scratch, which the next row reuses.
	rowFn   func(t *FrameTable, row []int64)
	scratch []int64
	// rowsFn, when set, takes whole lines of rows of table t at once, from
	// the start of text, and returns the bytes and lines it took
	// (Scan's reading on several cores).
	rowsFn func(t *FrameTable, text []byte) (n, lines int)
	// rowRunMin is the least text of whole rows rowsFn is given.
	rowRunMin int

	hist      *[]HistogramBucket // histogram being read (it may wrap)
	histText  []byte
	histLine  int
	histFirst []byte
}

// inRows reports that the next line is read as a row of the open table,
// or ends it.
func (p *gfxParser) inRows() bool {
	return p.table != nil && !p.wantHeader && p.shortRow == nil && p.hist == nil && p.legacy == nil
}

func (p *gfxParser) process() *Process {
	if p.proc == nil {
		p.sections++
		p.proc = &Process{Summary: newGfxInfoSummary()}
		p.g.Processes = append(p.g.Processes, p.proc)
	}
	return p.proc
}

func (p *gfxParser) newWindow() *Window {
	pr := p.process()
	p.sections++
	p.win = &Window{Visibility: -1, Summary: newGfxInfoSummary()}
	pr.Windows = append(pr.Windows, p.win)
	return p.win
}

func (p *gfxParser) window() *Window {
	if p.win == nil {
		return p.newWindow()
	}
	return p.win
}

func (p *gfxParser) summary() *Summary {
	if p.win != nil {
		return &p.win.Summary
	}
	return &p.process().Summary
}

var gfxMarker = []byte("---PROFILEDATA---")

func (p *gfxParser) run(text []byte) error {
	lineNo := 0
	for len(text) > 0 {
		var raw []byte
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			raw, text = text[:i], text[i+1:]
		} else {
			raw, text = text, nil
		}
		lineNo++
		if len(raw) > devtext.MaxLine {
			return devtext.LineTooLong(Source, lineNo, raw)
		}
		if err := p.line(raw, lineNo); err != nil {
			return err
		}
	}
	return p.end()
}

// end closes what the last line left open.
func (p *gfxParser) end() error {
	if p.hist != nil {
		if err := p.endHistogram(true); err != nil {
			return err
		}
	}
	if p.table != nil {
		p.table.PartialRowDropped = p.shortRow != nil
		p.endTable()
	}
	return nil
}

func (p *gfxParser) line(raw []byte, lineNo int) error {
	ln := bytes.TrimSpace(raw)
	if len(ln) == 0 {
		if p.hist != nil { // a wrapped histogram never spans a blank line
			return p.endHistogram(false)
		}
		return nil
	}
	if p.shortRow != nil {
		return p.shortRow
	}
	if p.hist != nil {
		if gfxHistogramContinuation(raw) {
			if len(p.histText)+len(raw) > devtext.MaxLine {
				// A console wraps a histogram of a few KB; this one
				// would be held whole.
				return devtext.LineTooLong(Source, p.histLine, p.histFirst)
			}
			p.histText = append(p.histText, raw...)
			return nil
		}
		if err := p.endHistogram(false); err != nil {
			return err
		}
	}
	if p.table != nil {
		return p.tableLine(ln, lineNo)
	}
	if bytes.Equal(ln, gfxMarker) {
		w := p.window()
		if w.Frames != nil {
			w = p.newWindow()
		}
		p.table = &FrameTable{Line: lineNo, idx: gfxColumns{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}}
		w.Frames = p.table
		p.wantHeader = true
		return p.tooManySections(ln, lineNo)
	}
	if p.legacy != nil {
		if row, ok := gfxProfileRow(ln, len(p.legacy.Columns)); ok {
			if p.rowFn == nil {
				p.legacy.Rows = append(p.legacy.Rows, row)
			}
			return nil
		}
		p.legacy = nil
	}
	if err := p.textLine(ln, lineNo); err != nil {
		return err
	}
	return p.tooManySections(ln, lineNo)
}

// tooManySections is an error once the dump has more processes and
// windows than gfxMaxSections.
func (p *gfxParser) tooManySections(ln []byte, lineNo int) error {
	if p.sections <= gfxMaxSections {
		return nil
	}
	return &devtext.ParseError{Source: Source, Line: lineNo, Text: string(ln),
		Reason: fmt.Sprintf("more than %d processes and windows, far more than any real dump", gfxMaxSections)}
}

// gfxMaxSections bounds the processes and windows of one dump, each of
// which the parser keeps: a dump of every process of a phone has some 50
// processes (the anavmode capture: 47) and a few windows each, while a
// text repeating "** Graphics info for pid" lines would grow without end.
const gfxMaxSections = 1 << 16

func (p *gfxParser) textLine(ln []byte, lineNo int) error {
	if !gfxMaybeInteresting(ln, p.inProfile) {
		return nil
	}
	if i := bytes.IndexByte(ln, ':'); i >= 0 && gfxSummaryKeys[string(ln[:i])] != 0 {
		if p.inViews {
			return nil
		}
		return p.summaryLine(ln, lineNo)
	}
	s := string(ln)
	switch {
	case strings.HasPrefix(s, "** Graphics info for pid"):
		p.sections++
		p.proc = &Process{Summary: newGfxInfoSummary()}
		p.g.Processes = append(p.g.Processes, p.proc)
		p.win, p.inProfile, p.inViews = nil, false, false
		rest := strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(s, "** Graphics info for pid")), "**")
		pidText, pkg, _ := strings.Cut(strings.TrimSpace(rest), " ")
		pid, err := strconv.Atoi(pidText)
		if err != nil {
			return &devtext.ParseError{Source: Source, Line: lineNo, Text: s, Reason: "bad pid"}
		}
		p.proc.PID = pid
		p.proc.Package = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(pkg), "["), "]")
		return nil
	case strings.HasPrefix(s, "No process found for:"):
		return &NoProcessError{Package: strings.TrimSpace(strings.TrimPrefix(s, "No process found for:"))}
	case strings.HasPrefix(s, "Failure while dumping the app"):
		p.process().Failure = s
		return nil
	case strings.HasPrefix(s, "Uptime:"):
		f := strings.Fields(s)
		if len(f) == 4 && f[2] == "Realtime:" {
			up, err1 := strconv.ParseInt(f[1], 10, 64)
			rt, err2 := strconv.ParseInt(f[3], 10, 64)
			if err1 == nil && err2 == nil {
				p.g.UptimeMillis, p.g.RealtimeMillis = up, rt
				return nil
			}
		}
		return &devtext.ParseError{Source: Source, Line: lineNo, Text: s, Reason: "bad Uptime/Realtime header"}
	case s == "Profile data in ms:":
		p.inProfile, p.inViews, p.win = true, false, nil
		return nil
	case s == "View hierarchy:":
		p.inViews = true
		return nil
	}
	if p.inViews {
		return nil
	}
	if p.inProfile && strings.Contains(s, "ViewRootImpl@") {
		w := p.newWindow()
		name := s
		if i := strings.LastIndex(s, " (visibility="); i >= 0 && strings.HasSuffix(s, ")") {
			if v, err := strconv.Atoi(s[i+len(" (visibility=") : len(s)-1]); err == nil {
				w.Visibility = v
				name = s[:i]
			}
		}
		w.Name = name
		return nil
	}
	if t, ok := strings.CutPrefix(s, "Window:"); ok && p.inProfile {
		w := p.window()
		if w.Title != "" || w.Frames != nil {
			w = p.newWindow()
		}
		w.Title = strings.TrimSpace(t)
		return nil
	}
	if cols := strings.Fields(s); gfxIsProfileHeader(cols) {
		p.legacy = &ProfileTable{Columns: cols}
		p.window().Profile = p.legacy
	}
	return nil
}

func gfxIsProfileHeader(f []string) bool {
	return slices.Equal(f, []string{"Draw", "Prepare", "Process", "Execute"}) ||
		slices.Equal(f, []string{"Draw", "Process", "Execute"})
}

func gfxProfileRow(ln []byte, n int) ([]float64, bool) {
	f := strings.Fields(string(ln))
	if len(f) != n {
		return nil, false
	}
	row := make([]float64, n)
	for i, s := range f {
		if strings.Count(s, ",") == 1 && !strings.Contains(s, ".") {
			s = strings.Replace(s, ",", ".", 1) // a decimal-comma locale
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v < 0 {
			return nil, false
		}
		row[i] = v
	}
	return row, true
}

// summaryLine reads one "Key: value" statistics line; lines it does not know
// (memory and cache reports) are skipped. It works on bytes: a dump has
// dozens of these lines and none of them needs a string.
func (p *gfxParser) summaryLine(ln []byte, lineNo int) error {
	i := bytes.IndexByte(ln, ':')
	if i < 0 {
		return nil
	}
	key, ok := gfxSummaryKeys[string(ln[:i])]
	if !ok {
		return nil
	}
	val := bytes.TrimSpace(ln[i+1:])
	sm := p.summary()
	reason := ""
	switch key {
	case gfxKeyJanky:
		reason = gfxJanky(val, &sm.JankyFrames, &sm.JankyPercent)
	case gfxKeyJankyLegacy:
		reason = gfxJanky(val, &sm.JankyFramesLegacy, &sm.JankyLegacyPercent)
	case gfxKeyHistogram, gfxKeyGPUHistogram:
		p.startHistogram(sm, key, ln, i, lineNo)
	default:
		f := gfxIntFields[key]
		reason = gfxUnit(val, f.field(sm), f.suffix, f.reason)
	}
	if reason != "" {
		return &devtext.ParseError{Source: Source, Line: lineNo, Text: string(ln), Reason: reason}
	}
	return nil
}

// gfxIntFields are the summary lines that hold one integer, by key: the
// field it goes in, the unit after it and why a value is bad.
var gfxIntFields = [...]struct {
	field          func(*Summary) *int64
	suffix, reason string
}{
	gfxKeyStatsSince:     {func(s *Summary) *int64 { return &s.StatsSinceNanos }, "ns", "Stats since is not N ns"},
	gfxKeyTotal:          {func(s *Summary) *int64 { return &s.TotalFrames }, "", gfxBadCount},
	gfxKeyP50:            {func(s *Summary) *int64 { return &s.P50 }, "ms", gfxBadMillis},
	gfxKeyP90:            {func(s *Summary) *int64 { return &s.P90 }, "ms", gfxBadMillis},
	gfxKeyP95:            {func(s *Summary) *int64 { return &s.P95 }, "ms", gfxBadMillis},
	gfxKeyP99:            {func(s *Summary) *int64 { return &s.P99 }, "ms", gfxBadMillis},
	gfxKeyGPUP50:         {func(s *Summary) *int64 { return &s.GPUP50 }, "ms", gfxBadMillis},
	gfxKeyGPUP90:         {func(s *Summary) *int64 { return &s.GPUP90 }, "ms", gfxBadMillis},
	gfxKeyGPUP95:         {func(s *Summary) *int64 { return &s.GPUP95 }, "ms", gfxBadMillis},
	gfxKeyGPUP99:         {func(s *Summary) *int64 { return &s.GPUP99 }, "ms", gfxBadMillis},
	gfxKeyMissedVsync:    {func(s *Summary) *int64 { return &s.MissedVsync }, "", gfxBadCount},
	gfxKeyHighInput:      {func(s *Summary) *int64 { return &s.HighInputLatency }, "", gfxBadCount},
	gfxKeySlowUI:         {func(s *Summary) *int64 { return &s.SlowUIThread }, "", gfxBadCount},
	gfxKeySlowBitmap:     {func(s *Summary) *int64 { return &s.SlowBitmapUploads }, "", gfxBadCount},
	gfxKeySlowDraw:       {func(s *Summary) *int64 { return &s.SlowIssueDrawCommands }, "", gfxBadCount},
	gfxKeyDeadline:       {func(s *Summary) *int64 { return &s.FrameDeadlineMissed }, "", gfxBadCount},
	gfxKeyDeadlineLegacy: {func(s *Summary) *int64 { return &s.FrameDeadlineMissedLegacy }, "", gfxBadCount},
}

const (
	gfxBadCount  = "count is not a number"
	gfxBadMillis = "percentile is not N ms"
)

// gfxUnit sets *dst to val, a non-negative integer followed by suffix, or
// returns reason.
func gfxUnit(val []byte, dst *int64, suffix, reason string) string {
	num, ok := bytes.CutSuffix(val, []byte(suffix))
	v, good := devtext.ParseInt(num)
	if !ok || !good || v < 0 {
		return reason
	}
	*dst = v
	return ""
}

// gfxJanky reads "N (P%)", the percentage optional, into *n and *pct, or
// returns why it cannot.
func gfxJanky(val []byte, n *int64, pct *float64) string {
	c, rest, _ := bytes.Cut(val, []byte(" "))
	v, good := devtext.ParseInt(c)
	if !good || v < 0 {
		return "janky count is not a number"
	}
	*n = v
	if rest = bytes.TrimSpace(rest); len(rest) > 0 {
		ps, ok1 := bytes.CutPrefix(rest, []byte("("))
		ps, ok2 := bytes.CutSuffix(ps, []byte("%)"))
		f, err := strconv.ParseFloat(string(ps), 64)
		if !ok1 || !ok2 || err != nil {
			return "janky percentage is not (N%)"
		}
		*pct = f
	}
	return ""
}

// startHistogram starts reading the HISTOGRAM or GPU HISTOGRAM line ln,
// its colon at i, into sm: its buckets may continue on the next lines.
func (p *gfxParser) startHistogram(sm *Summary, key int, ln []byte, i, lineNo int) {
	if key == gfxKeyHistogram {
		sm.Histogram = make([]HistogramBucket, 0, 160)
		p.hist = &sm.Histogram
	} else {
		sm.GPUHistogram = make([]HistogramBucket, 0, 32)
		p.hist = &sm.GPUHistogram
	}
	// Keep the text after "HISTOGRAM:" untrimmed: a console that
	// hard-wraps long lines splits tokens, and the pieces concatenate.
	p.histText = append(p.histText[:0], ln[i+1:]...)
	// A copy: a streamed line's bytes are reused for the next one.
	p.histLine, p.histFirst = lineNo, bytes.Clone(ln)
}

// gfxMaybeInteresting filters out, without allocating, the many lines the
// parser skips (memory and cache reports, view hierarchies).
func gfxMaybeInteresting(ln []byte, inProfile bool) bool {
	if i := bytes.IndexByte(ln, ':'); i >= 0 && gfxSummaryKeys[string(ln[:i])] != 0 {
		return true
	}
	for _, prefix := range gfxLinePrefixes {
		if bytes.HasPrefix(ln, prefix) {
			return true
		}
	}
	return inProfile && (bytes.Contains(ln, []byte("ViewRootImpl@")) || bytes.HasPrefix(ln, []byte("Window:")))
}

var gfxLinePrefixes = [][]byte{
	[]byte("** Graphics info for pid"), []byte("No process found for:"), []byte("Failure while dumping the app"),
	[]byte("Uptime:"), []byte("Profile data in ms:"), []byte("View hierarchy:"), []byte("Draw"),
}

const (
	gfxKeyStatsSince = iota + 1
	gfxKeyTotal
	gfxKeyJanky
	gfxKeyJankyLegacy
	gfxKeyP50
	gfxKeyP90
	gfxKeyP95
	gfxKeyP99
	gfxKeyGPUP50
	gfxKeyGPUP90
	gfxKeyGPUP95
	gfxKeyGPUP99
	gfxKeyMissedVsync
	gfxKeyHighInput
	gfxKeySlowUI
	gfxKeySlowBitmap
	gfxKeySlowDraw
	gfxKeyDeadline
	gfxKeyDeadlineLegacy
	gfxKeyHistogram
	gfxKeyGPUHistogram
)

var gfxSummaryKeys = map[string]int{
	"Stats since": gfxKeyStatsSince, "Total frames rendered": gfxKeyTotal,
	"Janky frames": gfxKeyJanky, "Janky frames (legacy)": gfxKeyJankyLegacy,
	"50th percentile": gfxKeyP50, "90th percentile": gfxKeyP90, "95th percentile": gfxKeyP95, "99th percentile": gfxKeyP99,
	"50th gpu percentile": gfxKeyGPUP50, "90th gpu percentile": gfxKeyGPUP90,
	"95th gpu percentile": gfxKeyGPUP95, "99th gpu percentile": gfxKeyGPUP99,
	"Number Missed Vsync": gfxKeyMissedVsync, "Number High input latency": gfxKeyHighInput,
	"Number Slow UI thread": gfxKeySlowUI, "Number Slow bitmap uploads": gfxKeySlowBitmap,
	// One 6.0 build prints "Slow draw" for the same counter.
	"Number Slow issue draw commands": gfxKeySlowDraw, "Number Slow draw": gfxKeySlowDraw,
	"Number Frame deadline missed": gfxKeyDeadline, "Number Frame deadline missed (legacy)": gfxKeyDeadlineLegacy,
	"HISTOGRAM": gfxKeyHistogram, "GPU HISTOGRAM": gfxKeyGPUHistogram,
}

// gfxHistogramContinuation reports a line that can only be the rest of a
// hard-wrapped HISTOGRAM line: nothing but digits, "ms", '=' and spaces.
func gfxHistogramContinuation(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	for _, c := range raw {
		switch {
		case c >= '0' && c <= '9', c == 'm', c == 's', c == '=', c == ' ':
		default:
			return false
		}
	}
	return bytes.Contains(raw, []byte("=")) || bytes.Contains(raw, []byte("ms"))
}

// endHistogram parses the collected histogram text. At the end of the input
// a last token cut short ("113ms=") is dropped: the capture was truncated.
func (p *gfxParser) endHistogram(atEOF bool) error {
	dst := p.hist
	p.hist = nil
	rest := p.histText
	for len(rest) > 0 {
		rest = bytes.TrimLeft(rest, " \t")
		if len(rest) == 0 {
			break
		}
		tok := rest
		if i := bytes.IndexAny(rest, " \t"); i >= 0 {
			tok, rest = rest[:i], rest[i:]
		} else {
			rest = nil
		}
		var m, c int64
		i := bytes.Index(tok, []byte("ms="))
		ok := i > 0
		if ok {
			var ok1, ok2 bool
			m, ok1 = devtext.ParseInt(tok[:i])
			c, ok2 = devtext.ParseInt(tok[i+3:])
			ok = ok1 && ok2 && m >= 0 && c >= 0
		}
		if !ok {
			if atEOF && len(bytes.TrimSpace(rest)) == 0 {
				break // the capture was cut inside its last entry
			}
			return &devtext.ParseError{Source: Source, Line: p.histLine, Text: string(p.histFirst), Reason: fmt.Sprintf("bad histogram entry %s", excerpt.Bytes(tok))}
		}
		*dst = append(*dst, HistogramBucket{Millis: m, Count: c})
	}
	return nil
}

func (p *gfxParser) tableLine(ln []byte, lineNo int) error {
	t := p.table
	if bytes.Equal(ln, gfxMarker) {
		t.Complete = true
		p.endTable()
		return nil
	}
	if p.wantHeader {
		p.wantHeader = false
		return p.header(t, string(ln), lineNo)
	}
	n := len(t.Columns)
	if p.rowFn != nil {
		if row, ok := gfxFastRow(ln, p.scratch[:0], n); ok {
			p.scratch = row
			p.rowFn(t, row)
			return nil
		}
	}
	start := len(t.Values)
	vals, fields, ok := gfxRow(ln, t.Values, n)
	if !ok {
		t.Values = t.Values[:start]
		reason := "frame row field is not an integer"
		if fields >= n {
			reason = fmt.Sprintf("frame row has more than the header's %d fields", n)
		}
		return &devtext.ParseError{Source: Source, Line: lineNo, Text: string(ln), Reason: reason}
	}
	t.Values = vals
	if fields < n {
		t.Values = t.Values[:start]
		p.shortRow = &devtext.ParseError{Source: Source, Line: lineNo, Text: string(ln),
			Reason: fmt.Sprintf("frame row has %d fields, the header %d", fields, n)}
		return nil
	}
	if p.rowFn != nil {
		p.scratch = append(p.scratch[:0], t.Values[start:]...)
		t.Values = t.Values[:start]
		p.rowFn(t, p.scratch)
	}
	return nil
}

// gfxRow parses ln, a row with its spaces trimmed, as the general path
// reads it: comma-separated integers, spaces around each allowed, a
// trailing comma too. It appends the values to dst and returns them and
// the fields read; ok is false, with the fields read before, when a field
// is not an integer or there are more than n. Fewer than n is ok.
func gfxRow(ln []byte, dst []int64, n int) ([]int64, int, bool) {
	start := len(dst)
	fields := 0
	row := bytes.TrimSuffix(ln, []byte(","))
	for len(row) > 0 || fields == 0 {
		var fld []byte
		if i := bytes.IndexByte(row, ','); i >= 0 {
			fld, row = row[:i], row[i+1:]
		} else {
			fld, row = row, nil
		}
		v, ok := devtext.ParseInt(bytes.TrimSpace(fld))
		if !ok || fields >= n {
			return dst[:start], fields, false
		}
		dst = append(dst, v)
		fields++
	}
	return dst, fields, true
}

// gfxFastRow parses a row of n plain integers ("1,-2,3," without spaces
// or values of more than 19 digits or above INT64_MAX) into dst in one pass; anything else is
// left to the general path, which knows the errors.
func gfxFastRow(ln []byte, dst []int64, n int) ([]int64, bool) {
	var v uint64
	digits := 0
	neg := false
	for _, c := range ln {
		if d := c - '0'; d <= 9 {
			v = v*10 + uint64(d)
			digits++
			continue
		}
		if c != ',' {
			if c == '-' && digits == 0 && !neg {
				neg = true
				continue
			}
			return dst, false
		}
		if digits == 0 || digits > 19 || digits == 19 && v > math.MaxInt64 || len(dst) == n {
			return dst, false
		}
		x := int64(v)
		if neg {
			x = -x
		}
		dst = append(dst, x)
		v, digits, neg = 0, 0, false
	}
	if digits > 0 || neg {
		if digits == 0 || digits > 19 || digits == 19 && v > math.MaxInt64 || len(dst) == n {
			return dst, false
		}
		x := int64(v)
		if neg {
			x = -x
		}
		dst = append(dst, x)
	}
	return dst, len(dst) == n
}

func (p *gfxParser) header(t *FrameTable, s string, lineNo int) error {
	cols := strings.Split(strings.TrimSuffix(s, ","), ",")
	for i := range cols {
		cols[i] = strings.TrimSpace(cols[i])
	}
	t.Columns = cols
	t.Line = lineNo
	t.idx = gfxColumns{
		flags: slices.Index(cols, "Flags"), intended: slices.Index(cols, "IntendedVsync"),
		vsync: slices.Index(cols, "Vsync"), deadline: slices.Index(cols, "FrameDeadline"),
		interval: slices.Index(cols, "FrameInterval"), start: slices.Index(cols, "FrameStartTime"),
		completed: slices.Index(cols, "FrameCompleted"), gpu: slices.Index(cols, "GpuCompleted"),
		present: slices.Index(cols, "DisplayPresentTime"),

		input: slices.Index(cols, "HandleInputStart"), animation: slices.Index(cols, "AnimationStart"),
		traversals: slices.Index(cols, "PerformTraversalsStart"), draw: slices.Index(cols, "DrawStart"),
		syncQueued: slices.Index(cols, "SyncQueued"), syncStart: slices.Index(cols, "SyncStart"),
		issue: slices.Index(cols, "IssueDrawCommandsStart"), swap: slices.Index(cols, "SwapBuffers"),
	}
	if t.idx.flags < 0 || t.idx.intended < 0 || t.idx.completed < 0 {
		return &devtext.ParseError{Source: Source, Line: lineNo, Text: s,
			Reason: "PROFILEDATA header lacks Flags, IntendedVsync or FrameCompleted"}
	}
	// hwui keeps the last 120 frames; 128 rows fit without regrowing.
	t.Values = make([]int64, 0, 128*len(cols))
	return nil
}

func (p *gfxParser) endTable() {
	t := p.table
	p.table, p.wantHeader, p.shortRow = nil, false, nil
	if t.idx.interval < 0 || t.idx.start < 0 {
		return
	}
	// API 31–34 print FrameInterval above a timestamp and FrameStartTime
	// above the vsync period; the data, not the header, is right.
	swapped, plain := 0, 0
	for i := 0; i < t.Len(); i++ {
		r := t.Row(i)
		iv, st := r[t.idx.interval], r[t.idx.start]
		switch {
		case gfxPeriodLike(st) && iv > st:
			swapped++
		case gfxPeriodLike(iv) && st > iv:
			plain++
		}
	}
	if swapped > plain {
		t.LabelSwapped = true
		t.Columns = slices.Clone(t.Columns)
		t.Columns[t.idx.interval], t.Columns[t.idx.start] = t.Columns[t.idx.start], t.Columns[t.idx.interval]
		t.idx.interval, t.idx.start = t.idx.start, t.idx.interval
	}
}

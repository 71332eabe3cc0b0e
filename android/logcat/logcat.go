package logcat

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/android/gfxinfo"
)

// gfxPeriodLike: a vsync period is between 1 ms (1000 Hz) and 1 s, while a
// monotonic timestamp of a device that has been up for a second is larger.
func gfxPeriodLike(v int64) bool { return v >= 1_000_000 && v <= 1_000_000_000 }

// Source names logcat in errors and reports.
const Source = "logcat"

// Entry is one logcat message in any of the formats people save:
// `-v threadtime` (with or without a year), `-v time`, DDMS exports
// ("MM-DD hh:mm:ss.mmm: I/Tag(pid): msg"), `-v brief`, `-v long`, and the
// Android Studio copies ("pid-tid/pkg I/Tag: msg", tag-only "I/Tag: msg").
type Entry struct {
	// Time is zero when the format has none. Formats without a year give
	// year 0; only differences between entries are meaningful then. Both
	// are the device's local time, read as UTC.
	Time time.Time
	// Epoch is set when the line gave its time as seconds (the -v epoch
	// modifier: "1700000000.123"); Time is then that instant in UTC.
	Epoch   bool
	PID     int // -1 when the format has none
	TID     int // -1 when the format has none
	Level   byte
	Tag     string
	Message string
	Line    int // 1-based line where the entry starts
}

// Parse parses a saved logcat. "--------- beginning of …" separators
// and blank lines are skipped; a `-v long` entry's message lines are joined
// with "\n". A line in no known format gives a *devtext.ParseError quoting it.
func Parse(b []byte) ([]Entry, error) {
	text := devtext.Normalize(b)
	var out []Entry
	var long *Entry // open `-v long` entry collecting message lines
	var longLines []string
	flush := func() {
		long.Message = strings.Join(longLines, "\n")
		out = append(out, *long)
		long, longLines = nil, longLines[:0]
	}
	lineNo := 0
	for len(text) > 0 {
		var raw []byte
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			raw, text = text[:i], text[i+1:]
		} else {
			raw, text = text, nil
		}
		lineNo++
		s := strings.TrimRight(string(raw), " \t")
		if long != nil {
			if s == "" {
				flush()
				continue
			}
			// A line that is itself a timed logcat line starts a new entry:
			// pastes drop the blank line that ends a -v long entry.
			if e, ok := ParseLine(s); !logcatIsLongHeader(s) && (!ok || e.Time.IsZero()) {
				longLines = append(longLines, s)
				continue
			}
			flush()
		}
		if strings.TrimSpace(s) == "" || strings.HasPrefix(s, "--------- beginning of") {
			continue
		}
		if logcatIsLongHeader(s) {
			e, ok := logcatLongHeader(s)
			if !ok {
				return out, &devtext.ParseError{Source: Source, Line: lineNo, Text: s, Reason: "bad -v long header"}
			}
			e.Line = lineNo
			long = &e
			continue
		}
		e, ok := ParseLine(s)
		if !ok {
			return out, &devtext.ParseError{Source: Source, Line: lineNo, Text: s, Reason: "not a logcat line in a known format"}
		}
		e.Line = lineNo
		out = append(out, e)
	}
	if long != nil {
		flush()
	}
	return out, nil
}

func logcatIsLongHeader(s string) bool {
	return strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") && strings.Count(s, "/") >= 1
}

// logcatLongHeader parses "[ 05-18 00:42:29.500 10387:10387 I/Choreographer ]"
// (the brackets may hug the text).
func logcatLongHeader(s string) (Entry, bool) {
	f := strings.Fields(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"))
	if len(f) < 4 {
		return Entry{}, false
	}
	e := Entry{PID: -1, TID: -1}
	t, ok := logcatTime(f[0], f[1])
	if !ok {
		return e, false
	}
	e.Time = t
	// "pid:tid" may be padded ("[ … 1234: 567 I/Tag ]"): ids run up to the
	// level/tag field.
	k := 3
	for k < len(f) && !logcatStartsLevelTag(f[k]) {
		k++
	}
	if k >= len(f) {
		return e, false
	}
	pid, tid, ok := strings.Cut(strings.Join(f[2:k], ""), ":")
	if e.PID, ok = logcatInt(strings.TrimSpace(pid), ok); !ok {
		return e, false
	}
	if e.TID, ok = logcatInt(strings.TrimSpace(tid), true); !ok {
		return e, false
	}
	lt := strings.Join(f[k:], " ")
	if len(lt) < 3 {
		return e, false
	}
	e.Level, e.Tag = lt[0], strings.TrimSpace(lt[2:])
	return e, true
}

func logcatInt(s string, ok bool) (int, bool) {
	if !ok {
		return -1, false
	}
	v, err := strconv.Atoi(s)
	return v, err == nil && v >= 0
}

func logcatLevel(c byte) bool {
	switch c {
	case 'V', 'D', 'I', 'W', 'E', 'F', 'A', 'S':
		return true
	}
	return false
}

// logcatTime parses "MM-DD" or "YYYY-MM-DD" and "hh:mm:ss.fff" (the
// fraction may have 3, 6 or 9 digits).
func logcatTime(date, clock string) (time.Time, bool) {
	year := 0
	if strings.Count(date, "-") == 2 {
		y, rest, _ := strings.Cut(date, "-")
		v, err := strconv.Atoi(y)
		if err != nil || len(y) != 4 {
			return time.Time{}, false
		}
		year, date = v, rest
	}
	if len(date) != 5 || date[2] != '-' || len(clock) < 8 || clock[2] != ':' || clock[5] != ':' {
		return time.Time{}, false
	}
	num := func(s string) int {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			return -1
		}
		return v
	}
	mo, d := num(date[:2]), num(date[3:])
	h, mi, sec := num(clock[:2]), num(clock[3:5]), num(clock[6:8])
	ns := 0
	if len(clock) > 8 {
		if clock[8] != '.' || len(clock) > 18 || len(clock) == 9 {
			return time.Time{}, false
		}
		frac := clock[9:]
		v := num(frac)
		if v < 0 {
			return time.Time{}, false
		}
		for i := len(frac); i < 9; i++ {
			v *= 10
		}
		ns = v
	}
	if mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 60 {
		return time.Time{}, false
	}
	return time.Date(year, time.Month(mo), d, h, mi, sec, ns, time.UTC), true
}

// logcatEpoch parses the seconds.fraction time of the -v epoch modifier
// (3, 6 or 9 fraction digits).
func logcatEpoch(s string) (time.Time, bool) {
	sec, frac, ok := strings.Cut(s, ".")
	if !ok || len(sec) == 0 || len(sec) > 12 || (len(frac) != 3 && len(frac) != 6 && len(frac) != 9) {
		return time.Time{}, false
	}
	for _, c := range sec + frac {
		if c < '0' || c > '9' {
			return time.Time{}, false
		}
	}
	n, _ := strconv.ParseInt(sec, 10, 64)
	ns, _ := strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
	return time.Unix(n, ns).UTC(), true
}

// ParseLine parses one single-line logcat entry; ok is false when the
// line is in no known format.
func ParseLine(s string) (e Entry, ok bool) {
	e = Entry{PID: -1, TID: -1}
	s = strings.TrimRight(s, " \t")
	f := strings.Fields(s)
	if len(f) >= 2 {
		if t, ok := logcatEpoch(f[0]); ok {
			// -v epoch: "  1700000000.123  1234  5678 I Tag: msg", or
			// "1700000000.123 I/Tag( 1234): msg" with -v time.
			e.Time, e.Epoch = t, true
			rest := strings.TrimSpace(s[strings.Index(s, f[0])+len(f[0]):])
			if logcatStartsLevelTag(rest) {
				return logcatBrief(rest, e)
			}
			return logcatAfterTime(rest, e)
		}
		if t, ok := logcatTime(f[0], strings.TrimSuffix(f[1], ":")); ok {
			e.Time = t
			rest := strings.TrimSpace(s[strings.Index(s, f[1])+len(f[1]):])
			if strings.HasSuffix(f[1], ":") || logcatStartsLevelTag(rest) {
				// -v time / DDMS: "I/Tag( pid): msg"
				return logcatBrief(rest, e)
			}
			return logcatAfterTime(rest, e)
		}
	}
	return logcatBrief(s, e)
}

func logcatStartsLevelTag(s string) bool {
	return len(s) >= 2 && logcatLevel(s[0]) && s[1] == '/'
}

// logcatAfterTime reads threadtime ("pid tid L Tag: msg") or the Android
// Studio copy ("pid-tid/pkg L/Tag: msg").
func logcatAfterTime(rest string, e Entry) (Entry, bool) {
	f := strings.Fields(rest)
	if len(f) >= 3 {
		if pid, err := strconv.Atoi(f[0]); err == nil && len(f[2]) == 1 && logcatLevel(f[2][0]) {
			tid, err := strconv.Atoi(f[1])
			if err != nil {
				return e, false
			}
			e.PID, e.TID, e.Level = pid, tid, f[2][0]
			// The tag may be padded ("art     : msg") and contain spaces.
			after := rest[logcatNthFieldEnd(rest, 3):]
			tag, msg, ok := logcatCutTag(after)
			if !ok {
				return e, false
			}
			e.Tag, e.Message = strings.TrimSpace(tag), msg
			return e, true
		}
	}
	if len(f) >= 2 {
		ids, _, _ := strings.Cut(f[0], "/")
		pid, tid, ok := strings.Cut(ids, "-")
		if ok {
			p, err1 := strconv.Atoi(pid)
			t, err2 := strconv.Atoi(tid)
			if err1 == nil && err2 == nil {
				e2, ok := logcatBrief(strings.TrimSpace(rest[len(f[0])+strings.Index(rest, f[0]):]), e)
				e2.PID, e2.TID = p, t
				return e2, ok
			}
		}
	}
	return e, false
}

// logcatNthFieldEnd returns the offset just after the n-th whitespace field.
func logcatNthFieldEnd(s string, n int) int {
	i := 0
	for k := 0; k < n; k++ {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		for i < len(s) && s[i] != ' ' && s[i] != '\t' {
			i++
		}
	}
	return i
}

// logcatCutTag splits "Tag: msg" at the first ": " (or a trailing ":"), also
// accepting U+FE55 SMALL COLON, which old Android Studio copies used.
func logcatCutTag(s string) (tag, msg string, ok bool) {
	i := strings.Index(s, ": ")
	j := strings.Index(s, "\uFE55")
	switch {
	case j >= 0 && (i < 0 || j < i):
		return s[:j], strings.TrimSpace(s[j+len("\uFE55"):]), true
	case i >= 0:
		return s[:i], s[i+2:], true
	case strings.HasSuffix(s, ":"):
		return s[:len(s)-1], "", true
	}
	return "", "", false
}

// logcatBrief reads "L/Tag( pid): msg", "L/Tag(pid:tid): msg" or "L/Tag: msg".
func logcatBrief(s string, e Entry) (Entry, bool) {
	if !logcatStartsLevelTag(s) {
		return e, false
	}
	e.Level = s[0]
	body := s[2:]
	head, msg, ok := logcatCutTag(body)
	if open := strings.IndexByte(body, '('); open >= 0 && open < len(head) {
		// "Tag( 123: 456): msg": the ids may hold ": ", so cut after ')'.
		if end := strings.Index(body[open:], "):"); end >= 0 {
			end += open
			head, msg, ok = body[:end+1], strings.TrimPrefix(body[end+2:], " "), true
		}
	}
	if !ok {
		return e, false
	}
	e.Message = msg
	head = strings.TrimRight(head, " ")
	if strings.HasSuffix(head, ")") {
		if i := strings.LastIndex(head, "("); i >= 0 {
			ids := strings.TrimSpace(head[i+1 : len(head)-1])
			pid, tid, hasTID := strings.Cut(ids, ":")
			p, err := strconv.Atoi(strings.TrimSpace(pid))
			if err == nil {
				e.PID = p
				if hasTID {
					if t, err := strconv.Atoi(strings.TrimSpace(tid)); err == nil {
						e.TID = t
					}
				}
				head = head[:i]
			}
		}
	}
	e.Tag = strings.TrimSpace(head)
	if e.Tag == "" {
		return e, false
	}
	return e, true
}

// SkippedFrames is one `Choreographer: Skipped N frames!` message.
type SkippedFrames struct {
	Time   time.Time
	PID    int
	Frames int
	Line   int
}

// Skipped extracts every Choreographer "Skipped N frames!" message (the
// final "!" or "." may be missing in pasted logs).
func Skipped(entries []Entry) []SkippedFrames {
	var out []SkippedFrames
	for _, e := range entries {
		if e.Tag != "Choreographer" {
			continue
		}
		rest, ok := strings.CutPrefix(e.Message, "Skipped ")
		if !ok {
			continue
		}
		num, tail, _ := strings.Cut(rest, " ")
		n, err := strconv.Atoi(num)
		if err != nil || n < 0 || !strings.HasPrefix(tail, "frames") {
			continue
		}
		out = append(out, SkippedFrames{Time: e.Time, PID: e.PID, Frames: n, Line: e.Line})
	}
	return out
}

// Davey is one hwui "Davey! duration=…ms; Flags=…, IntendedVsync=…"
// message: a frame that took longer than 700 ms.
type Davey struct {
	Time time.Time
	PID  int
	Line int
	// DurationMillis is as logged; hwui computes it from FrameCompleted, so a
	// frame whose FrameCompleted is INT64_MAX logs a huge bogus value.
	DurationMillis int64
	// Fields are the FrameInfo fields by name, FrameInterval and
	// FrameStartTime corrected for the API 31–34 label swap.
	Fields       map[string]int64
	LabelSwapped bool
}

// Frame returns the Davey fields as a gfxinfo.FrameStats.
func (d Davey) Frame() gfxinfo.FrameStats {
	return gfxinfo.FrameStats{
		Flags: d.Fields["Flags"], IntendedVsync: d.Fields["IntendedVsync"], Vsync: d.Fields["Vsync"],
		FrameDeadline: d.Fields["FrameDeadline"], FrameInterval: d.Fields["FrameInterval"],
		FrameStartTime: d.Fields["FrameStartTime"], FrameCompleted: d.Fields["FrameCompleted"],
		GpuCompleted: d.Fields["GpuCompleted"], DisplayPresentTime: d.Fields["DisplayPresentTime"],
		HandleInputStart: d.Fields["HandleInputStart"], AnimationStart: d.Fields["AnimationStart"],
		PerformTraversalsStart: d.Fields["PerformTraversalsStart"], DrawStart: d.Fields["DrawStart"],
		SyncQueued: d.Fields["SyncQueued"], SyncStart: d.Fields["SyncStart"],
		IssueDrawCommandsStart: d.Fields["IssueDrawCommandsStart"], SwapBuffers: d.Fields["SwapBuffers"],
	}
}

// ParseDavey parses a Davey! message (the Message of an OpenGLRenderer
// entry); ok is false when msg is not one. A field cut short by a truncated
// capture is dropped.
func ParseDavey(msg string) (d Davey, ok bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(msg), "Davey! duration=")
	if !ok {
		return d, false
	}
	dur, fields, ok := strings.Cut(rest, "ms;")
	v, err := strconv.ParseInt(dur, 10, 64)
	if !ok || err != nil {
		return d, false
	}
	d.DurationMillis = v
	d.Fields = make(map[string]int64)
	fields = strings.TrimSpace(fields)
	parts := strings.Split(fields, ",")
	if !strings.HasSuffix(fields, ",") {
		// hwui ends every field with ", "; without it the last one was cut.
		parts = parts[:len(parts)-1]
	}
	for _, kv := range parts {
		k, val, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil {
			continue
		}
		d.Fields[k] = n
	}
	iv, okI := d.Fields["FrameInterval"]
	st, okS := d.Fields["FrameStartTime"]
	if okI && okS && gfxPeriodLike(st) && iv > st {
		d.Fields["FrameInterval"], d.Fields["FrameStartTime"] = st, iv
		d.LabelSwapped = true
	}
	return d, true
}

// Daveys extracts every Davey! message.
func Daveys(entries []Entry) []Davey {
	var out []Davey
	for _, e := range entries {
		d, ok := ParseDavey(e.Message)
		if !ok {
			continue
		}
		d.Time, d.PID, d.Line = e.Time, e.PID, e.Line
		out = append(out, d)
	}
	return out
}

// Displayed is an ActivityManager / ActivityTaskManager "Displayed"
// or "Fully drawn" startup message.
type Displayed struct {
	Time      time.Time
	Line      int
	Component string // as logged, e.g. "com.android.settings/.Settings"
	// FullyDrawn is set for "Fully drawn" (reportFullyDrawn) messages.
	FullyDrawn bool
	Duration   time.Duration
	// Total is the "(total +…)" of a launch that went through several
	// activities; 0 when not logged.
	Total time.Duration
}

// Startups extracts "Displayed pkg/.Act: +1s234ms [(total +…)]" and
// "Fully drawn pkg/.Act: +…" messages.
func Startups(entries []Entry) []Displayed {
	var out []Displayed
	for _, e := range entries {
		if e.Tag != "ActivityManager" && e.Tag != "ActivityTaskManager" {
			continue
		}
		d, ok := ParseDisplayed(e.Message)
		if !ok {
			continue
		}
		d.Time, d.Line = e.Time, e.Line
		out = append(out, d)
	}
	return out
}

// ParseDisplayed parses one Displayed / Fully drawn message.
func ParseDisplayed(msg string) (d Displayed, ok bool) {
	rest, ok := strings.CutPrefix(msg, "Displayed ")
	if !ok {
		if rest, ok = strings.CutPrefix(msg, "Fully drawn "); !ok {
			return d, false
		}
		d.FullyDrawn = true
	}
	comp, times, ok := strings.Cut(rest, ": +")
	if !ok || comp == "" {
		return d, false
	}
	d.Component = comp
	first, tail, _ := strings.Cut(times, " ")
	if d.Duration, ok = ParseDuration(first); !ok {
		return d, false
	}
	if t, found := strings.CutPrefix(strings.TrimSpace(tail), "(total +"); found {
		if d.Total, ok = ParseDuration(strings.TrimSuffix(t, ")")); !ok {
			return d, false
		}
	}
	return d, true
}

// ParseDuration parses Android's TimeUtils.formatDuration form as
// ActivityManager logs it: "1s234ms", "850ms", "2m3s4ms", "1h0m0s1ms" (an
// optional leading '+').
func ParseDuration(s string) (time.Duration, bool) {
	s = strings.TrimPrefix(s, "+")
	if s == "" {
		return 0, false
	}
	var total time.Duration
	for s != "" {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 0 || i > 9 {
			return 0, false
		}
		n, _ := strconv.Atoi(s[:i])
		s = s[i:]
		var unit time.Duration
		switch {
		case strings.HasPrefix(s, "ms"):
			unit, s = time.Millisecond, s[2:]
		case strings.HasPrefix(s, "d"):
			unit, s = 24*time.Hour, s[1:]
		case strings.HasPrefix(s, "h"):
			unit, s = time.Hour, s[1:]
		case strings.HasPrefix(s, "m"):
			unit, s = time.Minute, s[1:]
		case strings.HasPrefix(s, "s"):
			unit, s = time.Second, s[1:]
		default:
			return 0, false
		}
		add := time.Duration(n) * unit
		if add/unit != time.Duration(n) || total+add < total {
			return 0, false // overflows: no real launch takes 292 years
		}
		total += add
	}
	return total, true
}

// String renders an entry in `-v threadtime` form (year-less times print as
// MM-DD, -v epoch times as seconds).
func (e Entry) String() string {
	ts := ""
	switch {
	case e.Epoch:
		ts = fmt.Sprintf("%d.%03d ", e.Time.Unix(), e.Time.Nanosecond()/1e6)
	case !e.Time.IsZero():
		ts = e.Time.Format("01-02 15:04:05.000") + " "
	}
	return fmt.Sprintf("%s%5d %5d %c %s: %s", ts, e.PID, e.TID, e.Level, e.Tag, e.Message)
}

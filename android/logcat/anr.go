package logcat

import (
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/android/devtext"
)

// ANRSource names the ActivityManager's ANR report in errors.
const ANRSource = "logcat ActivityManager: ANR in"

// ANR is one "Application Not Responding" report of ActivityManager in a
// log: "ANR in com.x (com.x/.Main)" and the lines logged with it
// ("PID: 1234", "Reason: Input dispatching timed out (…)", …).
type ANR struct {
	// Process is the process that did not respond; Component the
	// activity or service named after it, when given.
	Process, Component string
	// PID is the process's pid, -1 when the report lacks it.
	PID int
	// Reason is what timed out, e.g. "Input dispatching timed out (…)".
	Reason string
	// Entry is the log line of "ANR in …": its time (how the log gave it)
	// and who logged it (system_server's pid).
	Entry Entry
}

// ParseANRs finds ActivityManager's ANR reports in a saved log: under
// -v threadtime (every line of the report is a log line of its own, with
// system_server's pid and thread and one time), under the tag-only form
// ("E ActivityManager: …"), and in Android Studio's and DDMS's copies, which
// print the first line of the report with its time and the rest as
// indented continuation lines. Lines of other kinds are skipped.
func ParseANRs(b []byte) []ANR {
	lines := strings.Split(string(devtext.Normalize(b)), "\n")
	var out []ANR
	for i := 0; i < len(lines); i++ {
		e, ok := anrLogLine(lines[i])
		if !ok || !isAMTag(e.Tag) {
			continue
		}
		msg := strings.TrimSpace(e.Message)
		rest, ok := strings.CutPrefix(msg, "ANR in ")
		if !ok {
			continue
		}
		a := ANR{PID: -1, Entry: e}
		a.Entry.Line = i + 1
		name, comp, _ := strings.Cut(strings.TrimSpace(rest), " ")
		if name == "" {
			continue
		}
		a.Process = name
		if c := strings.TrimSpace(comp); strings.HasPrefix(c, "(") && strings.HasSuffix(c, ")") {
			a.Component = c[1 : len(c)-1]
		}
		// The report's other lines: the same logger's lines at the same
		// time, or a copy's indented continuation lines.
		for j := i + 1; j < len(lines) && j <= i+400; j++ {
			raw := lines[j]
			var text string
			if f, ok := anrLogLine(raw); ok {
				if f.Tag != e.Tag || f.PID != e.PID || f.TID != e.TID || !f.Time.Equal(e.Time) {
					break
				}
				text = f.Message
			} else if raw != "" && (raw[0] == ' ' || raw[0] == '\t') {
				text = raw
			} else {
				break
			}
			text = strings.TrimSpace(text)
			if strings.HasPrefix(text, "ANR in ") {
				break
			}
			i = j
			if v, ok := strings.CutPrefix(text, "PID: "); ok && a.PID < 0 {
				if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
					a.PID = n
				}
			}
			if v, ok := strings.CutPrefix(text, "Reason: "); ok && a.Reason == "" {
				a.Reason = strings.TrimSpace(v)
			}
		}
		out = append(out, a)
	}
	return out
}

// anrLogLine reads a log line in the forms ParseLine knows, and the
// tag-only one "E ActivityManager: msg" of some bug trackers' copies.
func anrLogLine(s string) (Entry, bool) {
	if e, ok := ParseLine(s); ok {
		return e, true
	}
	t := strings.TrimRight(s, " \t")
	if len(t) > 2 && logcatLevel(t[0]) && t[1] == ' ' {
		if tag, msg, ok := logcatCutTag(t[2:]); ok && tag != "" && !strings.ContainsAny(tag, " \t") {
			return Entry{PID: -1, TID: -1, Level: t[0], Tag: tag, Message: msg}, true
		}
	}
	return Entry{}, false
}

func isAMTag(tag string) bool { return tag == "ActivityManager" || tag == "ActivityTaskManager" }

// ANRTrace is one process's section of an ANR stack dump (the traces.txt
// of /data/anr, or the same text in a dropbox data_app_anr entry):
//
//	----- pid 21753 at 2017-09-25 17:37:10 -----
//	Cmd line: com.tencent.mm
//	…
//	"main" prio=5 tid=1 Runnable
//	  | sysTid=21753 nice=-8 …
//	  at java.util.regex.Matcher.openImpl(Native method)
//	  - locked <0x0026486f> (a java.util.regex.Matcher)
//	…
//	----- end 21753 -----
type ANRTrace struct {
	// PID is the process; -1 for threads dumped without a section header
	// (an excerpt).
	PID int
	// At is the time the header gives ("2017-09-25 17:37:10").
	At string
	// Cmd is the process's command line, its name for an app.
	Cmd     string
	Threads []ANRThread
	// Line is the 1-based line of the section header.
	Line int
}

// Time is the header's time on the device's wall clock in its own zone,
// as a year-ful logcat -v threadtime line gives it (labelled UTC; a zone
// the header adds, "+0800", is dropped): "2017-09-25 17:37:10",
// "2021-05-10 12:34:56.789012345+0800". ok is false for a header without
// one.
func (t ANRTrace) Time() (tm time.Time, ok bool) {
	date, clock, ok := strings.Cut(strings.TrimSpace(t.At), " ")
	if !ok {
		return tm, false
	}
	if i := strings.IndexAny(clock, "+-"); i >= 0 {
		clock = clock[:i]
	}
	if !strings.Contains(clock, ".") {
		clock += ".000"
	}
	if tm, ok = logcatTime(date, strings.TrimSpace(clock)); !ok || tm.Year() == 0 {
		return time.Time{}, false
	}
	return tm, true
}

// ANRThread is one thread of a stack dump.
type ANRThread struct {
	Name string
	// TID is the VM's thread id (tid=), SysTid the kernel's (sysTid=);
	// -1 when not given.
	TID, SysTid int
	// State is the VM's state of the thread: "Runnable", "Blocked",
	// "Native", "Suspended", "Waiting", …
	State string
	// Frames are the Java stack, innermost first, as the dump wrote them
	// after "at " ("com.x.Feed.bind(Feed.java:12)").
	Frames []string
	// Locks are the dump's lock lines, in order ("waiting to lock
	// <0x356916a7> (a java.lang.Object) held by thread 18").
	Locks []string
}

// Main is the section's main thread, nil when the section has none.
func (t ANRTrace) Main() *ANRThread {
	for i := range t.Threads {
		if t.Threads[i].Name == "main" {
			return &t.Threads[i]
		}
	}
	return nil
}

// ParseANRTraces reads the process sections of an ANR stack dump; text
// outside them (a dropbox entry's header, metrics.CPU usage) is skipped, and
// threads dumped without a section header come as one section with PID
// -1. NUL bytes in the dump, as some phones leave, are skipped.
func ParseANRTraces(b []byte) []ANRTrace {
	lines := strings.Split(string(devtext.Normalize(b)), "\n")
	var out []ANRTrace
	var cur *ANRTrace
	var th *ANRThread
	flush := func() {
		if cur != nil {
			out = append(out, *cur)
		}
		cur, th = nil, nil
	}
	for i, raw := range lines {
		ln := strings.TrimRight(strings.ReplaceAll(raw, "\x00", ""), " \t")
		if rest, ok := strings.CutPrefix(ln, "----- pid "); ok && strings.HasSuffix(rest, " -----") {
			flush()
			num, at, _ := strings.Cut(strings.TrimSuffix(rest, " -----"), " at ")
			pid, err := strconv.Atoi(num)
			if err != nil || pid <= 0 {
				continue
			}
			cur = &ANRTrace{PID: pid, At: at, Line: i + 1}
			continue
		}
		if strings.HasPrefix(ln, "----- end ") {
			flush()
			continue
		}
		if cur != nil && cur.Cmd == "" && th == nil {
			if v, ok := strings.CutPrefix(ln, "Cmd line: "); ok {
				cur.Cmd = strings.TrimSpace(v)
				continue
			}
		}
		if t, ok := anrThreadHeader(ln); ok {
			if cur == nil {
				cur = &ANRTrace{PID: -1, Line: i + 1}
			}
			cur.Threads = append(cur.Threads, t)
			th = &cur.Threads[len(cur.Threads)-1]
			continue
		}
		if th == nil {
			continue
		}
		t := strings.TrimSpace(ln)
		switch {
		case t == "":
			th = nil
		case strings.HasPrefix(t, "| "):
			if _, v, ok := strings.Cut(t, "sysTid="); ok {
				num, _, _ := strings.Cut(v, " ")
				if n, err := strconv.Atoi(num); err == nil && n > 0 {
					th.SysTid = n
				}
			}
		case strings.HasPrefix(t, "at "):
			th.Frames = append(th.Frames, strings.TrimPrefix(t, "at "))
		case strings.HasPrefix(t, "- "):
			th.Locks = append(th.Locks, strings.TrimPrefix(t, "- "))
		}
	}
	flush()
	return out
}

// anrThreadHeader reads `"main" prio=5 tid=1 Blocked` (the state may be
// followed by more words: "Native (still starting up)").
func anrThreadHeader(ln string) (ANRThread, bool) {
	if !strings.HasPrefix(ln, `"`) {
		return ANRThread{}, false
	}
	end := strings.LastIndex(ln, `"`)
	if end <= 0 {
		return ANRThread{}, false
	}
	t := ANRThread{Name: ln[1:end], TID: -1, SysTid: -1}
	f := strings.Fields(ln[end+1:])
	for i, x := range f {
		if v, ok := strings.CutPrefix(x, "tid="); ok {
			if n, err := strconv.Atoi(v); err == nil {
				t.TID = n
			}
			if i+1 < len(f) {
				t.State = f[i+1]
			}
		}
	}
	return t, t.TID >= 0 || strings.Contains(ln[end+1:], "sysTid=")
}

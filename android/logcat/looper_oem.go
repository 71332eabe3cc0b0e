package logcat

import (
	"strconv"
	"strings"
)

// Shapes of LooperReport.
const (
	// LooperLongMsg: MIUI's line for one message that ran slowly,
	// logged right after it ran ("Slow Looper main: Long Msg: seq=2
	// plan=08:36:22.124  late=3ms wall=9599ms running=0ms h=… w=110").
	LooperLongMsg = "long-msg"
	// LooperLate: MIUI's line for a message that started late, with the
	// messages that ran before it ("Slow Looper main: Activity a/.B is
	// 9503ms late (wall=801ms running=0ms …) because of 1 msg, msg 1 took
	// 9599ms (seq=2 late=3ms h=… w=110)").
	LooperLate = "late"
	// LooperPerfMonitor: HyperOS's line for a message (an activity's
	// transaction, a frame) that started late or ran slowly, with the
	// slow messages of the recent history ("PerfMonitor looperActivity :
	// package=a/.B time=1ms latency=3414ms … historyMsgCount=3 (msgIndex=1
	// wall=979ms seq=321 … h=… w=159) …", "PerfMonitor doFrame :
	// time=865ms vsyncFrame=489837 latency=906ms …").
	LooperPerfMonitor = "perfmonitor"
)

// LooperReport is one line of an OEM's Looper monitor, logged under the
// tag "Looper" beside (or instead of) AOSP's "Slow dispatch" lines:
// MIUI's "Slow Looper <thread>: …" and HyperOS's "PerfMonitor <what> : …".
// Each reports one message of the thread, Own, and some of the messages
// that ran before it, History.
type LooperReport struct {
	// Shape is LooperLongMsg, LooperLate or LooperPerfMonitor.
	Shape string
	// Thread is the looper thread MIUI names ("main"); "" for
	// PerfMonitor, which watches the main thread.
	Thread string
	// Subject is what Own is: "Long Msg", "Activity chat.delta/…Activity",
	// or PerfMonitor's kind ("looperActivity", "doFrame").
	Subject string
	// Own is the message the line reports: for a Long Msg the slow
	// message itself; else the late one, with how long it ran (wall=,
	// time=) and how late it started (is N ms late, latency=).
	Own LooperMsg
	// Count is how many messages ran before Own that the line accounts
	// for ("because of N msg", historyMsgCount=N), 0 when it gives none;
	// History the ones it lists, oldest first.
	Count   int
	History []LooperMsg
}

// LooperMsg is one message in an OEM Looper line. Unknown numbers are -1.
type LooperMsg struct {
	// Index is its 1-based place among the Count messages before the
	// report's own one ("msg 2", msgIndex=2); 0 for Own.
	Index int
	Seq   int64
	// WallMs is how long it ran, LateMs how long after it was due it
	// started.
	WallMs, LateMs int64
	// Handler (h=), Callback (c=) and What (w=, 0 when not given).
	Handler, Callback string
	What              int
}

// ParseLooperReport parses the message of one OEM Looper line; ok is
// false for anything else, AOSP's own lines included.
func ParseLooperReport(msg string) (LooperReport, bool) {
	msg = strings.TrimSpace(msg)
	if rest, ok := strings.CutPrefix(msg, "Slow Looper "); ok {
		return parseMIUI(rest)
	}
	if rest, ok := strings.CutPrefix(msg, "PerfMonitor "); ok {
		return parsePerfMonitor(rest)
	}
	return LooperReport{}, false
}

// parseMIUI reads what follows "Slow Looper ".
func parseMIUI(s string) (LooperReport, bool) {
	thread, rest, ok := strings.Cut(s, ": ")
	if !ok || thread == "" || strings.ContainsAny(thread, " ") {
		return LooperReport{}, false
	}
	r := LooperReport{Thread: thread}
	if body, ok := strings.CutPrefix(rest, "Long Msg: "); ok {
		m, ok := looperFields(body)
		if !ok || m.WallMs < 0 || m.Handler == "" {
			return LooperReport{}, false
		}
		r.Shape, r.Subject, r.Own = LooperLongMsg, "Long Msg", m
		return r, true
	}
	// "<subject> is Nms late (wall=…ms …) because of N msg, msg 1 took Xms (…), …"
	subject, rest, ok := strings.Cut(rest, " is ")
	if !ok || subject == "" {
		return LooperReport{}, false
	}
	late, rest, ok := strings.Cut(rest, "ms late")
	lateMs, err := strconv.ParseInt(late, 10, 64)
	if !ok || err != nil || lateMs < 0 {
		return LooperReport{}, false
	}
	r.Shape, r.Subject = LooperLate, subject
	r.Own = LooperMsg{Seq: -1, WallMs: -1, LateMs: lateMs}
	own, hist, _ := strings.Cut(rest, " because of ")
	if v, ok := msField(own, "wall="); ok {
		r.Own.WallMs = v
	}
	if hist == "" {
		return r, true
	}
	ok = history(&r, hist, " msg", "msg ", func(s string) (m LooperMsg, rest string, ok bool) {
		idx, s, ok1 := strings.Cut(s, " took ")
		took, s, ok2 := strings.Cut(s, "ms (")
		fields, rest, ok3 := strings.Cut(s, ")")
		m, ok4 := looperFields(fields)
		k, err1 := strconv.Atoi(idx)
		wall, err2 := strconv.ParseInt(took, 10, 64)
		m.Index, m.WallMs = k, wall
		return m, rest, ok1 && ok2 && ok3 && ok4 && err1 == nil && err2 == nil
	})
	return r, ok
}

// parsePerfMonitor reads what follows "PerfMonitor ".
func parsePerfMonitor(s string) (LooperReport, bool) {
	kind, rest, ok := strings.Cut(s, " : ")
	if !ok || kind == "" || strings.ContainsAny(kind, " ") {
		return LooperReport{}, false
	}
	r := LooperReport{Shape: LooperPerfMonitor, Subject: kind, Own: LooperMsg{Seq: -1, WallMs: -1, LateMs: -1}}
	head, hist, _ := strings.Cut(rest, " historyMsgCount=")
	if v, ok := msField(head, "time="); ok {
		r.Own.WallMs = v
	}
	if v, ok := msField(head, "latency="); ok {
		r.Own.LateMs = v
	}
	if r.Own.WallMs < 0 && r.Own.LateMs < 0 {
		return LooperReport{}, false
	}
	if hist == "" {
		return r, true
	}
	ok = history(&r, hist, " ", "(", func(s string) (LooperMsg, string, bool) {
		fields, rest, ok := strings.Cut(s, ")")
		m, ok2 := looperFields(fields)
		return m, rest, ok && ok2
	})
	return r, ok
}

// history reads into r the count of messages before r's own that a line
// gives ("<count><sep>…"), and those it lists, each after open, read by
// item, which returns what follows it.
func history(r *LooperReport, s, sep, open string, item func(string) (LooperMsg, string, bool)) bool {
	count, s, _ := strings.Cut(s, sep)
	n, err := strconv.Atoi(count)
	if err != nil || n < 0 {
		return false
	}
	r.Count = n
	for {
		_, after, ok := strings.Cut(s, open)
		if !ok {
			return true
		}
		m, rest, ok := item(after)
		if !ok || m.Index <= 0 || m.WallMs < 0 || m.Handler == "" {
			return false
		}
		r.History = append(r.History, m)
		s = rest
	}
}

// looperFields reads space-separated key=value fields of one message:
// seq=, late=Nms, wall=Nms, msgIndex=, h=, c=, w=; others are skipped.
func looperFields(s string) (LooperMsg, bool) {
	m := LooperMsg{Seq: -1, WallMs: -1, LateMs: -1}
	for _, f := range strings.Fields(s) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			continue
		}
		var err error
		switch k {
		case "seq":
			m.Seq, err = strconv.ParseInt(v, 10, 64)
		case "late":
			m.LateMs, err = parseMs(v)
		case "wall":
			m.WallMs, err = parseMs(v)
		case "msgIndex":
			m.Index, err = strconv.Atoi(v)
		case "w":
			m.What, err = strconv.Atoi(v)
		case "h":
			m.Handler = v
		case "c":
			if v != "null" {
				m.Callback = v
			}
		}
		if err != nil {
			return LooperMsg{}, false
		}
	}
	return m, true
}

// msField finds "key<N>ms" among s's fields.
func msField(s, key string) (int64, bool) {
	for _, f := range strings.Fields(s) {
		if v, ok := strings.CutPrefix(strings.Trim(f, "()"), key); ok {
			n, err := parseMs(v)
			return n, err == nil
		}
	}
	return -1, false
}

// parseMs reads "<N>ms", N ≥ 0.
func parseMs(v string) (int64, error) {
	num, ok := strings.CutSuffix(v, "ms")
	n, err := strconv.ParseInt(num, 10, 64)
	if !ok || err != nil || n < 0 {
		return -1, strconv.ErrSyntax
	}
	return n, nil
}

package logcat

import (
	"strconv"
	"strings"
)

// LooperTag is the log tag of Android's Looper.
const LooperTag = "Looper"

// Kinds of LooperSlow.
const (
	// LooperDispatch: one message ran for Millis ms on the thread (Looper's
	// "Slow dispatch took …"), logged right after it ran.
	LooperDispatch = "dispatch"
	// LooperDelivery: the message started Millis ms after it was due
	// ("Slow delivery took …"): the thread was busy before it. Logged
	// after the message ran; further ones are held back until the queue
	// has caught up ("Drained").
	LooperDelivery = "delivery"
)

// LooperSlow is one line of Looper's slow-message log, which a thread's
// Looper writes once the system property log.looper.<uid>.<thread>.slow
// held a threshold when its loop started (AOSP Looper.showSlowLog, API 28
// and later):
//
//	Slow dispatch took 148ms main h=android.app.ActivityThread$H c=null m=110
//	Slow delivery took 335ms android.fg h=android.os.Handler c=<recycled PooledLambda@eabbcab> m=0
//	Slow dispatch took 49415ms main app=system_server main=true group=FOREGROUND h=… c=null m=114
//
// The last shape is Android 17's, with the process, whether the thread is
// its main thread and its scheduling group.
type LooperSlow struct {
	// Kind is LooperDispatch or LooperDelivery.
	Kind   string
	Millis int64
	// Thread is the looper thread's name: "main", or a HandlerThread's.
	Thread string
	// Process, Main ("true"/"false") and Group come from Android 17's
	// app=, main= and group= fields; empty before.
	Process, Main, Group string
	// Handler is the target Handler's class (h=).
	Handler string
	// Callback is the message's Runnable as its toString printed it
	// (c=), "" when it had none ("null").
	Callback string
	// What is the message code (m=).
	What int
}

// CallbackClass is the callback without the identity hash toString adds
// ("com.x.Feed$1@3f2a9c" → "com.x.Feed$1", "<recycled PooledLambda@e1>" →
// "<recycled PooledLambda>"), so that the messages of one Runnable class
// group together.
func (l LooperSlow) CallbackClass() string {
	return stripIdentityHash(l.Callback)
}

// stripIdentityHash cuts a trailing "@<hex>" (inside a closing ">" too).
func stripIdentityHash(s string) string {
	tail := ""
	if strings.HasSuffix(s, ">") {
		s, tail = s[:len(s)-1], ">"
	}
	if i := strings.LastIndexByte(s, '@'); i > 0 && i+1 < len(s) {
		hex := true
		for _, c := range s[i+1:] {
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				hex = false
				break
			}
		}
		if hex {
			s = s[:i]
		}
	}
	return s + tail
}

// ParseLooperSlow parses the message of one Looper log line; ok is false
// for any other message, the OEM variants under the same tag included
// ("Slow Looper main: Long Msg: …", "PerfMonitor …", which
// ParseLooperReport reads, and "DebugLooper: …").
func ParseLooperSlow(msg string) (LooperSlow, bool) {
	l, ok := parseLooperSlow(msg)
	if !ok {
		return LooperSlow{}, false
	}
	return l, true
}

func parseLooperSlow(msg string) (l LooperSlow, ok bool) {
	msg = strings.TrimSpace(msg)
	rest, ok := strings.CutPrefix(msg, "Slow ")
	if !ok {
		return l, false
	}
	kind, rest, ok := strings.Cut(rest, " took ")
	if !ok || (kind != LooperDispatch && kind != LooperDelivery) {
		return l, false
	}
	l.Kind = kind
	num, rest, ok := strings.Cut(rest, "ms ")
	n, err := strconv.ParseInt(num, 10, 64)
	if !ok || err != nil || n < 0 {
		return l, false
	}
	l.Millis = n
	// "<thread>[ app=… main=… group=…] h=<class> c=<callback> m=<what>";
	// the callback's toString may hold spaces, so m= is the last field.
	head, tail, ok := strings.Cut(rest, " h=")
	if !ok || head == "" {
		return l, false
	}
	fields := strings.Split(head, " ")
	for len(fields) > 1 {
		last := fields[len(fields)-1]
		k, v, ok := strings.Cut(last, "=")
		if !ok {
			break
		}
		switch k {
		case "app":
			l.Process = v
		case "main":
			l.Main = v
		case "group":
			l.Group = v
		default:
			return l, false
		}
		fields = fields[:len(fields)-1]
	}
	l.Thread = strings.Join(fields, " ")
	handler, tail, ok := strings.Cut(tail, " c=")
	if !ok || handler == "" || strings.ContainsAny(handler, " ") {
		return l, false
	}
	l.Handler = handler
	i := strings.LastIndex(tail, " m=")
	if i < 0 {
		return l, false
	}
	what, err := strconv.Atoi(tail[i+len(" m="):])
	if err != nil {
		return l, false
	}
	l.What = what
	if cb := tail[:i]; cb != "null" {
		l.Callback = cb
	}
	return l, true
}

// LooperLine is one line of a log that Looper's slow-message log wrote.
type LooperLine struct {
	LooperSlow
	// Drained marks Looper's "Drained" line: the queue caught up after a
	// slow delivery, and the next slow delivery is logged again.
	Drained bool
	// OEM is an OEM's line under the same tag (MIUI's, HyperOS's), nil
	// for AOSP's; LooperSlow is then empty.
	OEM *LooperReport
	// Entry is the line's index in the entries given.
	Entry int
}

// LooperLines finds the Looper slow-message lines in entries (tag
// "Looper"; Looper logs them to the system buffer): AOSP's, and the OEM
// shapes ParseLooperReport reads.
func LooperLines(entries []Entry) []LooperLine {
	var out []LooperLine
	for i, e := range entries {
		if e.Tag != LooperTag {
			continue
		}
		if strings.TrimSpace(e.Message) == "Drained" {
			out = append(out, LooperLine{Drained: true, Entry: i})
			continue
		}
		if l, ok := ParseLooperSlow(e.Message); ok {
			out = append(out, LooperLine{LooperSlow: l, Entry: i})
		} else if r, ok := ParseLooperReport(e.Message); ok {
			out = append(out, LooperLine{OEM: &r, Entry: i})
		}
	}
	return out
}

// LooperSlowProperty is the system property that turns on the slow-message
// log of one thread of an app, read by the thread's Looper when its loop
// starts: "log.looper.10123.main.slow". Its value is the threshold in ms.
func LooperSlowProperty(uid int, thread string) string {
	return "log.looper." + strconv.Itoa(uid) + "." + thread + ".slow"
}

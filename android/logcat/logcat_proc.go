package logcat

import (
	"strconv"
	"strings"
)

// Kinds of ProcEvent: what a log line says happened to an app
// process. The line shapes are the platform's own (ActivityManagerService,
// ProcessRecord.kill, RuntimeInit, bionic's debuggerd handler, lmkd).
const (
	// ProcStart: "ActivityManager: Start proc 1234:com.x/u0a12 for …".
	ProcStart = "start"
	// ProcJavaCrash: "AndroidRuntime: FATAL EXCEPTION: main", logged
	// by the crashing process itself, then "Process: com.x, PID: 1234" and
	// the exception.
	ProcJavaCrash = "java_crash"
	// ProcNativeCrash: "libc: Fatal signal 11 (SIGSEGV), code 1 …,
	// pid 1234 (com.x)", logged by the crashing process.
	ProcNativeCrash = "native_crash"
	// ProcANR: "ActivityManager: ANR in com.x (com.x/.Main)" followed
	// by "PID: 1234".
	ProcANR = "anr"
	// ProcForceStop: "ActivityManager: Force stopping com.x
	// appid=10123 user=0: from pid 4321" (am force-stop, a settings page,
	// an uninstall). It names the package, not a pid.
	ProcForceStop = "force_stop"
	// ProcKill: "ActivityManager: Killing 1234:com.x/u0a12 (adj 0):
	// reason" — the system ending a process ("stop com.x" is a force-stop,
	// "empty #17" a cached process, "bg anr" an ANR).
	ProcKill = "kill"
	// ProcLMK: "lowmemorykiller: Kill 'com.x' (1234), uid 10123,
	// oom_score_adj 900 to free …" (lmkd; "Killing '…'" before Android 10).
	ProcLMK = "lmk_kill"
	// ProcDied: "ActivityManager: Process com.x (pid 1234) has died:
	// …", logged when a process the system did not kill itself went away.
	ProcDied = "died"
)

// ProcEvent is one log line about an app process's life.
type ProcEvent struct {
	Kind string // one of the LogcatProc kinds
	// PID is the process the line is about, -1 when it names none (a
	// force-stop names the package).
	PID int
	// Process is the process (or, for a force-stop, package) name the line
	// gives; "" when it gives none.
	Process string
	// Detail is what the line says beyond that: the exception of a Java
	// crash, the signal of a native one, the reason of a kill or ANR.
	Detail string
	// Entry is the index of the line in the entries given.
	Entry int
}

// ProcEvents finds the lines that tell of app processes starting,
// crashing, being killed or dying. Lines of other kinds are skipped.
func ProcEvents(entries []Entry) []ProcEvent {
	var out []ProcEvent
	for i := range entries {
		ev, ok := logcatProcEvent(entries, i)
		if !ok {
			continue
		}
		ev.Entry = i
		out = append(out, ev)
	}
	return out
}

// logcatFollowing returns the message of the next entries logged by the
// same thread at the same time as entries[i] (a multi-line message logged
// in one call), up to n of them.
func logcatFollowing(entries []Entry, i, n int) []string {
	var out []string
	e := entries[i]
	for j := i + 1; j < len(entries) && j <= i+50 && len(out) < n; j++ {
		f := entries[j]
		if f.PID != e.PID || f.TID != e.TID || f.Tag != e.Tag {
			continue
		}
		if !f.Time.Equal(e.Time) && f.Time.Sub(e.Time) > 1e9 {
			break
		}
		out = append(out, f.Message)
	}
	return out
}

func logcatProcEvent(entries []Entry, i int) (ProcEvent, bool) {
	e := entries[i]
	msg := strings.TrimSpace(e.Message)
	ev := ProcEvent{PID: -1}
	switch e.Tag {
	case "AndroidRuntime":
		if !strings.HasPrefix(msg, "FATAL EXCEPTION:") {
			return ev, false
		}
		ev.Kind, ev.PID = ProcJavaCrash, e.PID
		for _, next := range logcatFollowing(entries, i, 3) {
			next = strings.TrimSpace(next)
			if rest, ok := strings.CutPrefix(next, "Process: "); ok {
				// "Process: com.x, PID: 1234"
				name, pid, _ := strings.Cut(rest, ", PID: ")
				ev.Process = name
				if n, err := strconv.Atoi(strings.TrimSpace(pid)); err == nil && n > 0 {
					ev.PID = n
				}
				continue
			}
			if ev.Detail == "" && !strings.HasPrefix(next, "at ") {
				ev.Detail = next
			}
		}
		return ev, ev.PID > 0
	case "libc", "DEBUG":
		rest, ok := strings.CutPrefix(msg, "Fatal signal ")
		if !ok {
			return ev, false
		}
		ev.Kind, ev.PID = ProcNativeCrash, e.PID
		// "11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x18 in tid 139
		// (surfaceflinger), pid 139 (surfaceflinger)"; before Android 7
		// "11 (SIGSEGV) at 0x00000000 (code=1), thread 1234 (name)".
		if sig, _, ok := strings.Cut(rest, ")"); ok {
			ev.Detail = "signal " + sig + ")"
		}
		if j := strings.LastIndex(rest, ", pid "); j >= 0 {
			num, name, _ := strings.Cut(rest[j+len(", pid "):], " ")
			if n, err := strconv.Atoi(num); err == nil && n > 0 {
				ev.PID = n
				ev.Process = strings.TrimSuffix(strings.TrimPrefix(name, "("), ")")
			}
		}
		return ev, ev.PID > 0
	case "lowmemorykiller", "lmkd":
		// "Kill 'com.x' (1234), uid 10123, oom_score_adj 900 to free …";
		// "Killing 'com.x' (1234), uid …" before Android 10.
		rest, ok := strings.CutPrefix(msg, "Kill '")
		if !ok {
			if rest, ok = strings.CutPrefix(msg, "Killing '"); !ok {
				return ev, false
			}
		}
		name, after, ok := strings.Cut(rest, "' (")
		num, tail, ok2 := strings.Cut(after, ")")
		n, err := strconv.Atoi(num)
		if !ok || !ok2 || err != nil || n <= 0 {
			return ev, false
		}
		ev.Kind, ev.PID, ev.Process = ProcLMK, n, name
		ev.Detail = "low memory killer"
		if _, why, ok := strings.Cut(tail, "reason: "); ok {
			ev.Detail += ": " + strings.TrimSpace(why)
		}
		return ev, true
	case "ActivityManager", "ActivityTaskManager":
		return logcatAMEvent(entries, i, msg)
	}
	return ev, false
}

// logcatAMEvent reads ActivityManager's process lines.
func logcatAMEvent(entries []Entry, i int, msg string) (ProcEvent, bool) {
	ev := ProcEvent{PID: -1}
	switch {
	case strings.HasPrefix(msg, "Start proc "), strings.HasPrefix(msg, "Killing "):
		// "Start proc 1234:com.x/u0a12 for activity {…}" and
		// "Killing 1234:com.x/u0a12 (adj 0): stop com.x".
		head, rest, _ := strings.Cut(msg, " proc ")
		ev.Kind = ProcStart
		if head != "Start" || rest == "" {
			ev.Kind, rest = ProcKill, strings.TrimPrefix(msg, "Killing ")
		}
		num, after, ok := strings.Cut(rest, ":")
		n, err := strconv.Atoi(num)
		if !ok || err != nil || n <= 0 {
			return ev, false
		}
		ev.PID = n
		name, tail, _ := strings.Cut(after, " ")
		ev.Process, _, _ = strings.Cut(name, "/")
		if ev.Kind == ProcKill {
			// "(adj 0): reason"
			_, why, ok := strings.Cut(tail, "): ")
			if !ok {
				return ev, false
			}
			ev.Detail = strings.TrimSpace(why)
		}
		return ev, ev.Process != ""
	case strings.HasPrefix(msg, "Force stopping "):
		// "Force stopping com.x appid=10123 user=0: from pid 4321"
		rest := strings.TrimPrefix(msg, "Force stopping ")
		name, tail, _ := strings.Cut(rest, " ")
		if !strings.HasPrefix(tail, "appid=") {
			return ev, false // "Force stopping u0: …" stops a whole user
		}
		ev.Kind, ev.Process = ProcForceStop, name
		if _, why, ok := strings.Cut(tail, ": "); ok {
			ev.Detail = strings.TrimSpace(why)
		}
		return ev, true
	case strings.HasPrefix(msg, "Process ") && strings.Contains(msg, ") has died"):
		// "Process com.x (pid 1234) has died: fg  TOP"
		rest := strings.TrimPrefix(msg, "Process ")
		name, after, ok := strings.Cut(rest, " (pid ")
		num, _, ok2 := strings.Cut(after, ")")
		n, err := strconv.Atoi(num)
		if !ok || !ok2 || err != nil || n <= 0 {
			return ev, false
		}
		ev.Kind, ev.PID, ev.Process = ProcDied, n, name
		return ev, true
	case strings.HasPrefix(msg, "ANR in "):
		// "ANR in com.x (com.x/.Main)", then "PID: 1234" and "Reason: …",
		// each its own line under threadtime.
		name, _, _ := strings.Cut(strings.TrimPrefix(msg, "ANR in "), " ")
		ev.Kind, ev.Process = ProcANR, name
		for _, next := range logcatFollowing(entries, i, 4) {
			next = strings.TrimSpace(next)
			if num, ok := strings.CutPrefix(next, "PID: "); ok {
				if n, err := strconv.Atoi(strings.TrimSpace(num)); err == nil && n > 0 {
					ev.PID = n
				}
			}
			if why, ok := strings.CutPrefix(next, "Reason: "); ok {
				ev.Detail = why
			}
		}
		return ev, name != ""
	}
	return ev, false
}

// Why an app process ended (End.Reason).
const (
	// EndCrash: the process crashed — a Java exception, a native signal
	// or an ANR.
	EndCrash = "crash"
	// EndForceStopped: the process was force-stopped (am force-stop, the
	// settings page, an update).
	EndForceStopped = "force_stopped"
	// EndKilled: the system ended the process (low memory killer, a cached
	// process trimmed, …).
	EndKilled = "killed"
	// EndUnknown: the log does not say (the app exited, or the lines are
	// gone).
	EndUnknown = "unknown"
)

// End is why a process ended, and the line that says so.
type End struct {
	Reason string // one of the End reasons
	// Cause details the reason: "java", "native" or "anr" for a crash, the
	// system's reason for a kill or force-stop.
	Cause string
	// Event is the deciding line's event; nil for EndUnknown.
	Event *ProcEvent
}

// ClassifyEnd decides why a process ended from the events about it
// (the caller keeps only those of the process and of the time it died): a
// crash (Java, native or ANR) before a force-stop, before a kill by the
// system; EndUnknown when none says.
func ClassifyEnd(events []ProcEvent) End {
	rank := func(ev ProcEvent) (int, End) {
		switch ev.Kind {
		case ProcJavaCrash:
			return 3, End{Reason: EndCrash, Cause: "java"}
		case ProcNativeCrash:
			return 3, End{Reason: EndCrash, Cause: "native"}
		case ProcANR:
			return 3, End{Reason: EndCrash, Cause: "anr"}
		case ProcForceStop:
			return 2, End{Reason: EndForceStopped, Cause: ev.Detail}
		case ProcLMK:
			return 1, End{Reason: EndKilled, Cause: ev.Detail}
		case ProcKill:
			why := ev.Detail
			switch {
			case strings.Contains(why, "anr"):
				return 3, End{Reason: EndCrash, Cause: "anr"}
			case strings.HasPrefix(why, "crash"), strings.HasPrefix(why, "user request after error"):
				return 3, End{Reason: EndCrash, Cause: why}
			case strings.HasPrefix(why, "stop "):
				return 2, End{Reason: EndForceStopped, Cause: why}
			}
			return 1, End{Reason: EndKilled, Cause: why}
		}
		return 0, End{}
	}
	best, out := 0, End{Reason: EndUnknown}
	for i := range events {
		r, end := rank(events[i])
		if r > best {
			best, out = r, end
			out.Event = &events[i]
		}
	}
	return out
}

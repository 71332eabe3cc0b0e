package simdevice

import (
	"fmt"
	"hash/fnv"
	"io"
	"path"
	"slices"
	"strings"
	"time"
)

// Setprop runs `setprop NAME VALUE` as Android's toolbox does: it checks
// the name and the value's length, and fails with "Failed to set property
// … See dmesg for error reason." where SELinux keeps the shell from the
// property: every read-only (ro.) property and any outside the log.,
// debug. and persist.log. families the shell domain may set, and those the
// device denies (Quirks.DeniedProperties). Root sets any but ro. ones.
func (w *World) Setprop(args []string, stdout, stderr io.Writer) int {
	if len(args) != 2 {
		fmt.Fprint(stderr, "usage: setprop NAME VALUE\n\nSets an Android system property to a value.\n")
		return 1
	}
	name, value := args[0], args[1]
	if !legalPropName(name) {
		fmt.Fprintf(stderr, "Invalid property name '%s'\n", name)
		return 1
	}
	const propValueMax = 92
	if len(value) >= propValueMax && !strings.HasPrefix(name, "ro.") {
		fmt.Fprintf(stderr, "Value '%s' is too long, %d bytes vs a max of %d\n", value, len(value), propValueMax)
		return 1
	}
	allowed := w.cfg.Root || strings.HasPrefix(name, "log.") || strings.HasPrefix(name, "debug.") || strings.HasPrefix(name, "persist.log.")
	if strings.HasPrefix(name, "ro.") || !allowed || w.cfg.Quirks.deniesProperty(name) {
		fmt.Fprintf(stderr, "Failed to set property '%s' to '%s'.\nSee dmesg for error reason.\n", name, value)
		return 1
	}
	w.mu.Lock()
	w.setProps[name] = value
	w.mu.Unlock()
	return 0
}

// legalPropName is init's IsLegalPropertyName: dot-separated words of
// letters, digits and _ - @ :.
func legalPropName(name string) bool {
	if name == "" || name[0] == '.' || name[len(name)-1] == '.' || strings.Contains(name, "..") {
		return false
	}
	for _, r := range name {
		if !(r == '.' || r == '_' || r == '-' || r == '@' || r == ':' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// deniesProperty reports whether the device keeps the shell from setting
// name (Quirks.DeniedProperties).
func (q Quirks) deniesProperty(name string) bool {
	for _, p := range q.DeniedProperties {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// anrReport is one ANR the system reported: what dumpsys dropbox prints.
type anrReport struct {
	at     int64
	pid    int
	reason string
	stack  []string // the main thread's, outermost first
}

// anrLocked makes the system report the running app not responding at at,
// its main thread running cause's work: ActivityManager's log lines (system
// buffer, one log line per line of the report) and a data_app_anr dropbox
// entry with the main thread's stack.
func (w *World) anrLocked(at int64, cause *Cause) {
	a := w.app
	if a == nil {
		return
	}
	reason := fmt.Sprintf("Input dispatching timed out (%s %s (server) is not responding. Waited 5001ms for MotionEvent)",
		identityHash(a.pid, "window"), w.wl.component())
	if w.cfg.API < 30 {
		reason = "Input dispatching timed out (Waiting to send non-key event because the touched window has not finished processing certain input events that were delivered to it over 500.0ms ago.  Wait queue length: 2.  Wait queue head age: 5506.2ms.)"
	}
	lines := []string{
		fmt.Sprintf("ANR in %s (%s)", w.wl.Package, w.wl.shortComponent()),
		fmt.Sprintf("PID: %d", a.pid),
		"Reason: " + reason,
		"Load: 7.26 / 6.12 / 5.83",
		"CPU usage from 0ms to 5012ms later:",
		fmt.Sprintf("  98%% %d/%s: 92%% user + 6%% kernel / faults: 1804 minor", a.pid, w.wl.Package),
	}
	for _, l := range lines {
		w.logBufLocked(at, "system", 1000, 1156, 'E', "ActivityManager", l)
	}
	w.anrs = append(w.anrs, anrReport{at: at, pid: a.pid, reason: reason, stack: slices.Clone(cause.Stack)})
}

// dumpsysDropbox is `dumpsys dropbox [--print] [data_app_anr]`: the ANR
// entries, each with the main thread's stack in the format of
// /data/anr/traces.txt.
func (w *World) dumpsysDropbox(args []string, stdout io.Writer) int {
	print, tag := false, ""
	for _, a := range args {
		switch {
		case a == "--print" || a == "-p":
			print = true
		case !strings.HasPrefix(a, "-"):
			tag = a
		}
	}
	w.mu.Lock()
	w.advanceLocked()
	var entries []anrReport
	if tag == "" || tag == "data_app_anr" {
		for _, r := range w.anrs {
			if r.at <= w.now {
				entries = append(entries, r)
			}
		}
	}
	w.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "Drop box contents: %d entries\nMax entries: 1000\n", len(entries))
	if tag != "" {
		b.WriteString("Searching for: " + tag + "\n")
	}
	b.WriteByte('\n')
	for _, r := range entries {
		when := w.bootWall.Add(time.Duration(r.at)).UTC()
		text := w.anrText(r, when)
		if !print {
			fmt.Fprintf(&b, "%s data_app_anr (text, %d bytes)\n    %s\n", when.Format("2006-01-02 15:04:05"), len(text), firstLine(text))
			continue
		}
		fmt.Fprintf(&b, "========================================\n%s data_app_anr (text, %d bytes)\n%s\n", when.Format("2006-01-02 15:04:05"), len(text), text)
	}
	io.WriteString(stdout, b.String())
	return 0
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// anrDumpLead is how long before ActivityManager logs an ANR its stack
// dump starts: the system dumps the stacks first, then reports.
const anrDumpLead = 400 * time.Millisecond

// anrText is an ANR's dropbox entry: ActivityManager's header and the
// stack dump of the app's main thread, one entry per ANR.
func (w *World) anrText(r anrReport, when time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Process: %s\nPID: %d\nUID: %d\nFrozen: false\nFlags: 0x38c83e44\nPackage: %s v1 (1.0)\nForeground: Yes\nActivity: %s\nSubject: %s\nBuild: %s\n\n",
		w.wl.Package, r.pid, w.wl.UID, w.wl.Package, w.wl.shortComponent(), r.reason, w.Props()["ro.build.fingerprint"])
	fmt.Fprintf(&b, "----- pid %d at %s -----\nCmd line: %s\nABI: 'arm64'\nBuild type: optimized\n\nDALVIK THREADS (1):\n",
		r.pid, when.Add(-anrDumpLead).Format("2006-01-02 15:04:05.000000000-0700"), w.wl.Package)
	fmt.Fprintf(&b, "\"main\" prio=5 tid=1 Runnable\n  | group=\"main\" sCount=0 ucsCount=0 flags=0 obj=0x72a3e1b8 self=0xb400007a1c2fc380\n  | sysTid=%d nice=-10 cgrp=top-app sched=0/0 handle=0x7b4f2b74f8\n  | state=R schedstat=( 7400000000 5100000 4012 ) utm=700 stm=40 core=4 HZ=100\n  | stack=0x7ff3d42000-0x7ff3d44000 stackSize=8188KB\n  | held mutexes= \"mutator lock\"(shared held)\n", r.pid)
	for i := len(r.stack) - 1; i >= 0; i-- {
		b.WriteString("  at " + javaFrame(r.stack[i]) + "\n")
	}
	fmt.Fprintf(&b, "\n----- end %d -----\n", r.pid)
	return b.String()
}

// javaFrame is how a stack dump prints a method: "a.b.C$1.run(C.java:42)".
func javaFrame(method string) string {
	i := strings.LastIndexByte(method, '.')
	if i < 0 {
		return method + "(Unknown Source)"
	}
	class := method[:i]
	file := class[strings.LastIndexByte(class, '.')+1:]
	file, _, _ = strings.Cut(file, "$")
	h := fnv.New32a()
	h.Write([]byte(method))
	return fmt.Sprintf("%s(%s.java:%d)", method, file, 20+h.Sum32()%900)
}

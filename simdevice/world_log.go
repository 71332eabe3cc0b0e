package simdevice

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/simdevice/internal/format"
)

// logEntry is one logcat line.
type logEntry struct {
	seq      int64
	at       int64 // uptime ns
	buf      string
	pid, tid int
	level    byte
	tag, msg string
	// backdated entries were logged stamped in the past (LogHistory): a
	// dump shows them in time order, a follower never saw them come.
	backdated bool
}

const logRingSize = 20_000

func (w *World) logLocked(at int64, pid, tid int, level byte, tag, msg string) {
	w.logBufLocked(at, "main", pid, tid, level, tag, msg)
}

// logAtLocked logs a line stamped in the future of w.now (frame events are
// computed ahead); it keeps the ring ordered by time.
func (w *World) logAtLocked(at int64, pid, tid int, level byte, tag, msg string) {
	w.logBufLocked(at, "main", pid, tid, level, tag, msg)
}

func (w *World) logBufLocked(at int64, buf string, pid, tid int, level byte, tag, msg string) {
	w.logSeq++
	e := logEntry{seq: w.logSeq, at: at, buf: buf, pid: pid, tid: tid, level: level, tag: tag, msg: msg}
	i := len(w.logs)
	for i > 0 && w.logs[i-1].at > at {
		i--
	}
	w.logs = slices.Insert(w.logs, i, e)
	if len(w.logs) > logRingSize {
		w.logs = slices.Delete(w.logs, 0, len(w.logs)-logRingSize)
	}
	close(w.logWake)
	w.logWake = make(chan struct{})
}

func (w *World) bootLogs() {
	t := w.now - int64(2*time.Second)
	if w.cfg.Quirks.LogHistory {
		w.oldCrashLogs(t - int64(5*time.Minute))
	}
	w.logLocked(t, 1000, 1234, 'I', "ActivityManager", "Killing 2871:com.android.vending/u0a92 (adj 925): empty for 1800s")
	w.logBufLocked(t+int64(200*time.Millisecond), "system", 1000, 1187, 'I', "WindowManager", "Changing focus from null to Window{a1b2c3 u0 NotificationShade} displayId=0")
	w.logLocked(t+int64(400*time.Millisecond), 612, 612, 'D', "SurfaceFlinger", "Display 0 HWC layers:")
	w.logLocked(t+int64(900*time.Millisecond), 1000, 1310, 'I', "BatteryService", "Battery level changed: 78")
}

// oldCrashLogs logs, from t on, a Java crash of another app, a native crash
// of a third, and a force-stop of the workload's app (LogHistory).
func (w *World) oldCrashLogs(t int64) {
	s := int64(time.Second)
	w.javaCrashLogs(t, 2871, "com.android.vending", "java.lang.NullPointerException: Attempt to invoke virtual method 'int java.lang.String.length()' on a null object reference")
	w.logBufLocked(t+s/10, "system", 1000, 1100, 'I', "ActivityManager", "Process com.android.vending (pid 2871) has died: cch+ 5 CEM ")
	w.logBufLocked(t+60*s, "crash", 3101, 3120, 'F', "libc", "Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x18 in tid 3120 (RenderThread), pid 3101 (com.google.android.youtube)")
	w.logBufLocked(t+60*s+s/50, "system", 1000, 1100, 'I', "ActivityManager", "Process com.google.android.youtube (pid 3101) has died: fg  TOP ")
	w.logBufLocked(t+120*s, "system", 1000, 1100, 'I', "ActivityManager", fmt.Sprintf("Force stopping %s appid=%d user=0: from pid 7001", w.wl.Package, w.wl.UID))
}

// javaCrashLogs logs RuntimeInit's report of an uncaught exception.
func (w *World) javaCrashLogs(t int64, pid int, process, exception string) {
	w.logBufLocked(t, "crash", pid, pid, 'E', "AndroidRuntime", "FATAL EXCEPTION: main")
	w.logBufLocked(t, "crash", pid, pid, 'E', "AndroidRuntime", fmt.Sprintf("Process: %s, PID: %d", process, pid))
	w.logBufLocked(t, "crash", pid, pid, 'E', "AndroidRuntime", exception)
}

// backdateLocked logs a line stamped at t < w.now, as history a phone
// already held (LogHistory).
func (w *World) backdateLocked(t int64, buf string, pid, tid int, level byte, tag, msg string) {
	w.logBufLocked(t, buf, pid, tid, level, tag, msg)
	for i := len(w.logs) - 1; i >= 0; i-- {
		if w.logs[i].seq == w.logSeq {
			w.logs[i].backdated = true
			break
		}
	}
}

// logcatArgs is a parsed logcat command line.
type logcatArgs struct {
	dump, clear bool
	format.LogFormat
	since   int64 // show entries at or after this uptime; -1 none
	tail    int   // last N lines; 0 all
	bufs    []string
	filters []string
}

func (w *World) parseLogcat(args []string) (logcatArgs, error) {
	la := logcatArgs{LogFormat: format.LogFormat{Format: "threadtime"}, since: -1}
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() (string, error) {
			if i+1 >= len(args) {
				return "", fmt.Errorf("option %s needs an argument", a)
			}
			i++
			return args[i], nil
		}
		switch {
		case a == "-d":
			la.dump = true
		case a == "-c":
			la.clear = true
		case a == "-v" || a == "-b" || a == "-T" || a == "-t":
			v, err := next()
			if err != nil {
				return la, err
			}
			switch a {
			case "-v":
				if err := la.setFormat(v); err != nil {
					return la, err
				}
			case "-b":
				for _, b := range strings.Split(v, ",") {
					switch b {
					case "main", "system", "crash", "events", "radio", "all", "default":
						la.bufs = append(la.bufs, b)
					default:
						return la, fmt.Errorf("unknown buffer %q", b)
					}
				}
			case "-T", "-t":
				if a == "-t" {
					la.dump = true
				}
				if n, err := strconv.Atoi(v); err == nil && n >= 0 {
					la.tail = n
					continue
				}
				t, err := w.parseLogTime(v)
				if err != nil {
					return la, err
				}
				la.since = t
			}
		case strings.HasPrefix(a, "-v") && len(a) > 2:
			if err := la.setFormat(a[2:]); err != nil {
				return la, err
			}
		case strings.HasPrefix(a, "-b") && len(a) > 2:
			la.bufs = append(la.bufs, a[2:])
		case a == "-s" || a == "-B":
		case strings.HasPrefix(a, "-"):
			return la, fmt.Errorf("unknown option %q", a)
		default:
			la.filters = append(la.filters, a)
		}
	}
	return la, nil
}

// setFormat takes one -v argument: a format or a modifier, or several
// separated by commas ("threadtime,epoch"), as logcat since Android 7 does.
func (la *logcatArgs) setFormat(v string) error {
	for _, f := range strings.Split(v, ",") {
		switch f {
		case "threadtime", "time", "brief":
			la.Format = f
		case "epoch":
			la.Epoch = true
		case "monotonic":
			la.Monotonic = true
		case "year":
			la.Year = true
		case "usec":
			la.Usec = true
		default:
			return fmt.Errorf("unsupported output format %q", f)
		}
	}
	return nil
}

// parseLogTime reads 'MM-DD hh:mm:ss.mmm' in the device's wall clock.
func (w *World) parseLogTime(s string) (int64, error) {
	boot := w.bootWall.UTC()
	t, err := time.Parse("01-02 15:04:05.000", s)
	if err != nil {
		t, err = time.Parse("01-02 15:04:05", s)
	}
	if err != nil {
		return 0, fmt.Errorf("bad time %q: want 'MM-DD hh:mm:ss.mmm'", s)
	}
	t = time.Date(boot.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
	if t.Before(boot.AddDate(0, 0, -180)) {
		t = t.AddDate(1, 0, 0)
	}
	return int64(t.Sub(boot)), nil
}

func (la *logcatArgs) wants(e logEntry) bool {
	if len(la.bufs) == 0 {
		if e.buf != "main" && e.buf != "system" && e.buf != "crash" {
			return false
		}
	} else if !slices.Contains(la.bufs, e.buf) && !slices.Contains(la.bufs, "all") &&
		!(slices.Contains(la.bufs, "default") && e.buf != "events") {
		return false
	}
	if la.since >= 0 && e.at < la.since {
		return false
	}
	if len(la.filters) == 0 {
		return true
	}
	for _, f := range la.filters {
		tag, lvl, _ := strings.Cut(f, ":")
		if tag == "*" || tag == e.tag {
			return lvl != "S" && (lvl == "" || levelRank(e.level) >= levelRank(lvl[0]))
		}
	}
	return false
}

func levelRank(b byte) int {
	return strings.IndexByte("VDIWEFS", b)
}

// formatLog prints one entry the way logcat -v <format> does.
func (w *World) formatLog(la logcatArgs, e logEntry) string {
	t := w.bootWall.Add(time.Duration(e.at))
	if la.Monotonic {
		t = time.Unix(0, e.at)
	}
	return format.LogLine(la.LogFormat, t, e.pid, e.tid, e.level, e.tag, e.msg)
}

// Logcat runs `logcat [-d] [-c] [-v threadtime|time|brief|epoch|monotonic|year|usec]… [-T time|N]
// [-t N] [-b buffers] [tag:level...]`. Without -d it follows the log until
// ctx ends or stdout fails, as the real command does.
func (w *World) Logcat(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	w.mu.Lock()
	w.advanceLocked()
	la, err := w.parseLogcat(args)
	if err != nil {
		w.mu.Unlock()
		fmt.Fprintf(stderr, "logcat: %v\n", err)
		return 1
	}
	if la.clear {
		w.logs = nil
		w.mu.Unlock()
		return 0
	}
	var sel []logEntry
	for _, e := range w.logs {
		if e.at <= w.now && la.wants(e) {
			sel = append(sel, e)
		}
	}
	if la.tail > 0 && len(sel) > la.tail {
		sel = sel[len(sel)-la.tail:]
	}
	var b strings.Builder
	for _, e := range sel {
		b.WriteString(w.formatLog(la, e))
	}
	lastAt, lastSeq := w.now, w.logSeq
	w.mu.Unlock()
	if _, err := io.WriteString(stdout, b.String()); err != nil {
		return 1
	}
	if la.dump {
		return 0
	}
	seen := map[int64]bool{}
	for {
		w.mu.Lock()
		wake := w.logWake
		w.mu.Unlock()
		select {
		case <-ctx.Done():
			return 130
		case <-wake:
		case <-time.After(100 * time.Millisecond):
		}
		w.mu.Lock()
		w.advanceLocked()
		b.Reset()
		for _, e := range w.logs {
			// Entries stamped ahead of the clock wait for it; older ones
			// that arrived late (never, but cheap to guard) print once.
			if e.at <= w.now && (e.at > lastAt || (e.seq > lastSeq && !seen[e.seq] && !e.backdated)) && la.wants(e) {
				b.WriteString(w.formatLog(la, e))
				seen[e.seq] = true
			}
		}
		lastAt = w.now
		lastSeq = w.logSeq
		w.mu.Unlock()
		if b.Len() > 0 {
			if _, err := io.WriteString(stdout, b.String()); err != nil {
				return 1
			}
		}
	}
}

package simdevice

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/simdevice/internal/vfs"
)

// fileStore is the device's file tree as programs write to it.
type fileStore interface {
	WriteFile(p string, data []byte, mode fs.FileMode, mtime time.Time, appendData bool) error
	ReadFile(p string) ([]byte, error)
}

// recorder is one `simpleperf record` running on the device: a process
// pkill can signal.
type recorder struct {
	pid     int
	cmdline string
	tid     int // the thread recorded (the app's main thread)
	period  int64
	event   string
	start   int64
	stop    chan string // the signal that stops it
}

// perfDataMagic starts the recording files the simulated simpleperf
// writes (a real perf.data starts with "PERFILE2" too).
const perfDataMagic = "PERFILE2"

// perfData is what the simulated recording file holds.
type perfData struct {
	App     string       `json:"app"`
	Event   string       `json:"event"`
	Thread  string       `json:"thread"`
	Samples []perfSample `json:"samples"`
}

type perfSample struct {
	TimeNs int64    `json:"t"`
	TID    int      `json:"tid"`
	Period int64    `json:"p"`
	Stack  []string `json:"s"` // outermost first
}

// simpleperfLog writes one of simpleperf's log lines to stderr
// ("simpleperf E environment.cpp:681] …").
func simpleperfLog(w io.Writer, level byte, where, msg string) {
	fmt.Fprintf(w, "simpleperf %c %s] %s\n", level, where, msg)
}

// Simpleperf runs `simpleperf record` and `simpleperf report-sample`, the
// parts of Android's simpleperf (API 28+) a collector of main-thread stacks
// uses:
//
//	simpleperf record --app PKG -t TID -e cpu-clock -f 1000 -g --clockid monotonic -o FILE [--duration S]
//	simpleperf report-sample --show-callchain -i FILE
//
// record samples the thread until SIGINT, SIGTERM or SIGHUP (pkill), the
// duration or the thread's end, then writes FILE; it refuses an app that
// is neither debuggable nor profileable as simpleperf does.
func (w *World) Simpleperf(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stdout, "Usage: simpleperf [common options] subcommand [args_for_subcommand]")
		return 1
	}
	switch args[0] {
	case "record":
		return w.simpleperfRecord(ctx, args[1:], stderr)
	case "report-sample":
		return w.simpleperfReportSample(args[1:], stdout, stderr)
	}
	simpleperfLog(stderr, 'E', "main.cpp:98", "malformed command line: unknown command "+args[0])
	return 1
}

func (w *World) simpleperfRecord(ctx context.Context, args []string, stderr io.Writer) int {
	fail := func(e *simpleperfError) int {
		simpleperfLog(stderr, 'E', e.where, e.msg)
		return 1
	}
	o, perr := parseRecordArgs(args)
	if perr != nil {
		return fail(perr)
	}
	rec, perr := w.startRecorder(o, args)
	if perr != nil {
		return fail(perr)
	}
	sig := w.waitRecorder(ctx, rec, o.duration)
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.recorders, rec.pid)
	if sig == "KILL" {
		return 137
	}
	w.advanceLocked()
	started := rec.start
	data := perfData{App: o.app, Event: o.event, Thread: threadComm(w.wl.Package), Samples: w.sampleLocked(rec, started, w.now)}
	if perr := w.writePerfDataLocked(o.out, data); perr != nil {
		return fail(perr)
	}
	simpleperfLog(stderr, 'I', "cmd_record.cpp:824", fmt.Sprintf("Recorded for %.7g seconds. Start post processing.", float64(w.now-started)/1e9))
	simpleperfLog(stderr, 'I', "cmd_record.cpp:918", fmt.Sprintf("Samples recorded: %d. Samples lost: 0.", len(data.Samples)))
	return 0
}

// simpleperfError is what simpleperf logs at level E before it exits 1,
// and the source line it names.
type simpleperfError struct{ where, msg string }

// recordOpts are the options of simpleperf record.
type recordOpts struct {
	app, out, event, clock string
	tid                    int
	freq                   int64
	duration               float64
}

// parseRecordArgs reads simpleperf record's command line.
func parseRecordArgs(args []string) (recordOpts, *simpleperfError) {
	o := recordOpts{out: "perf.data", event: "cpu-cycles", clock: "monotonic", tid: -1, freq: 4000}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch a {
		case "-g", "--no-inherit", "--post-unwind=yes", "--post-unwind=no", "--trace-offcpu":
			continue
		case "--app", "-o", "-e", "-f", "-t", "--clockid", "--duration", "--call-graph":
			if i+1 >= len(args) {
				return o, &simpleperfError{"command.cpp:144", "No argument following " + a + " option. Try `simpleperf help record`"}
			}
			i++
			if err := o.set(a, args[i]); err != nil {
				return o, err
			}
		default:
			return o, &simpleperfError{"command.cpp:116", "Unknown option for record command: '" + a + "'"}
		}
	}
	switch o.event {
	case "cpu-clock", "task-clock", "cpu-cycles", "instructions":
	default:
		return o, &simpleperfError{"event_type.cpp:281", "Unknown event_type '" + o.event + "', try `simpleperf list` to list all possible event type names"}
	}
	switch o.clock {
	case "monotonic", "perf", "boottime", "monotonic_raw":
	default:
		return o, &simpleperfError{"cmd_record.cpp:901", "Invalid clockid: " + o.clock}
	}
	return o, nil
}

// set takes the value v of option a.
func (o *recordOpts) set(a, v string) *simpleperfError {
	switch a {
	case "--app":
		o.app = v
	case "-o":
		o.out = v
	case "-e":
		o.event = v
	case "--clockid":
		o.clock = v
	case "-f":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 || n > 100_000 {
			return &simpleperfError{"command.cpp:162", "Invalid argument for option -f: " + v}
		}
		o.freq = n
	case "-t":
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return &simpleperfError{"command.cpp:162", "Invalid tid '" + v + "'"}
		}
		o.tid = n
	case "--duration":
		d, err := strconv.ParseFloat(v, 64)
		if err != nil || d <= 0 {
			return &simpleperfError{"command.cpp:162", "Invalid argument for option --duration: " + v}
		}
		o.duration = d
	case "--call-graph":
		if v != "fp" && !strings.HasPrefix(v, "dwarf") {
			return &simpleperfError{"cmd_record.cpp:867", "unexpected argument for --call-graph option: " + v}
		}
	}
	return nil
}

// startRecorder starts recording the app's thread, when simpleperf may.
func (w *World) startRecorder(o recordOpts, args []string) (*recorder, *simpleperfError) {
	if o.app == "" && !w.cfg.Root {
		return nil, &simpleperfError{"event_fd.cpp:105", "Failed to open perf event file: Permission denied (profiling other users' processes needs root or --app)"}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	profileable := w.wl.Debuggable || w.wl.Profileable && w.cfg.API >= 29 || w.cfg.Root
	if o.app != w.wl.Package || !profileable {
		return nil, &simpleperfError{"environment.cpp:681", "Package " + o.app + " doesn't exist or isn't debuggable/profileable."}
	}
	a := w.app
	tid := o.tid
	if tid < 0 && a != nil {
		tid = a.pid
	}
	if a == nil || tid != a.pid {
		return nil, &simpleperfError{"event_selection_set.cpp:540", fmt.Sprintf("failed to open perf event file for event type %s for thread %d: No such process", o.event, tid)}
	}
	w.recPid++
	rec := &recorder{pid: 21000 + w.recPid, cmdline: "simpleperf record " + strings.Join(args, " "), tid: tid,
		period: int64(time.Second) / o.freq, event: o.event, start: w.now, stop: make(chan string, 1)}
	w.recorders[rec.pid] = rec
	return rec, nil
}

// waitRecorder waits for the recording's end: a signal (which it
// returns), the duration, or the thread's end. A context done is "KILL".
func (w *World) waitRecorder(ctx context.Context, rec *recorder, duration float64) (sig string) {
	var until <-chan time.Time
	if duration > 0 {
		t := time.NewTimer(time.Duration(duration / w.speed * float64(time.Second)))
		defer t.Stop()
		until = t.C
	}
	poll := time.NewTicker(20 * time.Millisecond)
	defer poll.Stop()
	for {
		select {
		case <-ctx.Done():
			return "KILL" // the shell went away: nothing is written
		case sig = <-rec.stop:
			return sig
		case <-until:
			return ""
		case <-poll.C:
			w.mu.Lock()
			w.advanceLocked()
			gone := w.app == nil || w.app.pid != rec.tid
			w.mu.Unlock()
			if gone {
				return "" // no thread left to record
			}
		}
	}
}

// writePerfDataLocked writes the recording to the file out.
func (w *World) writePerfDataLocked(out string, data perfData) *simpleperfError {
	b, err := json.Marshal(data)
	if err != nil {
		return &simpleperfError{"record_file_writer.cpp:52", err.Error()}
	}
	path := vfs.Clean(out, "/")
	if w.files == nil {
		return &simpleperfError{"record_file_writer.cpp:52", "failed to open record file '" + out + "': Read-only file system"}
	}
	if err := w.files.WriteFile(path, append([]byte(perfDataMagic), b...), 0o644, w.bootWall.Add(time.Duration(w.now)), false); err != nil {
		return &simpleperfError{"record_file_writer.cpp:52", "failed to open record file '" + out + "': " + errWords(err)}
	}
	return nil
}

// errWords is the strerror text of a file error.
func errWords(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	s := err.Error()
	if s == "" {
		return "error"
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// threadComm is the main thread's name as the kernel keeps it: the last 15
// characters of the process name.
func threadComm(pkg string) string {
	if len(pkg) > 15 {
		return pkg[len(pkg)-15:]
	}
	return pkg
}

// sampleLocked samples the recorded thread every period over [from, to]:
// one sample each time it was on a CPU (cpu-clock counts only then).
func (w *World) sampleLocked(rec *recorder, from, to int64) []perfSample {
	var out []perfSample
	for _, r := range w.runs {
		if r.pid != rec.tid || r.end <= from || r.start >= to {
			continue
		}
		lo, hi := max(r.start, from), min(r.end, to)
		// Samples fall on the period's grid from the recording's start.
		t := from + (lo-from+rec.period-1)/rec.period*rec.period
		for ; t < hi; t += rec.period {
			out = append(out, perfSample{TimeNs: t, TID: rec.tid, Period: rec.period, Stack: r.stack})
		}
	}
	return out
}

func (w *World) simpleperfReportSample(args []string, stdout, stderr io.Writer) int {
	data, callchain, perr := w.readReportInput(args)
	if perr != nil {
		simpleperfLog(stderr, 'E', perr.where, perr.msg)
		return 1
	}
	// The report is built with appends: a recording of a few seconds
	// has thousands of samples, each a dozen lines.
	b := make([]byte, 0, 64<<10)
	b = append(b, "meta_info:\n  trace_offcpu: false\n  event_type: "...)
	b = append(b, data.Event+"\n"...)
	if data.App != "" {
		b = append(b, "  app_package_name: "+data.App+"\n"...)
	}
	sampleHead := "sample:\n  event_type: " + data.Event + "\n  time: "
	methods := map[string]methodFrame{}
	for _, s := range data.Samples {
		b = append(b, sampleHead...)
		b = strconv.AppendInt(b, s.TimeNs, 10)
		b = append(b, "\n  event_count: "...)
		b = strconv.AppendInt(b, s.Period, 10)
		b = append(b, "\n  thread_id: "...)
		b = strconv.AppendInt(b, int64(s.TID), 10)
		b = append(b, "\n  thread_name: "+data.Thread+"\n"...)
		b = w.appendCallchain(b, s, callchain, methods)
	}
	b = append(b, "lost_situation:\n  sample_count: "...)
	b = strconv.AppendInt(b, int64(len(data.Samples)), 10)
	b = append(b, "\n  lost_count: 0\n"...)
	if _, err := stdout.Write(b); err != nil {
		return 1
	}
	return 0
}

// readReportInput reads report-sample's command line and the recording it
// names; callchain tells whether to print whole stacks.
func (w *World) readReportInput(args []string) (data perfData, callchain bool, perr *simpleperfError) {
	in := "perf.data"
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "-i":
			if i+1 >= len(args) {
				return data, false, &simpleperfError{"command.cpp:144", "No argument following -i option. Try `simpleperf help report-sample`"}
			}
			i++
			in = args[i]
		case "--show-callchain":
			callchain = true
		case "--remove-unknown-kernel-symbols", "--show-art-frames", "--show-execution-type":
		default:
			return data, false, &simpleperfError{"command.cpp:116", "Unknown option for report-sample command: '" + a + "'"}
		}
	}
	var raw []byte
	err := fs.ErrNotExist
	if w.files != nil {
		raw, err = w.files.ReadFile(vfs.Clean(in, "/"))
	}
	if err != nil {
		return data, false, &simpleperfError{"record_file_reader.cpp:81", "failed to open record file '" + in + "': " + errWords(err)}
	}
	if !bytes.HasPrefix(raw, []byte(perfDataMagic)) || json.Unmarshal(raw[len(perfDataMagic):], &data) != nil {
		return data, false, &simpleperfError{"record_file_reader.cpp:120", in + " is not a valid perf.data file"}
	}
	return data, callchain, nil
}

// appendCallchain appends a sample's frames, innermost first: only the
// innermost without callchain.
func (w *World) appendCallchain(b []byte, s perfSample, callchain bool, methods map[string]methodFrame) []byte {
	frames := s.Stack
	if !callchain && len(frames) > 0 {
		frames = frames[len(frames)-1:]
	}
	for i := len(frames) - 1; i >= 0; i-- {
		indent := "  "
		if i < len(frames)-1 {
			indent = "    "
		}
		if i == len(frames)-2 {
			b = append(b, "  callchain:\n"...)
		}
		m, ok := methods[frames[i]]
		if !ok {
			m = w.methodFrameOf(frames[i])
			methods[frames[i]] = m
		}
		file, sym := m.at(s.TimeNs)
		b = append(b, indent+"vaddr_in_file: "...)
		b = strconv.AppendUint(b, m.addr, 16)
		b = append(b, '\n')
		b = append(b, indent+"file: "...)
		b = append(b, file...)
		b = append(b, '\n')
		b = append(b, indent+"symbol: "...)
		b = append(b, sym...)
		b = append(b, '\n')
	}
	return b
}

// methodFrame is how report-sample prints a Java method of the main
// thread's stack: the app's own methods from its compiled odex
// ("void a.B.c()") or, now and then, from the JIT cache; the framework's
// from the boot image.
type methodFrame struct {
	method, file, symbol string
	addr                 uint64
	app                  bool // the app's own: now and then from the JIT cache
}

// at is the file and symbol of the method in a sample taken at t.
func (m methodFrame) at(t int64) (file, symbol string) {
	if m.app && (t/1_000_000+int64(m.addr))%5 == 0 {
		return "[JIT app cache]", m.method
	}
	return m.file, m.symbol
}

func (w *World) methodFrameOf(method string) methodFrame {
	h := fnv.New64a()
	h.Write([]byte(method))
	m := methodFrame{method: method, symbol: method, addr: h.Sum64()&0xffffff | 0x1000}
	switch {
	case strings.HasPrefix(method, w.wl.Package+"."):
		m.app = true
		m.file, m.symbol = strings.TrimSuffix(w.appPath(), "base.apk")+"oat/arm64/base.odex", "void "+method+"()"
	case strings.HasPrefix(method, "java.") || strings.HasPrefix(method, "dalvik."):
		m.file = "/apex/com.android.art/javalib/arm64/boot.oat"
	default:
		m.file = "/system/framework/arm64/boot-framework.oat"
	}
	return m
}

// Pkill runs toybox's `pkill [-SIGNAL] [-f] [-x] PATTERN`: it signals the
// device's simpleperf recordings whose name (or, with -f, command line)
// matches the extended regular expression PATTERN. The app's processes run
// under another uid and take no signal from the shell. It exits 1 when it
// signalled nothing.
func (w *World) Pkill(args []string, stdout, stderr io.Writer) int {
	sig, full, exact, pattern := "TERM", false, false, ""
	for _, a := range args {
		switch {
		case a == "-f":
			full = true
		case a == "-x":
			exact = true
		case strings.HasPrefix(a, "-") && len(a) > 1:
			sig = strings.TrimPrefix(strings.ToUpper(a[1:]), "SIG")
			switch sig {
			case "INT", "TERM", "HUP", "KILL", "2", "15", "1", "9":
			default:
				fmt.Fprintf(stderr, "pkill: unknown signal '%s'\n", a[1:])
				return 1
			}
		default:
			pattern = a
		}
	}
	if pattern == "" {
		fmt.Fprintln(stderr, "pkill: Need 1 argument")
		return 1
	}
	if exact {
		pattern = "^(" + pattern + ")$"
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		fmt.Fprintf(stderr, "pkill: bad regex '%s'\n", pattern)
		return 1
	}
	switch sig {
	case "2":
		sig = "INT"
	case "15":
		sig = "TERM"
	case "1":
		sig = "HUP"
	case "9":
		sig = "KILL"
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	hit := false
	for _, r := range w.recorders {
		name := "simpleperf"
		if full {
			name = r.cmdline
		}
		if re.MatchString(name) {
			select {
			case r.stop <- sig:
			default:
			}
			hit = true
		}
	}
	if !hit {
		return 1
	}
	return 0
}

// TruthMainRunning is how long the app's main thread ran on a CPU over
// [from, to) of the phone's uptime, in every process of the app: what
// simpleperf's cpu-clock samples, one sample a period while it runs. The
// phone keeps the last few hundred thousand stretches of it.
func (w *World) TruthMainRunning(from, to time.Duration) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	var d int64
	for _, r := range w.runs {
		if lo, hi := max(r.start, int64(from)), min(r.end, int64(to)); hi > lo {
			d += hi - lo
		}
	}
	return time.Duration(d)
}

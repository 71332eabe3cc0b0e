package simdevice

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/perfgate/perfgate/simdevice/internal/pbtxt"
	"github.com/perfgate/perfgate/simdevice/internal/shell"
	"github.com/perfgate/perfgate/simdevice/internal/vfs"
)

// The simulated phone's perfetto: `perfetto --txt -c - -o FILE
// [--background | --background-wait]` reads a text trace config from
// standard input and records a real Perfetto trace of the app's workload
// (trace_write.go) into FILE under /data/misc/perfetto-traces, from which
// `adb pull` takes it. In the background it prints its pid and traces until
// `kill PID` (or the config's duration_ms); it then writes the file and
// exits a moment later, so a reader must wait for the process to end (the
// file is incomplete until then). What each Android version's perfetto
// accepts: --txt from API 29, --query from API 30, FrameTimeline from API
// 31, --background-wait from API 33. `perfetto --query` lists the data
// sources the tracing service has; Quirks.MissingDataSources takes some
// away, and Quirks.MissingCommands can take perfetto itself. While it
// records, `ps -A -o PID,ARGS` lists it with its command line, as a
// phone's toybox ps does, so its output file tells whose it is. Its file's
// times are the device's wall clock (stat -c %Y, date +%s).

// perfettoExitDelay is how long a stopped perfetto takes to write its file
// and exit, in host time.
const perfettoExitDelay = 30 * time.Millisecond

// perfettoConfig is what the simulated perfetto takes from a text config.
type perfettoConfig struct {
	durationMs       int64
	bufferKB         []int64
	sources          []string
	ftraceEvents     []string
	atraceCategories []string
	atraceApps       []string
	compactSched     bool
}

// Field names perfetto's text config parser knows, per message; another
// name fails as it does on a phone. Messages of other data sources'
// configs are not checked.
var (
	traceConfigFields = []string{"buffers", "data_sources", "builtin_data_sources", "duration_ms", "enable_extra_guardrails",
		"lockdown_mode", "producers", "statsd_metadata", "write_into_file", "output_path", "file_write_period_ms",
		"max_file_size_bytes", "guardrail_overrides", "deferred_start", "flush_period_ms", "flush_timeout_ms",
		"data_source_stop_timeout_ms", "notify_traceur", "bugreport_score", "trigger_config", "activate_triggers",
		"incremental_state_config", "allow_user_build_tracing", "unique_session_name", "compression_type",
		"incident_report_config", "statsd_logging", "trace_uuid_msb", "trace_uuid_lsb", "trace_filter",
		"android_report_config", "cmd_trace_start_delay", "session_semaphores", "prefer_suspend_clock_for_duration", "exclusive_prio"}
	dataSourceConfigFields = []string{"name", "target_buffer", "trace_duration_ms", "prefer_suspend_clock_for_duration",
		"stop_timeout_ms", "enable_extra_guardrails", "session_initiator", "tracing_session_id", "ftrace_config",
		"inode_file_config", "process_stats_config", "sys_stats_config", "heapprofd_config", "java_hprof_config",
		"android_power_config", "android_log_config", "gpu_counter_config", "android_game_intervention_list_config",
		"packages_list_config", "perf_event_config", "vulkan_memory_config", "track_event_config",
		"android_polled_state_config", "android_system_property_config", "statsd_tracing_config", "system_info_config",
		"chrome_config", "v8_config", "interceptor_config", "network_packet_trace_config", "surfaceflinger_layers_config",
		"surfaceflinger_transactions_config", "android_sdk_sysprop_guard_config", "etw_config", "protolog_config",
		"android_input_event_config", "pixel_modem_config", "windowmanager_config", "chromium_system_metrics",
		"kernel_wakelocks_config", "gpu_renderstages_config", "chromium_histogram_samples", "app_wakelocks_config",
		"cpu_per_uid_config", "user_list_config", "inputmethod_config", "legacy_config", "for_testing"}
	ftraceConfigFields = []string{"ftrace_events", "atrace_categories", "atrace_apps", "atrace_categories_prefer_sdk",
		"buffer_size_kb", "drain_period_ms", "drain_buffer_percent", "compact_sched", "print_filter", "symbolize_ksyms",
		"ksyms_mem_policy", "initialize_ksyms_synchronously_for_testing", "throttle_rss_stat", "disable_generic_events",
		"syscall_events", "enable_function_graph", "function_filters", "function_graph_roots", "preserve_ftrace_buffer",
		"use_monotonic_raw_clock", "instance_name", "buffer_size_lower_bound", "kprobe_events", "debug_ftrace_abi",
		"tids_to_trace", "tracefs_options", "tracing_cpumask", "atrace_userspace_only", "denser_generic_event_encoding"}
)

// parsePerfettoConfig reads a text trace config.
func parsePerfettoConfig(b []byte) (perfettoConfig, error) {
	var c perfettoConfig
	m, err := pbtxt.Parse(b)
	if err != nil {
		return c, err
	}
	check := func(m *pbtxt.Message, proto string, names []string) error {
		for _, f := range m.Fields {
			if !slices.Contains(names, f.Name) {
				return &pbtxt.Error{Line: f.Line, Msg: fmt.Sprintf("No field named %q in proto %s", f.Name, proto)}
			}
		}
		return nil
	}
	if err := check(m, "TraceConfig", traceConfigFields); err != nil {
		return c, err
	}
	if v, ok, err := m.Int("duration_ms"); err != nil {
		return c, err
	} else if ok {
		c.durationMs = v
	}
	for _, bf := range m.All("buffers") {
		if bf.Msg == nil {
			return c, &pbtxt.Error{Line: bf.Line, Msg: "buffers: want a message"}
		}
		kb, _, err := bf.Msg.Int("size_kb")
		if err != nil {
			return c, err
		}
		c.bufferKB = append(c.bufferKB, kb)
	}
	for _, ds := range m.All("data_sources") {
		if ds.Msg == nil {
			return c, &pbtxt.Error{Line: ds.Line, Msg: "data_sources: want a message"}
		}
		cf, ok := ds.Msg.Get("config")
		if !ok || cf.Msg == nil {
			continue
		}
		if err := check(cf.Msg, "DataSourceConfig", dataSourceConfigFields); err != nil {
			return c, err
		}
		name, _ := cf.Msg.Get("name")
		c.sources = append(c.sources, name.Value)
		ft, ok := cf.Msg.Get("ftrace_config")
		if !ok || ft.Msg == nil {
			continue
		}
		if err := check(ft.Msg, "FtraceConfig", ftraceConfigFields); err != nil {
			return c, err
		}
		c.ftraceEvents = append(c.ftraceEvents, ft.Msg.Strings("ftrace_events")...)
		c.atraceCategories = append(c.atraceCategories, ft.Msg.Strings("atrace_categories")...)
		c.atraceApps = append(c.atraceApps, ft.Msg.Strings("atrace_apps")...)
		if cs, ok := ft.Msg.Get("compact_sched"); ok && cs.Msg != nil {
			on, _, err := cs.Msg.Bool("enabled")
			if err != nil {
				return c, err
			}
			c.compactSched = on
		}
	}
	if len(c.sources) == 0 {
		return c, &pbtxt.Error{Line: 1, Msg: "The trace config has no data source"}
	}
	return c, nil
}

// dataSources lists the data sources the phone's tracing service has.
func (d *Device) dataSources() []string {
	all := []string{dsFtrace, dsProcessStats, "linux.sys_stats", "android.packages_list", "android.log", "android.power", "track_event"}
	if d.cfg.API >= 31 {
		all = append(all, dsFrameTimeline)
	}
	return slices.DeleteFunc(all, func(s string) bool { return slices.Contains(d.cfg.Quirks.MissingDataSources, s) })
}

// perfettoRuns are the perfetto processes running in the background.
type perfettoRuns struct {
	mu   sync.Mutex
	next int
	runs map[int]*perfettoRun
}

// perfettoRun is one perfetto process.
type perfettoRun struct {
	pid     int
	path    string // the output file, canonical
	args    string // the command line, as ps -o ARGS shows it
	job     traceJob
	stopped bool
	exited  chan struct{}
	timer   *time.Timer
}

// perfettoLog prints a line as perfetto logs to stderr on a phone.
func perfettoLog(w io.Writer, up time.Duration, line int, format string, args ...any) {
	fmt.Fprintf(w, "[%10.3f] %21s:%-4d %s\n", up.Seconds(), "perfetto_cmd.cc", line, fmt.Sprintf(format, args...))
}

// perfetto is the device's perfetto command.
func (d *Device) perfetto(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	w := d.world
	up := w.Uptime()
	o, code, done := d.parsePerfettoArgs(args, stdout, stderr)
	if done {
		return code
	}
	if o.query {
		if len(args) > 1 {
			perfettoLog(stderr, up, 598, "--query cannot be combined with any other argument")
			return 1
		}
		d.perfettoQuery(stdout)
		return 0
	}
	if o.cfgPath == "" {
		return perfettoUsage(stderr, "perfetto: the simulated perfetto takes a config (-c); light mode is not simulated")
	}
	cfg, ok := d.loadPerfettoConfig(ctx, o, up, stderr)
	if !ok {
		return 1
	}
	if o.out == "" {
		perfettoLog(stderr, up, 870, "Either --out or --upload is required")
		return 1
	}
	path := vfs.Clean(o.out, "/")
	if err := d.createTraceFile(path); err != nil {
		perfettoLog(stderr, up, 1353, "Failed to open %s. If you get permission denied in /data/misc/perfetto-traces, the file might have been created by another user, try deleting it first.: %s", o.out, shell.ErrText(err))
		return 1
	}
	run := d.newPerfettoRun(path, cfg, up, strings.Join(append([]string{"perfetto"}, args...), " "))
	if !o.bg {
		perfettoLog(stderr, up, 1167, "Connected to the Perfetto traced service, starting tracing")
		return d.waitPerfetto(ctx, run, cfg, o.out, stderr)
	}
	if cfg.durationMs > 0 {
		run.timer = time.AfterFunc(d.world.hostSpan(time.Duration(cfg.durationMs)*time.Millisecond), func() { d.stopPerfetto(run) })
	}
	fmt.Fprintf(stdout, "%d\n", run.pid)
	return 0
}

// perfettoOpts are the perfetto command's options.
type perfettoOpts struct {
	cfgPath, out   string
	txt, bg, query bool
}

// perfettoUsage prints msg and perfetto's usage, and is its exit code.
func perfettoUsage(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "%s\nUsage: perfetto\n  --background     -d      : Exits immediately and continues in the background.\n  --config         -c      : /path/to/trace/config/file or - for stdin\n  --out            -o      : /path/to/out/trace/file or - for stdout\n  --txt                    : Parse config as pbtxt. Not for production use.\n  --query                  : Queries the service state and prints it.\n", msg)
	return 1
}

// parsePerfettoArgs reads perfetto's command line, the options this
// device's Android version has; done with the exit code when it has
// nothing more to do (usage, --version).
func (d *Device) parsePerfettoArgs(args []string, stdout, stderr io.Writer) (o perfettoOpts, code int, done bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		value := func() (string, bool) {
			if k := strings.IndexByte(a, '='); strings.HasPrefix(a, "--") && k > 0 {
				return a[k+1:], true
			}
			if i+1 < len(args) {
				i++
				return args[i], true
			}
			return "", false
		}
		name, _, _ := strings.Cut(a, "=")
		switch {
		case name == "-c" || name == "--config":
			v, ok := value()
			if !ok {
				return o, perfettoUsage(stderr, "perfetto: option requires an argument -- 'c'"), true
			}
			o.cfgPath = v
		case name == "-o" || name == "--out":
			v, ok := value()
			if !ok {
				return o, perfettoUsage(stderr, "perfetto: option requires an argument -- 'o'"), true
			}
			o.out = v
		case a == "--txt" && d.cfg.API >= 29:
			o.txt = true
		case a == "-d" || a == "--background":
			o.bg = true
		case (a == "-D" || a == "--background-wait") && d.cfg.API >= 33:
			o.bg = true
		case a == "--query" && d.cfg.API >= 30:
			o.query = true
		case a == "--version":
			fmt.Fprintf(stdout, "Perfetto v%d.0 (simulated)\n", d.cfg.API-2)
			return o, 0, true
		case a == "-h" || a == "--help":
			return o, perfettoUsage(stderr, ""), true
		default:
			return o, perfettoUsage(stderr, fmt.Sprintf("perfetto: unrecognized option '%s'", a)), true
		}
	}
	return o, 0, false
}

// loadPerfettoConfig reads and parses the config; false after the error
// is logged.
func (d *Device) loadPerfettoConfig(ctx context.Context, o perfettoOpts, up time.Duration, stderr io.Writer) (perfettoConfig, bool) {
	var raw []byte
	var err error
	if o.cfgPath == "-" {
		raw, err = io.ReadAll(shell.Stdin(ctx))
	} else {
		raw, err = d.readPerfettoConfig(o.cfgPath)
	}
	if err != nil {
		perfettoLog(stderr, up, 363, "Could not open %s. If this is a permission denied error, try placing the config in /data/misc/perfetto-configs: Perfetto should always be able to access this directory.: %s", o.cfgPath, shell.ErrText(err))
		return perfettoConfig{}, false
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		perfettoLog(stderr, up, 680, "The TraceConfig is empty")
		return perfettoConfig{}, false
	}
	if !o.txt {
		// The simulation reads only text configs; a text one without --txt
		// fails as on a phone.
		perfettoLog(stderr, up, 704, "The trace config is invalid, bailing out.")
		perfettoLog(stderr, up, 709, "Try adding --txt to the cmdline.")
		return perfettoConfig{}, false
	}
	cfg, err := parsePerfettoConfig(raw)
	if err != nil {
		name := o.cfgPath
		if name == "-" {
			name = "<stdin>"
		}
		fmt.Fprintf(stderr, "%s:%v\n", name, err)
		perfettoLog(stderr, up, 704, "The trace config is invalid, bailing out.")
		return perfettoConfig{}, false
	}
	return cfg, true
}

// waitPerfetto waits for a foreground recording's end: its duration, its
// own end, or the shell hanging up (which kills it unwritten).
func (d *Device) waitPerfetto(ctx context.Context, run *perfettoRun, cfg perfettoConfig, out string, stderr io.Writer) int {
	var timeout <-chan time.Time
	if cfg.durationMs > 0 {
		t := time.NewTimer(d.world.hostSpan(time.Duration(cfg.durationMs) * time.Millisecond))
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-ctx.Done():
		// adbd hangs the process up: it dies without writing.
		d.endPerfetto(run, false)
		return 130
	case <-timeout:
		d.stopPerfetto(run)
	case <-run.exited:
	}
	<-run.exited
	if n, err := d.fs.ReadFile(run.path); err == nil {
		perfettoLog(stderr, d.world.Uptime(), 1321, "Wrote %d bytes into %s", len(n), out)
	}
	return 0
}

// readPerfettoConfig reads a config file as perfetto's SELinux domain may:
// before Android 12 nothing a non-rooted shell can write, from Android 12
// /data/misc/perfetto-configs.
func (d *Device) readPerfettoConfig(p string) ([]byte, error) {
	cp := vfs.Clean(p, "/")
	if !d.cfg.Root && (d.cfg.API < 31 || !strings.HasPrefix(cp, "/data/misc/perfetto-configs/")) {
		return nil, fs.ErrPermission
	}
	return d.fs.ReadFile(cp)
}

// createTraceFile creates the empty output file: the shell user's perfetto
// writes only into /data/misc/perfetto-traces.
func (d *Device) createTraceFile(p string) error {
	if !d.cfg.Root && !strings.HasPrefix(p, vfs.PerfettoDir+"/") {
		return fs.ErrPermission
	}
	return d.fs.WriteFile(p, nil, 0o600, d.world.Wall(), false)
}

// hostSpan is how long a span of device time takes on the host.
func (w *World) hostSpan(d time.Duration) time.Duration {
	return time.Duration(float64(d) / w.speed)
}

// newPerfettoRun starts recording at device time up.
func (d *Device) newPerfettoRun(path string, cfg perfettoConfig, up time.Duration, args string) *perfettoRun {
	have := d.dataSources()
	sources := map[string]bool{}
	for _, s := range cfg.sources {
		if slices.Contains(have, s) {
			sources[s] = true
		}
	}
	pr := &d.perfettoRuns
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.runs == nil {
		pr.runs = map[int]*perfettoRun{}
		pr.next = 20000 + int(up/time.Millisecond)%5000
	}
	pr.next += 3
	run := &perfettoRun{pid: pr.next, path: path, args: args, exited: make(chan struct{})}
	run.job = d.world.traceJob(int64(up))
	run.job.cfg, run.job.sources = cfg, sources
	pr.runs[run.pid] = run
	return run
}

// stopPerfetto ends a recording now: the file is written, half at once and
// whole when the process exits a moment later.
func (d *Device) stopPerfetto(run *perfettoRun) {
	pr := &d.perfettoRuns
	pr.mu.Lock()
	if run.stopped {
		pr.mu.Unlock()
		return
	}
	run.stopped = true
	if run.timer != nil {
		run.timer.Stop()
	}
	pr.mu.Unlock()
	job := run.job
	d.world.finishTraceJob(&job)
	var buf bytes.Buffer
	if err := job.write(&buf); err != nil {
		d.endPerfetto(run, false)
		return
	}
	data := buf.Bytes()
	d.fs.WriteFile(run.path, data[:len(data)/2], 0o600, d.world.Wall(), false)
	time.AfterFunc(perfettoExitDelay, func() {
		d.fs.WriteFile(run.path, data, 0o600, d.world.Wall(), false)
		d.endPerfetto(run, true)
	})
}

// endPerfetto makes the process exit.
func (d *Device) endPerfetto(run *perfettoRun, _ bool) {
	pr := &d.perfettoRuns
	pr.mu.Lock()
	defer pr.mu.Unlock()
	run.stopped = true
	if run.timer != nil {
		run.timer.Stop()
	}
	select {
	case <-run.exited:
	default:
		close(run.exited)
	}
}

// Settle waits until no process of the phone is between a stop signal and
// its exit: a perfetto that was told to stop writes its file and exits a
// moment later. After Settle what the phone shows (files, processes) stays
// as it is until a command changes it.
func (d *Device) Settle() {
	pr := &d.perfettoRuns
	pr.mu.Lock()
	var ending []chan struct{}
	for _, r := range pr.runs {
		if r.stopped {
			ending = append(ending, r.exited)
		}
	}
	pr.mu.Unlock()
	for _, c := range ending {
		<-c
	}
}

// killPerfetto is kill(2) for the perfetto processes: SIGTERM, SIGINT and
// SIGHUP stop the recording (the file is written, then the process exits),
// SIGKILL kills it without a file, 0 probes.
func (d *Device) killPerfetto(pid, sig int) (bool, error) {
	pr := &d.perfettoRuns
	pr.mu.Lock()
	run, ok := pr.runs[pid]
	pr.mu.Unlock()
	if !ok {
		return false, nil
	}
	select {
	case <-run.exited:
		return true, syscall.ESRCH
	default:
	}
	switch sig {
	case 0:
	case 1, 2, 15:
		d.stopPerfetto(run)
	case 9:
		d.endPerfetto(run, false)
	}
	return true, nil
}

// perfettoQuery prints the tracing service's state as `perfetto --query`
// does: the producers and the data sources they registered.
func (d *Device) perfettoQuery(w io.Writer) {
	fmt.Fprintf(w, "\nNot meant for machine consumption. Use --query-raw for scripts.\n\nService: Perfetto v%d.0 (simulated)\nTracing sessions: %d (started: %d)\n", d.cfg.API-2, d.runningTraces(), d.runningTraces())
	fmt.Fprint(w, "\n\nPRODUCER PROCESSES CONNECTED:\n\nID     PID      UID      FLAGS  NAME                                       SDK\n==     ===      ===      =====  ====                                       ===\n")
	fmt.Fprintf(w, "%-6d %-8d %-8d %-6s %-42s %s\n", 1, 598, 9999, "", "perfetto:traced_probes", "")
	fmt.Fprintf(w, "%-6d %-8d %-8d %-6s %-42s %s\n", 2, pidSF, 1000, "", "android.surfaceflinger.frametimeline", "")
	fmt.Fprint(w, "\n\nDATA SOURCES REGISTERED:\n\nNAME                                     PRODUCER                     DETAILS\n===                                      ========                     ========\n")
	for _, s := range d.dataSources() {
		prod := "perfetto:traced_probes (1)"
		if s == dsFrameTimeline {
			prod = "android.surfaceflinger.frametimeline (2)"
		}
		fmt.Fprintf(w, "%-40s %-28s \n", s, prod)
	}
}

// perfettoProcs lists the perfetto processes that have not exited, as ps
// shows them: the shell's, daemonised (parent init).
func (d *Device) perfettoProcs() []bgProc {
	pr := &d.perfettoRuns
	pr.mu.Lock()
	defer pr.mu.Unlock()
	var out []bgProc
	for _, r := range pr.runs {
		select {
		case <-r.exited:
			continue
		default:
		}
		out = append(out, bgProc{sysProc{"shell", r.pid, 1, 10_940_512, 7_812, "do_epoll_wait", "perfetto"}, r.args})
	}
	return out
}

// runningTraces counts the perfetto processes still recording.
func (d *Device) runningTraces() int {
	pr := &d.perfettoRuns
	pr.mu.Lock()
	defer pr.mu.Unlock()
	n := 0
	for _, r := range pr.runs {
		if !r.stopped {
			n++
		}
	}
	return n
}

// traceJob starts a trace job at device time start: the phone's identity,
// clocks and the app's process now.
func (w *World) traceJob(start int64) traceJob {
	fingerprint := w.Props()["ro.build.fingerprint"]
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	p := products[w.cfg.API]
	j := traceJob{
		start:      start,
		bootOffset: w.realtimeLocked() - w.now,
		wall:       w.bootWall,
		api:        w.cfg.API,
		pkg:        w.wl.Package,
		window:     w.window,
		layer:      "TX - " + w.window + "#0",
		period:     w.period,
		kernel:     p.kernel,
	}
	j.device = fingerprint
	if w.app != nil {
		j.appPID = w.app.pid
	}
	return j
}

// finishTraceJob ends a trace job now: the frames of the app's window it
// covers are those presented or in flight (the popup window of
// FrameQuirks.PopupEvery is left out).
func (w *World) finishTraceJob(j *traceJob) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	j.end = w.now
	for _, f := range w.frames {
		if f.IntendedVsync >= j.start && f.Window == j.window {
			j.frames = append(j.frames, f)
		}
	}
	for _, f := range w.died {
		if f.IntendedVsync >= j.start && f.Window == j.window {
			j.frames = append(j.frames, f)
		}
	}
	j.frames = append(j.frames, w.pending...)
	for _, ts := range w.startup {
		if ts.StartNs >= j.start && ts.StartNs < j.end {
			j.launches = append(j.launches, ts)
		}
	}
}

package simdevice

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/android/logcat"
	"github.com/perfgate/perfgate/android/profiler"
)

func runProg(f func(args []string, stdout, stderr io.Writer) int, args ...string) (int, string, string) {
	var o, e bytes.Buffer
	st := f(args, &o, &e)
	return st, o.String(), e.String()
}

const looperProp = "log.looper.10234.main.slow"

func TestSetprop(t *testing.T) {
	w, _ := newTestWorld(t, Config{Workload: mustPreset(t, "janky-feed")})
	if st, _, e := runProg(w.Setprop, looperProp, "16"); st != 0 || e != "" {
		t.Fatalf("setprop: %d %q", st, e)
	}
	if v, ok := w.Prop(looperProp); !ok || v != "16" {
		t.Errorf("getprop after setprop: %q %v", v, ok)
	}
	// Setting it back to empty unsets it, as getprop sees it.
	runProg(w.Setprop, looperProp, "")
	if v, ok := w.Prop(looperProp); ok {
		t.Errorf("property still set: %q", v)
	}
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{looperProp}, "usage: setprop NAME VALUE"},
		{[]string{"log..x", "1"}, "Invalid property name 'log..x'"},
		{[]string{"log.x", strings.Repeat("v", 92)}, "is too long, 92 bytes vs a max of 92"},
		{[]string{"ro.debuggable", "1"}, "Failed to set property 'ro.debuggable' to '1'.\nSee dmesg for error reason.\n"},
		{[]string{"persist.sys.timezone", "UTC"}, "Failed to set property 'persist.sys.timezone' to 'UTC'."},
	} {
		if st, _, e := runProg(w.Setprop, tc.args...); st != 1 || !strings.Contains(e, tc.err) {
			t.Errorf("setprop %q: %d %q, want 1 and %q", tc.args, st, e, tc.err)
		}
	}
	denied, _ := newTestWorld(t, Config{Workload: mustPreset(t, "janky-feed"), Quirks: Quirks{DeniedProperties: []string{"log.looper.*"}}})
	if st, _, e := runProg(denied.Setprop, looperProp, "16"); st != 1 || !strings.HasPrefix(e, "Failed to set property '"+looperProp+"' to '16'.") {
		t.Errorf("denied setprop: %d %q", st, e)
	}
	if _, err := New(Config{Quirks: Quirks{DeniedProperties: []string{"log.[x"}}}); err == nil {
		t.Error("a bad DeniedProperties pattern passed")
	}
}

// looperLines is the system buffer's Looper lines as logcat -v monotonic
// prints them, parsed.
func looperLines(t *testing.T, w *World) ([]logcat.LooperLine, []logcat.Entry) {
	t.Helper()
	var o, e bytes.Buffer
	if st := w.Logcat(context.Background(), strings.Fields("-d -b system -v threadtime -v usec -v monotonic -s Looper:W"), &o, &e); st != 0 {
		t.Fatalf("logcat: %d %s", st, e.String())
	}
	entries, err := logcat.Parse(o.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return logcat.LooperLines(entries), entries
}

// The app's main Looper logs its slow messages as the framework does once
// the property was set before the process started: the launch's messages,
// the frames a cause drew slowly, the message of a cause before a frame and
// the frame's late delivery, then "Drained". Each logged message is a truth
// block with what it logged.
func TestLooperLogsLikeTheFramework(t *testing.T) {
	w, clk := newTestWorld(t, Config{Workload: mustPreset(t, "janky-feed")})
	runProg(w.Setprop, looperProp, "16")
	wlaunch(t, w)
	clk.advance(3 * time.Second)
	lines, entries := looperLines(t, w)
	var logged []TruthBlock
	for _, b := range w.TruthBlocks() {
		if b.LoggedMs > 0 {
			logged = append(logged, b)
		}
	}
	var dispatch []logcat.LooperLine
	kinds := map[string]int{}
	for _, l := range lines {
		switch {
		case l.Drained:
			kinds["drained"]++
		case l.Kind == logcat.LooperDelivery:
			kinds["delivery"]++
			if l.Handler != frameHandler || l.CallbackClass() != frameReceiver || l.Millis < 70 {
				t.Errorf("delivery %+v, want the frame after the decode, late", l)
			}
		default:
			dispatch = append(dispatch, l)
		}
	}
	if kinds["delivery"] != 1 || kinds["drained"] != 1 {
		t.Errorf("lines %v, want one slow delivery and one Drained", kinds)
	}
	if len(dispatch) != len(logged) || len(logged) != 2+4+1 {
		t.Fatalf("%d dispatch lines, %d logged truth blocks; want 2 launch + 4 bind + 1 decode", len(dispatch), len(logged))
	}
	for i, l := range dispatch {
		b := logged[i]
		e := entries[l.Entry]
		if l.Millis != b.LoggedMs || l.Handler != b.Handler || l.Callback != b.Callback || l.What != b.What || l.Thread != "main" ||
			e.PID != b.Pid || e.TID != b.Pid || e.Level != 'W' || e.Time.UnixNano()/1000 != b.EndNs/1000 {
			t.Errorf("line %+v at %d, truth %+v", l, e.Time.UnixNano(), b)
		}
		if want := (b.EndNs - b.StartNs) / 1e6; l.Millis < want-1 || l.Millis > want+1 {
			t.Errorf("line says %d ms for a message of %d ms", l.Millis, want)
		}
	}
	if c := logged[2].Cause; c != "bind" || logged[6].Cause != "decode" || logged[0].What != whatBindApplication || logged[1].What != whatExecuteTransaction {
		t.Errorf("causes of the logged blocks: %+v", logged)
	}

	// A process that started before the property was set logs nothing.
	quiet, qclk := newTestWorld(t, Config{Workload: mustPreset(t, "janky-feed")})
	wlaunch(t, quiet)
	runProg(quiet.Setprop, looperProp, "16")
	qclk.advance(3 * time.Second)
	if l, _ := looperLines(t, quiet); len(l) != 0 {
		t.Errorf("a Looper that started before the property logged %d lines", len(l))
	}
	for _, b := range quiet.TruthBlocks() {
		if b.LoggedMs != 0 {
			t.Errorf("truth says %+v was logged", b)
		}
	}
}

// Android 14 reads log.looper.any.main.slow too.
func TestLooperAnyProperty(t *testing.T) {
	for api, want := range map[int]bool{33: false, 34: true} {
		w, clk := newTestWorld(t, Config{API: api, Workload: mustPreset(t, "janky-feed")})
		runProg(w.Setprop, "log.looper.any.main.slow", "16")
		wlaunch(t, w)
		clk.advance(2 * time.Second)
		if l, _ := looperLines(t, w); (len(l) > 0) != want {
			t.Errorf("API %d: %d lines with the any property", api, len(l))
		}
	}
}

// runningFeed is a phone on the real clock whose janky-feed app runs.
func runningFeed(t *testing.T) (*Device, *World, int) {
	t.Helper()
	d, err := New(Config{Workload: mustPreset(t, "janky-feed")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	w := d.World()
	wlaunch(t, w)
	return d, w, w.Truth().Pids[0]
}

// waitDecode starts the scroll over with a swipe and waits for its decode
// frame (about 1.3 s into the scroll), by the truth, at most 20 s. The
// scroll that launching started may have passed its decode already on a
// busy machine, before the test began recording; this one starts after.
func waitDecode(t *testing.T, w *World) {
	t.Helper()
	from := int64(w.Uptime())
	w.Screen().Swipe(500, 1800, 500, 600, 200*time.Millisecond)
	deadline := time.Now().Add(20 * time.Second)
	for !slices.ContainsFunc(w.TruthFrames(), func(f TruthFrame) bool { return f.Cause == "decode" && f.IntendedVsync > from }) {
		if time.Now().After(deadline) {
			t.Fatal("no decode frame in 20 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// record runs simpleperf record until it returns.
func record(w *World, args ...string) (done chan struct{}, st *int, stderr *bytes.Buffer) {
	done, st, stderr = make(chan struct{}), new(int), new(bytes.Buffer)
	go func() {
		defer close(done)
		*st = w.Simpleperf(context.Background(), append([]string{"record"}, args...), new(bytes.Buffer), stderr)
	}()
	return done, st, stderr
}

// waitRecorders waits until n recordings run, at most 10 s.
func waitRecorders(t *testing.T, w *World, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		w.mu.Lock()
		k := len(w.recorders)
		w.mu.Unlock()
		if k == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d recordings, want %d", k, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// simpleperf record samples the main thread while it runs, until pkill
// stops it; report-sample prints the samples as simpleperf does, and the
// stacks of the samples inside a cause's work are the cause's.
func TestSimpleperfRecordsTheMainThread(t *testing.T) {
	t.Parallel()
	_, w, pid := runningFeed(t)
	const file = "/data/local/tmp/perfgate-test.data"
	done, st, stderr := record(w, "--app", PresetPackage, "-t", strconv.Itoa(pid), "-e", "cpu-clock", "-f", "1000", "-g", "--clockid", "monotonic", "-o", file)
	waitRecorders(t, w, 1)
	waitDecode(t, w)
	if code, _, e := runProg(w.Pkill, "-INT", "-f", "^simpleperf record .*perfgate-nomatch[.]data"); code != 1 || e != "" {
		t.Errorf("pkill of nothing: %d %q", code, e)
	}
	if code, _, e := runProg(w.Pkill, "-INT", "-f", "^simpleperf record .*perfgate-test[.]data"); code != 0 {
		t.Fatalf("pkill: %d %q", code, e)
	}
	<-done
	rec, lost, ok := profiler.ParseSimpleperfRecordLog(stderr.Bytes())
	if *st != 0 || !ok || rec == 0 || lost != 0 {
		t.Fatalf("record: %d %q", *st, stderr.String())
	}
	var o, e bytes.Buffer
	if code := w.Simpleperf(context.Background(), []string{"report-sample", "--show-callchain", "-i", file}, &o, &e); code != 0 {
		t.Fatalf("report-sample: %d %s", code, e.String())
	}
	rep, err := profiler.ParseSimpleperfSamples(o.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(rep.Samples)) != rec || rep.Reported != rec || rep.App != PresetPackage || rep.Events[0] != "cpu-clock" {
		t.Fatalf("%d samples, %d reported, record said %d; meta %+v", len(rep.Samples), rep.Reported, rec, rep.Events)
	}
	var decode TruthBlock
	for _, b := range w.TruthBlocks() {
		if b.Cause == "decode" {
			decode = b
		}
	}
	cause := w.Workload().cause("decode")
	in := 0
	for _, s := range rep.Samples {
		if s.TID != pid || s.Thread != threadComm(PresetPackage) || s.Period != 1_000_000 {
			t.Fatalf("sample %v", s)
		}
		if s.TimeNs > decode.StartNs && s.TimeNs < decode.EndNs {
			in++
			if got := profiler.FoldStack(s.Frames); got != strings.Join(cause.Stack, ";") {
				t.Fatalf("sample in the decode: %s", got)
			}
			if i := profiler.AppFrame(s.Frames, PresetPackage); i < 0 || profiler.FrameName(s.Frames[i]) != PresetPackage+".ImageCache.decodeSync" {
				t.Fatalf("app frame %d of %v", i, s.Frames)
			}
		}
	}
	if want := int((decode.EndNs - decode.StartNs) / 1e6); in < want-1 || in > want+1 {
		t.Errorf("%d samples in the %d ms decode, want one a millisecond", in, want)
	}
	// The file is the shell's to remove; a report of a missing one fails.
	if code := w.Simpleperf(context.Background(), []string{"report-sample", "-i", "/data/local/tmp/none.data"}, &o, &e); code != 1 ||
		!strings.Contains(e.String(), "failed to open record file '/data/local/tmp/none.data'") {
		t.Errorf("report of a missing file: %d %q", code, e.String())
	}
}

func TestSimpleperfRefuses(t *testing.T) {
	wl := mustPreset(t, "janky-feed")
	wl.Debuggable = false
	w, _ := newTestWorld(t, Config{Workload: wl})
	wlaunch(t, w)
	pid := strconv.Itoa(w.Truth().Pids[0])
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--app", PresetPackage, "-t", pid, "-o", "/data/local/tmp/x.data"}, "simpleperf E environment.cpp:681] Package com.perfgate.demo doesn't exist or isn't debuggable/profileable.\n"},
		{[]string{"--app", "com.other", "-o", "/data/local/tmp/x.data"}, "Package com.other doesn't exist"},
		{[]string{"-t", pid}, "Permission denied"},
		{[]string{"--app", PresetPackage, "-e", "bogus"}, "Unknown event_type 'bogus'"},
		{[]string{"--app", PresetPackage, "--bogus"}, "Unknown option for record command: '--bogus'"},
	} {
		var e bytes.Buffer
		if code := w.Simpleperf(context.Background(), append([]string{"record"}, tc.args...), new(bytes.Buffer), &e); code != 1 || !strings.Contains(e.String(), tc.err) {
			t.Errorf("record %q: %d %q, want %q", tc.args, code, e.String(), tc.err)
		}
	}
	// A profileable release build may be profiled from Android 10.
	wl.Profileable = true
	for api, want := range map[int]int{28: 1, 30: -1} {
		d, err := New(Config{API: api, Workload: wl})
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		w := d.World()
		wlaunch(t, w)
		done, st, e := record(w, "--app", PresetPackage, "-t", strconv.Itoa(w.Truth().Pids[0]), "-o", "/data/local/tmp/x.data", "--duration", "0.05")
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("API %d: a 50 ms recording still runs", api)
		}
		if want == 1 && *st != 1 || want < 0 && *st != 0 {
			t.Errorf("API %d profileable: record %d %q", api, *st, e.String())
		}
	}
}

// The system reports an ANR five seconds into the app's frozen main
// thread, and the dropbox holds the main thread's stack.
func TestANRReport(t *testing.T) {
	w, clk := newTestWorld(t, Config{Workload: mustPreset(t, "janky-feed")})
	wlaunch(t, w)
	clk.advance(time.Second) // the cold start shows the activity at 650 ms
	if code, _, e := runProg(w.Input, "tap", "880", "2270"); code != 0 {
		t.Fatalf("tap Save: %d %q", code, e)
	}
	clk.advance(7 * time.Second)
	var o, e bytes.Buffer
	w.Logcat(context.Background(), strings.Fields("-d -b system -v threadtime -v usec -v monotonic"), &o, &e)
	anrs := logcat.ParseANRs(o.Bytes())
	pid := w.Truth().Pids[0]
	if len(anrs) != 1 || anrs[0].Process != PresetPackage || anrs[0].PID != pid || !strings.HasPrefix(anrs[0].Reason, "Input dispatching timed out") {
		t.Fatalf("ANRs %+v in\n%s", anrs, o.String())
	}
	var commit TruthBlock
	for _, b := range w.TruthBlocks() {
		if b.Cause == "commit" {
			commit = b
		}
	}
	if at := anrs[0].Entry.Time.UnixNano(); at/1000 != (commit.StartNs+int64(5*time.Second))/1000 {
		t.Errorf("ANR at %d, want 5 s after the commit began at %d", at, commit.StartNs)
	}
	o.Reset()
	w.Dumpsys([]string{"dropbox", "--print", "data_app_anr"}, &o, &e)
	secs := logcat.ParseANRTraces(o.Bytes())
	if len(secs) != 1 || secs[0].PID != pid || secs[0].Cmd != PresetPackage || secs[0].Main() == nil {
		t.Fatalf("dropbox sections %+v in\n%s", secs, o.String())
	}
	stack := w.Workload().cause("commit").Stack
	m := secs[0].Main()
	if len(m.Frames) != len(stack) || !strings.HasPrefix(m.Frames[0], stack[len(stack)-1]+"(") || m.SysTid != pid {
		t.Errorf("main thread %+v, want the commit's stack %v", m, stack)
	}
}

func TestCauseValidation(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Workload)
		err  string
	}{
		{func(w *Workload) { w.Causes[0].Phase = "gpu" }, "causes[0].phase"},
		{func(w *Workload) { w.Causes[0].Stack = nil }, "causes[0].stack: work on the main thread needs its stack"},
		{func(w *Workload) { w.Causes[1].Handler = "" }, "causes[1].handler"},
		{func(w *Workload) { w.Causes[1].Stack[2] = "a b" }, "causes[1].stack[2]"},
		{func(w *Workload) { w.Causes[0].Phase = "swap" }, "RenderThread work"},
		{func(w *Workload) { w.Causes[1].Name = "bind" }, "causes[1].name"},
		{func(w *Workload) { w.Phases[0].Janks[0].Cause = "nope" }, `phases[0].janks[0].cause: no cause named "nope"`},
		{func(w *Workload) { w.Phases[2].Janks[0].Ms = 4000 }, "an ANR needs a cause and a frame longer than 5 s"},
	} {
		w := mustPreset(t, "janky-feed")
		tc.edit(w)
		if err := w.Validate(); !errors.Is(err, ErrWorkload) || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%v, want %q", err, tc.err)
		}
	}
	// A cause in JSON, as a workload file gives it.
	w, err := ParseWorkload(mustJSON(t, mustPreset(t, "janky-feed")))
	if err != nil || len(w.Causes) != 3 || w.Phases[0].Janks[0].Cause != "bind" {
		t.Errorf("round trip: %v %+v", err, w)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The truth stream holds each cause frame's blocks before the frame.
func TestTruthStreamBlocks(t *testing.T) {
	var buf bytes.Buffer
	w, clk := newTestWorld(t, Config{Workload: mustPreset(t, "janky-feed"), Truth: &buf})
	wlaunch(t, w)
	clk.advance(3 * time.Second)
	w.Close()
	var pending []TruthBlock
	frames := 0
	for _, ln := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var b struct {
			Block *TruthBlock `json:"block"`
		}
		if err := json.Unmarshal([]byte(ln), &b); err != nil {
			t.Fatal(err)
		}
		if b.Block != nil {
			pending = append(pending, *b.Block)
			continue
		}
		var f TruthFrame
		json.Unmarshal([]byte(ln), &f)
		if f.Cause != "" {
			frames++
			if len(pending) == 0 || pending[0].FrameVsync != f.IntendedVsync || pending[0].Cause != f.Cause {
				t.Errorf("frame %d (%s) after blocks %+v", f.Index, f.Cause, pending)
			}
		} else if len(pending) > 0 {
			t.Errorf("blocks %+v before a frame without a cause", pending)
		}
		pending = nil
	}
	if frames != 5 {
		t.Errorf("%d cause frames in the truth, want 4 bind and 1 decode", frames)
	}
}

// am profile start --sampling samples the main thread as ART's sampling
// profiler does, and writes the trace when profiling stops.
func TestAmProfile(t *testing.T) {
	t.Parallel()
	d, w, pid := runningFeed(t)
	const file = "/data/local/tmp/p.trace"
	am := func(args ...string) (int, string) {
		var o, e bytes.Buffer
		code := w.Am(context.Background(), args, &o, &e)
		return code, o.String() + e.String()
	}
	if code, out := am("profile", "start", "--sampling", "500", strconv.Itoa(pid), file); code != 0 {
		t.Fatalf("start: %d %q", code, out)
	}
	waitDecode(t, w)
	if code, out := am("profile", "stop", PresetPackage); code != 0 {
		t.Fatalf("stop: %d %q", code, out)
	}
	b, err := d.fs.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := profiler.ParseARTTrace(b)
	if err != nil {
		t.Fatal(err)
	}
	if tr.PID != pid || tr.Clock != "dual" || tr.Threads[pid] != "main" {
		t.Errorf("trace %+v", tr)
	}
	var decode TruthBlock
	for _, b := range w.TruthBlocks() {
		if b.Cause == "decode" {
			decode = b
		}
	}
	stack := strings.Join(w.Workload().cause("decode").Stack, ";")
	in, idle := 0, 0
	for _, s := range tr.Resample(500) {
		fold := profiler.FoldStack(s.Frames)
		switch {
		case s.TimeNs > decode.StartNs+1e6 && s.TimeNs < decode.EndNs-1e6:
			in++
			if fold != stack {
				t.Fatalf("sample at %d in the decode: %s", s.TimeNs, fold)
			}
		case fold == strings.Join(idleStack, ";"):
			idle++
		}
	}
	if want := int((decode.EndNs-decode.StartNs)/500_000) - 4; in < want || idle == 0 {
		t.Errorf("%d samples inside the decode (want %d), %d idle", in, want, idle)
	}

	for _, tc := range []struct {
		args []string
		out  string
	}{
		{[]string{"profile", "start", "com.other", file}, "java.lang.IllegalArgumentException: Unknown process: com.other"},
		{[]string{"profile", "start", PresetPackage, "/system/p.trace"}, "Error: Unable to open file: /system/p.trace"},
		{[]string{"profile", "pause"}, "Error: Profile command start or stop not specified"},
	} {
		if code, out := am(tc.args...); code == 0 || !strings.Contains(out, tc.out) {
			t.Errorf("am %q: %d %q, want %q", tc.args, code, out, tc.out)
		}
	}
	wl := mustPreset(t, "janky-feed")
	wl.Debuggable = false
	rel, _ := newTestWorld(t, Config{Workload: wl})
	wlaunch(t, rel)
	var o, e bytes.Buffer
	if code := rel.Am(context.Background(), []string{"profile", "start", PresetPackage, file}, &o, &e); code != 255 ||
		!strings.Contains(e.String(), "java.lang.SecurityException: Process not debuggable: ProcessRecord{") {
		t.Errorf("release app: %d %q", code, e.String())
	}
}

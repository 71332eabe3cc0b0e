package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/internal/testenv"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
	"github.com/perfgate/perfgate/simlab"
)

// flingPhone serves, from a pure-Go adb server on the wall clock, the app
// of hostcmd's tests as a scenario file's "simulated" would name it: it
// draws only for the 500 ms after a swipe (frames 8 and 20 three vsyncs
// long), so a step that holds the fling has its frames however long the
// step lasts.
func flingPhone(t *testing.T) (*simdevice.Device, *adbtest.Server) {
	t.Helper()
	cfg, err := simlab.ScenarioPhone("fling.json", 0, nil, "../../hostcmd/testdata")
	if err != nil {
		t.Fatal(err)
	}
	cfg.RefreshHz = 60
	dev, srv := simtest.Serve(t, cfg)
	simtest.Launch(t, srv.Open(dev.Serial()), dev)
	return dev, srv
}

// idleAfterFling swipes on the phone's screen and waits until that fling
// (500 ms) is over on the phone's clock, so that a session starting then
// finds the app as every other it starts after idleAfterFling: what it
// drew last (which the frame source's note counts) a fling ago.
func idleAfterFling(dev *simdevice.Device) {
	w := dev.World()
	at := w.Uptime()
	w.Screen().Swipe(540, 1600, 540, 640, 300*time.Millisecond)
	for w.Uptime() < at+800*time.Millisecond {
		time.Sleep(10 * time.Millisecond)
	}
}

const flingBudgets = `{"schema": "perfgate.budget/v1", "steps": {"scroll": {"jank": {"max": 1}, "fps": {"min": 50}, "pss_max": {"max": 200000}}}}`

// wallClockFields are the parts of a step that follow how long it lasted
// on the host and when in it the swipe came (the scenario's swipe goes
// over HTTP, the command's through a shell and an adb process, each at
// this machine's pace): its times, the counters averaged over it, its
// ticks and those that failed (gaps), where its frames fall in it (at_s,
// time_ns and jank_at_s, which must only be shifted: see shifted), and
// the main thread's stacks sampled meanwhile, and the energy drawn over
// it (whose mean power must agree within the bounds: see samePower).
var wallClockFields = []string{"host_start", "host_end", "host_start_ns", "host_end_ns", "device_start_ns", "device_end_ns",
	"cpu", "ticks", "gaps", "traffic", "jank_at_s", "energy"}

// secondly are the figures read once a second: whether two reads fall
// around a step of 1.3 s depends on the host's pace too, so they may be
// there or not measured, saying so.
var secondly = []string{"thermal", "battery"}

// comparable is a step's JSON without its name, the command it ran
// around (a command run's step alone has one), wallClockFields (which it
// must have all the same), the frame times of its causes and the number
// of samples its memory figures rest on.
func comparable(t *testing.T, st *result.Step) (map[string]any, []string) {
	t.Helper()
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var had []string
	for _, k := range append(wallClockFields, "name", "command") {
		if _, ok := m[k]; ok {
			had = append(had, k)
		}
		delete(m, k)
	}
	nm, _ := m["not_measured"].(map[string]any)
	for _, k := range secondly {
		delete(m, k)
		for metric := range nm {
			if strings.HasPrefix(metric, k) {
				delete(nm, metric)
			}
		}
	}
	if mem, ok := m["memory"].(map[string]any); ok {
		delete(mem, "pss_samples")
		delete(mem, "rss_samples")
	}
	if c, ok := m["causes"].(map[string]any); ok {
		// The main thread's stacks are sampled every 10 ms of the phone's
		// clock: where the fling falls between two samples moves one from
		// stack to stack, and so the order of frames of equal rank; on a
		// busy host a frame may get no sample at all.
		var frames []string
		for _, f := range c["frames"].([]any) {
			for _, k := range []string{"at_s", "time_ns", "stack", "stack_hits", "stack_samples"} {
				delete(f.(map[string]any), k)
			}
			b, _ := json.Marshal(f)
			frames = append(frames, string(b))
		}
		slices.Sort(frames)
		c["frames"] = frames
		delete(c, "top_stacks")
		delete(c, "untied_stacks")
	}
	return m, had
}

// shifted reports whether b is a shifted by one offset, to the
// millisecond its values are rounded to.
func shifted(a, b []float64) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for i := range a {
		if d := (b[i] - b[0]) - (a[i] - a[0]); d > 0.0015 || d < -0.0015 {
			return false
		}
	}
	return true
}

// `perfgate run -- sh -c '…'` around a shell script that swipes through
// the stock adb gives the Result a scenario file's swipe gives on a phone
// alike: the same step, frame for frame as the phone drew them, the same
// memory, the same figures not measured and why, the same budget
// verdicts and notes. What differs is named: the step's place on the
// host's clock and what follows its length (wallClockFields).
func TestRunCommandEqualsScenario(t *testing.T) {
	t.Parallel()
	testenv.ADB(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "budgets.json"), []byte(flingBudgets), 0o644); err != nil {
		t.Fatal(err)
	}
	sf := filepath.Join(dir, "flow.json")
	if err := os.WriteFile(sf, []byte(`{"package": "com.perfgate.demo", "budgets": "budgets.json", "results": "scenario",
  "steps": [{"name": "scroll", "actions": [{"action": "swipe", "direction": "up"}, {"action": "sleep", "ms": 1000}]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// Both run on one phone, one after the other, its app idle between
	// them: the same process, the same window.
	dev, srv := flingPhone(t)
	// jank 2 > 1 breaks a budget: both runs exit 1 saying so.
	const broken = "run: 0 failed steps, 1 broken budgets"
	var out bytes.Buffer
	idleAfterFling(dev)
	if err := run([]string{"run", "-adb", srv.Addr, "-serial", dev.Serial(), sf}, &out, &out); err == nil || err.Error() != broken {
		t.Fatalf("scenario: %v\n%s", err, out.String())
	}
	idleAfterFling(dev)
	flings := len(dev.World().TruthFrames())
	out.Reset()
	// The scenario's swipe pauses 200 ms after its gesture
	// (scenario.SwipeOptions.Pause), then sleeps a second.
	err := run([]string{"run", "-adb", srv.Addr, "-serial", dev.Serial(), "-app", "com.perfgate.demo", "-step", "scroll", "-restart", "none",
		"-name", "flow", "-results", filepath.Join(dir, "command"), "-budget", filepath.Join(dir, "budgets.json"),
		"--", "sh", "-c", `adb -s "$ANDROID_SERIAL" shell input swipe 540 1600 540 640 300 && echo "swiped in $PERFGATE_STEP" && sleep 1.2`}, &out, &out)
	if err == nil || err.Error() != broken || !strings.Contains(out.String(), "swiped in scroll\n") {
		t.Fatalf("command: %v\n%s", err, out.String())
	}
	ra, err := result.ReadResult(filepath.Join(dir, "scenario", "flow.json"))
	if err != nil {
		t.Fatal(err)
	}
	rb, err := result.ReadResult(filepath.Join(dir, "command", "flow.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ra.Steps) != 1 || len(rb.Steps) != 1 || rb.Steps[0].Name != "scroll" {
		t.Fatalf("steps %v and %v", ra.Steps, rb.Steps)
	}
	a, hadA := comparable(t, ra.Steps[0])
	b, hadB := comparable(t, rb.Steps[0])
	if c := rb.Steps[0].Command; ra.Steps[0].Command != nil || c == nil || c.Exit != 0 || c.Log != "flow__scroll.log" || c.Argv[0] != "sh" {
		t.Errorf("commands %+v and %+v, want none and sh's, exit 0", ra.Steps[0].Command, c)
	}
	hadA = append(hadA, "command")
	if !reflect.DeepEqual(a, b) || !slices.Equal(hadA, hadB) {
		ja, _ := json.MarshalIndent(a, "", " ")
		jb, _ := json.MarshalIndent(b, "", " ")
		t.Errorf("the steps differ (beside %v, %v):\nscenario %s\ncommand %s", hadA, hadB, ja, jb)
	}
	if !samePower(ra.Steps[0], rb.Steps[0]) {
		t.Errorf("energy %+v and %+v: not one mean power within their bounds", ra.Steps[0].Energy, rb.Steps[0].Energy)
	}
	if !shifted(ra.Steps[0].JankAtS, rb.Steps[0].JankAtS) {
		t.Errorf("janky frames at %v s and %v s into the steps: not one shift", ra.Steps[0].JankAtS, rb.Steps[0].JankAtS)
	}
	// The verdicts are the same but for the janky frames' times in the
	// step, which the failing one quotes.
	if len(ra.Verdicts) != 3 || len(rb.Verdicts) != 3 || budget.Failed(rb.Verdicts) != 1 {
		t.Fatalf("verdicts:\nscenario %+v\ncommand %+v", ra.Verdicts, rb.Verdicts)
	}
	for i, va := range ra.Verdicts {
		vb := rb.Verdicts[i]
		va.Evidence, vb.Evidence, va.Line, vb.Line = nil, nil, "", ""
		if !reflect.DeepEqual(va, vb) {
			t.Errorf("verdict %d:\nscenario %+v\ncommand %+v", i, ra.Verdicts[i], rb.Verdicts[i])
		}
	}
	// A note on late ticks says the host was busy, at its own pace.
	busy := func(n string) bool { return strings.HasPrefix(n, "ticks: ") }
	na, nb := slices.DeleteFunc(ra.Notes, busy), slices.DeleteFunc(rb.Notes, busy)
	if !reflect.DeepEqual(na, nb) || len(na) == 0 || ra.Error != rb.Error || !reflect.DeepEqual(ra.Crashes, rb.Crashes) {
		t.Errorf("notes %q and %q, errors %q and %q", ra.Notes, rb.Notes, ra.Error, rb.Error)
	}
	// Against the truth: the command's step holds the fling the phone drew
	// after the scenario's, and both of its janky frames.
	fling := 0
	for _, f := range dev.World().TruthFrames()[flings:] {
		if f.Phase == "fling" {
			fling++
		}
	}
	if fs := rb.Steps[0].Frames(); fs.Frames != fling || fs.DeadlineMissed == nil || *fs.DeadlineMissed != 2 {
		t.Errorf("command step: %d frames, %v deadline missed; the phone drew %d, 2 janky", fs.Frames, fs.DeadlineMissed, fling)
	}
	log, err := os.ReadFile(filepath.Join(dir, "command", "flow__scroll.log"))
	if err != nil || string(log) != "swiped in scroll\n" {
		t.Errorf("the kept output: %q, %v", log, err)
	}
}

// A command that exits non-zero fails its iteration: a verdict in the
// Result names the step, the command and its status, perfgate run exits
// 1, the steps measured are kept, and no later iteration runs.
func TestRunCommandFails(t *testing.T) {
	t.Parallel()
	testenv.ADB(t)
	dev, srv := flingPhone(t)
	dir := t.TempDir()
	var out bytes.Buffer
	err := run([]string{"run", "-adb", srv.Addr, "-serial", dev.Serial(), "-app", "com.perfgate.demo", "-iterations", "5", "-results", dir,
		"--", "sh", "-c", `adb shell monkey -p com.perfgate.demo 1 >/dev/null && adb shell input swipe 1 2 3 4 && sleep 0.6 && test "$PERFGATE_ITERATION" -lt 2 || { echo "flow failed" >&2; exit 3; }`}, &out, &out)
	var ec exitCoder
	if !errors.As(err, &ec) || ec.ExitCode() != 1 || err.Error() != "run: 1 failed steps, 0 broken budgets" {
		t.Fatalf("err %v\n%s", err, out.String())
	}
	r, rerr := result.ReadResult(filepath.Join(dir, "run.json"))
	if rerr != nil {
		t.Fatal(rerr)
	}
	if len(r.Steps) != 2 || r.Steps[0].Name != "iteration" || r.Steps[1].Name != "iteration#2" {
		t.Fatalf("steps %v, want iteration and iteration#2", r.Steps)
	}
	wantLine := `perfgate run "iteration#2": "sh -c adb shell monkey`
	var failed []budget.Verdict
	for _, v := range r.Verdicts {
		if v.Fails() {
			failed = append(failed, v)
		}
	}
	if len(failed) != 1 || failed[0].Kind != budget.KindAction || failed[0].Step != "iteration#2" || !strings.HasPrefix(failed[0].Line, wantLine) ||
		!strings.Contains(failed[0].Line, "exit status 3 (output "+filepath.Join(dir, "run__iteration_2.log")+")") {
		t.Errorf("failing verdicts %+v", failed)
	}
	if c := r.Steps[1].Command; c == nil || c.Exit != 3 || r.Steps[0].Command.Exit != 0 {
		t.Errorf("commands %+v and %+v, want exit 0 and 3", r.Steps[0].Command, c)
	}
	if r.Steps[0].ActionFailed != "" || r.Steps[1].ActionFailed != failed[0].Line || !strings.Contains(out.String(), failed[0].Line+"\n") {
		t.Errorf("steps %+v\n%s", r.Steps, out.String())
	}
	// Each iteration started the app after a force-stop, drew a fling, and
	// no restart was taken for a crash.
	for _, st := range r.Steps {
		if st.Frames().Frames == 0 || st.Crashed() {
			t.Errorf("step %s: %d frames, crashes %v", st.Name, st.Frames().Frames, st.Crashes)
		}
	}
	// The force-stop before the second iteration ended the process the
	// first started, which the session had seen: a restart, not a crash.
	if len(r.Restarts) == 0 || len(r.Crashes) != 0 {
		t.Errorf("restarts %+v, crashes %+v: want the force-stop as a restart", r.Restarts, r.Crashes)
	}
	if log, err := os.ReadFile(filepath.Join(dir, "run__iteration_2.log")); err != nil || string(log) != "flow failed\n" {
		t.Errorf("the kept output of the failed iteration: %q, %v", log, err)
	}
}

// SIGTERM in the middle of an iteration stops the command (its whole
// process group: TestProcessStopped), marks the step unfinished, writes
// the Result and exits 143; the iterations after it do not run.
func TestRunCommandInterrupted(t *testing.T) {
	t.Parallel()
	dev, srv := flingPhone(t)
	dir := t.TempDir()
	sigs := make(chan os.Signal, 1)
	stderr := watchLines("0pid=", 1, func() { sigs <- syscall.SIGTERM })
	var stdout bytes.Buffer
	err := commandRun(sigs, []string{"-adb", srv.Addr, "-serial", dev.Serial(), "-app", "com.perfgate.demo", "-restart", "none", "-iterations", "3", "-results", dir},
		[]string{"sh", "-c", `sleep 600 & echo "background $((0))pid=$!" >&2; wait`}, &stdout, stderr)
	var ec exitCoder
	if !errors.As(err, &ec) || ec.ExitCode() != 143 || err.Error() != "run: terminated (SIGTERM) after 0 of 3 steps; budgets not checked" {
		t.Fatalf("err %v\n%s%s", err, stdout.String(), stderr)
	}
	r, rerr := result.ReadResult(filepath.Join(dir, "run.json"))
	if rerr != nil {
		t.Fatal(rerr)
	}
	if len(r.Steps) != 1 || !r.Steps[0].Unfinished || r.Steps[0].Name != "iteration" || r.Steps[0].Command == nil || r.Steps[0].Command.Exit != -1 {
		t.Fatalf("steps %+v, want an unfinished iteration, its command stopped", r.Steps)
	}
	want := `perfgate run "iteration": "sh -c sleep 600 & echo \"background $((0))pid=$!\" >&2; wait": interrupted: terminated (SIGTERM); the step is marked unfinished`
	if !strings.Contains(stdout.String(), want) {
		t.Errorf("output lacks %s:\n%s", want, stdout.String())
	}
}

// A command run called wrongly says what is wrong before anything is
// measured, quoting what it refuses.
func TestRunCommandWrongCalls(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-app", "com.x", "--"}, "run: no command after --"},
		{[]string{"-app", "com.x", "--", "./no-such-flow.sh", "-v"}, `run: command "./no-such-flow.sh": `},
		{[]string{"-app", "com.x", "--", "maestr0"}, `run: command "maestr0": exec: "maestr0": executable file not found in $PATH`},
		{[]string{"-app", "com.x", "flow.json", "--", "true"}, "run: with a command, no scenario file nor -pool, and -update only with -budget"},
		{[]string{"-app", "com.x", "-update", "--", "true"}, "-update only with -budget"},
		{[]string{"--", "true"}, `run: package "": `},
		{[]string{"-app", "com.x;reboot", "--", "true"}, `run: package "com.x;reboot": `},
		{[]string{"-app", "com.x", "-iterations", "0", "--", "true"}, "run: iterations 0: want 1 to 1000"},
		{[]string{"-app", "com.x", "-iterations", "1001", "--", "true"}, "run: iterations 1001: want 1 to 1000"},
		{[]string{"-app", "com.x", "-step", "a#2", "--", "true"}, `run: step "a#2": want a name without '#' or newlines`},
		{[]string{"-app", "com.x", "-restart", "warm", "--", "true"}, `run: restart "warm": want cold or none`},
		{[]string{"-app", "com.x", "-timeout", "-1s", "--", "true"}, "run: timeout -1s is negative"},
		{[]string{"-app", "com.x", "-budget", "/nonexistent/b.json", "--", "true"}, "run: -budget: stat /nonexistent/b.json: no such file or directory (-update records it)"},
	} {
		var out bytes.Buffer
		err := run(append([]string{"run"}, tc.args...), &out, &out)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("perfgate run %q: %v, want %q\n%s", tc.args, err, tc.want, out.String())
		}
	}
}

// -update records the budgets of a command's step from its iterations
// (one step, "iteration", however many ran), and the next run is judged
// by them and passes.
func TestRunCommandUpdate(t *testing.T) {
	t.Parallel()
	testenv.ADB(t)
	dev, srv := flingPhone(t)
	dir := t.TempDir()
	bf := filepath.Join(dir, "flow.budget.json")
	args := func(more ...string) []string {
		return append([]string{"run", "-adb", srv.Addr, "-serial", dev.Serial(), "-app", "com.perfgate.demo", "-restart", "none",
			"-iterations", "2", "-results", dir, "-budget", bf}, append(more,
			"--", "sh", "-c", `adb shell input swipe 540 1600 540 640 300 && sleep 0.8`)...)
	}
	var out bytes.Buffer
	// The app's CPU share follows how long a step lasts on this host:
	// the recorded limits leave it room.
	if err := run(args("-update", "-headroom", "200"), &out, &out); err != nil {
		t.Fatalf("-update: %v\n%s", err, out.String())
	}
	b, err := budget.ReadBudgetFile(bf)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if len(b.Steps) != 1 || b.Steps["iteration"]["jank"] == nil {
		t.Fatalf("recorded budgets %+v, want the step iteration's, jank among them", b.Steps)
	}
	out.Reset()
	if err := run(args(), &out, &out); err != nil {
		t.Fatalf("the run after -update: %v\n%s", err, out.String())
	}
	// Two sessions of one process write two Results.
	_, path, _ := strings.Cut(out.String(), "result: ")
	path, _, _ = strings.Cut(path, "\n")
	r, err := result.ReadResult(path)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	judged := 0
	for _, v := range r.Verdicts {
		if v.Kind == budget.KindBudget {
			judged++
		}
	}
	if judged == 0 || budget.Failed(r.Verdicts) != 0 {
		t.Errorf("verdicts %+v: want the recorded budgets judged and passed", r.Verdicts)
	}
}

// samePower reports whether two steps drew the same mean power, within
// the sum of their error bounds (each step's energy bound over its
// length), with the same sign convention.
func samePower(a, b *result.Step) bool {
	ea, eb := a.Energy, b.Energy
	if ea == nil || eb == nil || !ea.Measured || !eb.Measured {
		return false
	}
	// The convention's text counts the reads that told it ("… in 8
	// reads)"), which follow the step's length too.
	if ca, _, _ := strings.Cut(ea.Convention, " ("); !strings.HasPrefix(eb.Convention, ca+" (") {
		return false
	}
	da, db := float64(a.HostEndNs-a.HostStartNs)/1e9, float64(b.HostEndNs-b.HostStartNs)/1e9
	return math.Abs(ea.PowerMeanMW-eb.PowerMeanMW) <= ea.ErrorMJ/da+eb.ErrorMJ/db
}

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/fixtures"
	"github.com/perfgate/perfgate/trace"
)

const niaTrace = "perfetto/nowinandroid_pixel7pro_cheetah_android13_frametimeline_ftrace.perfetto-trace"
const niaPkg = "com.google.samples.apps.nowinandroid.demo"

func runTraceJSON(t *testing.T, args ...string) traceJSON {
	t.Helper()
	var out, errOut bytes.Buffer
	if err := run(append([]string{"analyze", "trace", "-json"}, args...), &out, &errOut); err != nil {
		t.Fatalf("run %v: %v (stderr %q)", args, err, errOut.String())
	}
	var got traceJSON
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	return got
}

// TestAnalyzeTraceText: the real Pixel 7 Pro trace, as people read it.
func TestAnalyzeTraceText(t *testing.T) {
	path := fixtures.Path(t, niaTrace)
	var out, errOut bytes.Buffer
	if err := run([]string{"analyze", "trace", "-package", niaPkg, path}, &out, &errOut); err != nil {
		t.Fatalf("run: %v (stderr %q)", err, errOut.String())
	}
	text := out.String()
	for _, want := range []string{
		"trace: boottime clock, 10.150 s, 7676 packets; sources: frametimeline, atrace\n",
		"android: API 33\n",
		"package: " + niaPkg + " (pids 9305)\n",
		"not measured: thread_states: the trace has no sched_switch",
		"MainActivity#50010 (pid 9305): 738 frames, 61 janky, 16 app jank; App Deadline Missed 16, Buffer Stuffing 50\n",
		"step trace [+0.000 s, +10.150 s): 738 frames, 61 janky, 16 app jank",
		"  +1.620 s frame 154407810: 48.2 ms, expected 16.6 ms; App Deadline Missed; Late Present [app jank]\n" +
			"    slices of the main thread during the frame (no Choreographer#doFrame 154407810):\n" +
			"         24.8 ms  Recomposer:recompose\n",
		trace.PerfettoUI,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if n := strings.Count(text, " frame 15"); n != 61 {
		t.Errorf("%d janky frames printed, want 61", n)
	}
}

// TestAnalyzeTraceWindow: -from/-to as durations since the start, as
// boottime ns and as monotonic ns (moved by the trace's clock snapshot) pick
// the same frames as the library does.
func TestAnalyzeTraceWindow(t *testing.T) {
	path := fixtures.Path(t, niaTrace)
	all := runTraceJSON(t, "-package", niaPkg, path)
	start := all.Analysis.Start
	// The trace's clock snapshots disagree by a few hundred ns (the clocks
	// are read one after the other); the one that counts is the latest
	// before the time, its second: boottime 578088593620304 is monotonic
	// 476592064305624 (the first says 578088593585840 and 476592064271525).
	const bootMinusMono = 578088593620304 - 476592064305624
	from, to := start+1_600_000_000, start+3_500_000_000
	rel := runTraceJSON(t, "-package", niaPkg, "-from", "1.6s", "-to", "3.5s", path)
	boot := runTraceJSON(t, "-package", niaPkg, "-from", fmt.Sprint(from), "-to", fmt.Sprint(to), path)
	mono := runTraceJSON(t, "-package", niaPkg, "-clock", "monotonic", "-from", fmt.Sprint(from-bootMinusMono), "-to", fmt.Sprint(to-bootMinusMono), path)

	frames, janky := 0, 0
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := trace.Analyze(f, trace.Options{Package: niaPkg})
	if err != nil {
		t.Fatal(err)
	}
	for _, fr := range a.Frames {
		if fr.Time() >= from && fr.Time() < to {
			frames++
			if fr.Jank.Janky() {
				janky++
			}
		}
	}
	if frames < 20 || janky == 0 || janky == frames {
		t.Fatalf("the window holds %d frames, %d janky: pick another", frames, janky)
	}
	for name, got := range map[string]traceJSON{"relative": rel, "boottime": boot, "monotonic": mono} {
		s := got.Step
		if s.Start != from || s.End != to || s.Frames != frames || s.Janky != janky || len(s.JankyFrames) != janky {
			t.Errorf("%s: step [%d,%d) %d frames %d janky (%d listed); want [%d,%d) %d %d", name, s.Start, s.End, s.Frames, s.Janky, len(s.JankyFrames), from, to, frames, janky)
		}
	}
}

func TestAnalyzeTraceErrors(t *testing.T) {
	dir := t.TempDir()
	notTrace := filepath.Join(dir, "notes.txt")
	os.WriteFile(notTrace, []byte("hello, world\n"), 0o644)
	path := fixtures.Path(t, niaTrace)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.perfetto-trace")
	os.WriteFile(cut, data[:len(data)/2], 0o644)
	for _, tc := range []struct {
		args   []string
		want   string
		output string // printed before the error
	}{
		{[]string{"-package", "com.x;reboot", path}, `-package: invalid package name "com.x;reboot"`, ""},
		{[]string{"-clock", "realtime", path}, `-clock "realtime": want boottime or monotonic`, ""},
		{[]string{"-from", "2s", "-to", "1s", path}, `-to "1s" is not after -from "2s"`, ""},
		{[]string{"-from", "soon", path}, `-from: "soon" is neither a duration`, ""},
		{[]string{notTrace}, notTrace + ": trace: offset 0: not a Perfetto trace: it starts with 68 65 6c 6c 6f 2c 20 77", ""},
		{[]string{filepath.Join(dir, "missing")}, "no such file", ""},
		{[]string{cut}, cut + ": trace: offset ", "step trace"},
	} {
		var out, errOut bytes.Buffer
		err := run(append([]string{"analyze", "trace"}, tc.args...), &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err %v, want %q", tc.args, err, tc.want)
		}
		if !strings.Contains(out.String(), tc.output) || (tc.output == "" && out.Len() > 0) {
			t.Errorf("%v: printed %q, want %q", tc.args, out.String(), tc.output)
		}
	}
}

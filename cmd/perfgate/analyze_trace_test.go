package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/analyze"
	"github.com/perfgate/perfgate/internal/fixtures"
	"github.com/perfgate/perfgate/trace"
)

const niaTrace = "perfetto/nowinandroid_pixel7pro_cheetah_android13_frametimeline_ftrace.perfetto-trace"
const niaPkg = "com.google.samples.apps.nowinandroid.demo"

func runTraceJSON(t *testing.T, args ...string) analyze.Trace {
	t.Helper()
	var out, errOut bytes.Buffer
	if err := run(append([]string{"analyze", "trace", "-json"}, args...), &out, &errOut); err != nil {
		t.Fatalf("run %v: %v (stderr %q)", args, err, errOut.String())
	}
	var got analyze.Trace
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	return got
}

// TestAnalyzeTraceWindow: -from/-to as durations since the start, as
// boottime ns and as monotonic ns (moved by the trace's clock snapshot) pick
// the same frames as the library does.
func TestAnalyzeTraceWindow(t *testing.T) {
	t.Parallel()
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
	for name, got := range map[string]analyze.Trace{"relative": rel, "boottime": boot, "monotonic": mono} {
		s := got.Step
		if s.Start != from || s.End != to || s.Frames != frames || s.Janky != janky || len(s.JankyFrames) != janky {
			t.Errorf("%s: step [%d,%d) %d frames %d janky (%d listed); want [%d,%d) %d %d", name, s.Start, s.End, s.Frames, s.Janky, len(s.JankyFrames), from, to, frames, janky)
		}
	}
}

// A trace cut short is analysed up to the break, and the error names the
// offset.
func TestAnalyzeTraceCut(t *testing.T) {
	data, err := os.ReadFile(fixtures.Path(t, niaTrace))
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.perfetto-trace")
	if err := os.WriteFile(cut, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	err = run([]string{"analyze", "trace", cut}, &out, &errOut)
	if err == nil || !strings.HasPrefix(err.Error(), "analyze trace: "+cut+": trace: offset ") {
		t.Errorf("err %v, want the file and the offset", err)
	}
	if !strings.Contains(out.String(), "\nstep trace [") {
		t.Errorf("printed %q, want the analysis up to the break", out.String())
	}
}

// A real trace written twice into one file (`cat t t`, or a trace pulled
// after its ring buffer was read twice) is analysed as the trace: every
// frame, janky frame and slice once, nothing rejected that the trace
// alone does not reject, and a note says the file held two traces.
func TestAnalyzeTraceConcatenated(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(fixtures.Path(t, niaTrace))
	if err != nil {
		t.Fatal(err)
	}
	twice := filepath.Join(t.TempDir(), "twice.perfetto-trace")
	if err := os.WriteFile(twice, append(append([]byte{}, data...), data...), 0o644); err != nil {
		t.Fatal(err)
	}
	single := runTraceJSON(t, "-package", niaPkg, fixtures.Path(t, niaTrace))
	got := runTraceJSON(t, "-package", niaPkg, twice)
	if got.Analysis.Traces != 2 || got.Analysis.ReadAgain["frames"] == 0 || got.Analysis.Packets != 2*single.Analysis.Packets {
		t.Errorf("traces %d, read again %v, packets %d (one trace: %d)", got.Analysis.Traces, got.Analysis.ReadAgain, got.Analysis.Packets, single.Analysis.Packets)
	}
	// Everything else is the single trace's.
	for _, a := range []*trace.Analysis{got.Analysis, single.Analysis} {
		a.Packets, a.Notes, a.Traces, a.ReadAgain = 0, nil, 0, nil
	}
	got.File, single.File = "", ""
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(single)
	if !bytes.Equal(g, w) {
		t.Errorf("the trace twice:\n%s\nthe trace once:\n%s", g, w)
	}
	if single.Step.Frames != 738 || single.Step.Janky != 61 {
		t.Errorf("the trace once: %d frames, %d janky; the README says 738 and 61", single.Step.Frames, single.Step.Janky)
	}
}

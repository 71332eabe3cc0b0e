package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
)

// record -trace pulls the trace beside the Result, reads it into the
// Result, and says where it is and what FrameTimeline saw.
func TestRecordTrace(t *testing.T) {
	t.Parallel()
	dev, srv := recordDevice(t)
	out := filepath.Join(t.TempDir(), "result.json")
	var stdout, stderr bytes.Buffer
	err := runRecord([]string{"-serial", dev.Serial(), "-package", simdevice.PresetPackage,
		"-duration", "2s", "-out", out, "-adb", srv.Addr, "-trace"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("record: %v\n%s", err, stderr.String())
	}
	r, err := result.ReadResult(out)
	if err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(filepath.Dir(out), "result.perfetto-trace")
	if r.Trace == nil || r.Trace.File != trace {
		t.Fatalf("Result.Trace %+v, want the file %s", r.Trace, trace)
	}
	if _, err := os.Stat(trace); err != nil {
		t.Fatal(err)
	}
	st := r.Step("record")
	if st.Trace == nil || st.Trace.Frames == 0 {
		t.Fatalf("step trace %+v (%s)", st.Trace, st.NotMeasured[metrics.JankFrameTimeline])
	}
	for _, want := range []string{
		"trace: " + trace + " (",
		"open https://ui.perfetto.dev and choose Open trace file",
		"trace: record: ",
		" app jank (FrameTimeline)",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}
	// The device keeps no copy.
	if fis, err := dev.ReadDir("/data/misc/perfetto-traces"); err != nil || len(fis) != 0 {
		t.Errorf("the device's trace folder holds %d files (%v)", len(fis), err)
	}
}

// Bad -trace values are errors that quote them, before anything is
// measured.
func TestRecordTraceFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-trace-categories", "gfx,view;reboot"}, `record: -trace: perftest: trace: category "view;reboot" is not an atrace category name`},
		{[]string{"-trace-buffer-kb", "10"}, "record: -trace: perftest: trace: BufferKB 10 out of range 1024..1048576"},
		{[]string{"-trace-max", "100h"}, "record: -trace: perftest: trace: MaxDuration 100h0m0s out of range 1s..24h"},
		{[]string{"-trace-categories", "gfx,gfx"}, `record: -trace: perftest: trace: category "gfx" given twice`},
		// A duration without its unit says so, not "parse error".
		{[]string{"-duration", "10"}, `record: invalid value "10" for flag -duration: time: missing unit in duration "10": want a duration such as 10s or 1m30s`},
	} {
		args := append([]string{"-package", simdevice.PresetPackage, "-trace", "-adb", "127.0.0.1:1"}, tc.args...)
		err := runRecord(args, &bytes.Buffer{}, &bytes.Buffer{})
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}

// A scenario file's "trace" records a trace on the simulated phone; bad
// settings name the file and quote the value.
func TestRunScenarioTrace(t *testing.T) {
	t.Parallel()
	p := writeScenario(t, strings.Replace(okScenario, `"steps": [`, `"trace": {"categories": ["gfx", "view", "dalvik"]}, "steps": [`, 1))
	var out bytes.Buffer
	if err := run([]string{"run", p}, &out, &bytes.Buffer{}); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	want := filepath.Join(filepath.Dir(p), "perf-results", "feed.perfetto-trace")
	if !strings.Contains(out.String(), "trace: "+want+" (") || !strings.Contains(out.String(), "trace: scroll: ") {
		t.Errorf("output lacks the trace:\n%s", out.String())
	}
	for _, tc := range []struct{ trace, want string }{
		{`{"categories": ["$(reboot)"]}`, `feed.json: trace: perftest: trace: category "$(reboot)" is not an atrace category name`},
		{`{"buffer_kb": 5}`, `feed.json: trace: perftest: trace: BufferKB 5 out of range`},
		{`{"max_duration_ms": -1}`, `feed.json: trace: max_duration_ms -1 is negative`},
		{`{"size": 5}`, `feed.json: trace: want true, false or {"buffer_kb", "categories", "max_duration_ms", "sections"}: json: unknown field "size"`},
		{`5`, `feed.json: trace: want true, false or`},
	} {
		p := writeScenario(t, strings.Replace(okScenario, `"steps": [`, `"trace": `+tc.trace+`, "steps": [`, 1))
		err := run([]string{"run", p}, &bytes.Buffer{}, &bytes.Buffer{})
		if w := "run: " + filepath.Join(filepath.Dir(p), tc.want); err == nil || !strings.HasPrefix(err.Error(), w) {
			t.Errorf("%s: %v, want %s…", tc.trace, err, w)
		}
	}
}

package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
)

// iterations writes n Results of a "scroll" step into a new directory,
// with p95 frame times start, start+step, ... ms.
func iterations(t *testing.T, n int, start, step float64) string {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		p95 := start + step*float64(i)
		st := &perftest.Step{Name: "scroll"}
		st.FrameStats = metrics.FrameSummary{Source: "gfxinfo", Frames: 100, FPS: 60, JankDefinition: metrics.JankDefinitionDeadlineMissed,
			FrameTimeMS: metrics.FramePercentiles{P50: 7, P90: p95, P95: p95, P99: p95}}
		r := &perftest.Result{Schema: perftest.Schema, Name: "TestScroll", App: perftest.AppInfo{Package: "com.example"}, Steps: []*perftest.Step{st}}
		if err := r.WriteFile(filepath.Join(dir, fmt.Sprintf("run%02d.json", i))); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// compare on Results with a known regression (p95 18.0…19.25 ms → 24.0…
// 25.25 ms, +33 %) and with noise only (the same values interleaved).
func TestCompareCommand(t *testing.T) {
	base := iterations(t, 6, 18, 0.25)
	slower := iterations(t, 6, 24, 0.25)
	same := iterations(t, 6, 18.1, 0.25)
	cases := []struct {
		name    string
		args    []string
		code    int
		stdout  []string
		errText string
	}{
		{name: "regression", args: []string{base, slower}, code: 1,
			stdout:  []string{"perf regression: scroll: frame_time_p95 18.63ms → 24.63ms (+32.2%, p=0.002, n=6+6)", "REGRESSION"},
			errText: "compare: 3 significant regressions past 10%"},
		{name: "noise", args: []string{base, same}, stdout: []string{"scroll  frame_time_p95", "~"}},
		{name: "threshold above the change", args: []string{"-threshold", "40", base, slower}},
		{name: "markdown to stdout", args: []string{base, slower, "-md", "-"}, code: 1,
			stdout: []string{"| scroll | frame_time_p95 | 18.6ms ± ", "❌"}, errText: "regressions"},
		{name: "one file against a folder", args: []string{filepath.Join(base, "run00.json"), slower}, code: 0,
			stdout: []string{"n=1+6"}},
		{name: "one argument", args: []string{base}, code: -1, errText: "want a baseline and new runs, got 1"},
		{name: "bad alpha", args: []string{"-alpha", "2", base, slower}, code: -1, errText: "-alpha 2 is not in (0, 1)"},
		{name: "missing baseline", args: []string{filepath.Join(base, "nope"), slower}, code: -1, errText: "compare: baseline:"},
		{name: "nothing shared", args: []string{base, writeResult(t)}, code: -1, errText: "share no step and metric"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := runCompare(tc.args, &stdout, &stderr)
			checkExit(t, err, tc.code, tc.errText)
			for _, want := range tc.stdout {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
				}
			}
		})
	}
}

// writeResult writes a Result whose only step is "launch", with no frames.
func writeResult(t *testing.T) string {
	t.Helper()
	r := &perftest.Result{Schema: perftest.Schema, Name: "TestLaunch", Steps: []*perftest.Step{{Name: "launch"}}}
	p := filepath.Join(t.TempDir(), "launch.json")
	if err := r.WriteFile(p); err != nil {
		t.Fatal(err)
	}
	return p
}

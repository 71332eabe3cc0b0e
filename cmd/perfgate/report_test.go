package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/perftest"
)

// recordedResult is a Result of the simulated janky-scroll app, recorded
// by the report package's tests: scroll has 3 deadline-missed frames.
const recordedResult = "../../report/testdata/janky-scroll.json"

func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	htmlPath := filepath.Join(dir, "out", "report.html")
	mdPath := filepath.Join(dir, "out", "summary.md")
	benchPath := filepath.Join(dir, "bench.txt")
	blocker := writeFile(t, "a-file", "not a folder")
	cases := []struct {
		name    string
		args    []string
		code    int // 0: no error; -1: an error without exit code
		stdout  []string
		files   map[string][]string
		errText string
	}{
		{name: "markdown to stdout by default", args: []string{recordedResult},
			stdout: []string{"## perfgate report: ✅ all budgets met", "| jank | 3 frames | deadline missed |"}},
		{name: "files, flags after the argument", args: []string{recordedResult, "-html", htmlPath, "-md", mdPath, "-bench", benchPath, "-budget", "scroll:fps>=50"},
			files: map[string][]string{
				htmlPath:  {`<svg xmlns="http://www.w3.org/2000/svg" class="chart" data-chart="frametime"`, "budget fps ≥ 50"},
				mdPath:    {"[HTML report](report.html)", "| fps | 55.3 fps | (n−1)/(t[n−1]−t[0]), gfxinfo | ≥ 50 | ✅ |"},
				benchPath: {"BenchmarkPerf/test=TestJankyScroll/step=scroll 1 166 frames 55.3073 fps 3 jank"},
			}},
		{name: "a broken budget only fails with -check", args: []string{"-budget", "jank<=2", recordedResult},
			stdout: []string{"perf budget exceeded: scroll: jank 3 > 2 (deadline missed; frames at 0.39s 1.48s 2.59s)"}},
		{name: "-check exits 1", args: []string{"-check", "-budget", "jank<=2", recordedResult}, code: 1,
			stdout: []string{"❌ 1 of 1 sessions failed"}, errText: "report: 1 of 1 sessions failed their budgets"},
		{name: "-check passes", args: []string{"-check", "-budget", "jank<=3", recordedResult}},
		{name: "a golden budget file", args: []string{"-check", "-budgets", writeFile(t, "feed.budget.json",
			`{"schema": "perfgate.budget/v1", "steps": {"scroll": {"jank": {"max": 2, "unit": "frames"}, "fps": {"min": 50, "unit": "fps"}}}}`), recordedResult},
			code: 1, stdout: []string{"perf budget exceeded: scroll: jank 3 > 2 (deadline missed; frames at 0.39s 1.48s 2.59s)", "| fps | 55.3 fps | (n−1)/(t[n−1]−t[0]), gfxinfo | ≥ 50 | ✅ |"},
			errText: "report: 1 of 1 sessions failed their budgets"},
		{name: "regression lines against a baseline", args: []string{"-base", runsDir(t, 0.6), runsDir(t, 1)},
			stdout: []string{"perf regression: scroll: frame_time_p99 57.5ms → 95.83ms (+66.7%, p=0.002, n=6+6)"}},
		{name: "a broken budget file", args: []string{"-budgets", writeFile(t, "bad.budget.json", `{"schema": "perfgate.budget/v1", "steps": {"scroll": {"jnk": {"max": 2}}}}`), recordedResult},
			code: -1, errText: `bad.budget.json:1: step "scroll", metric "jnk": unknown metric`},
		{name: "bad budget", args: []string{"-budget", "jank=3", recordedResult}, code: -1, errText: `perf budget "jank=3": want [step:]metric<=limit`},
		{name: "a budget on no metric", args: []string{"-budget", "scroll:jnak<=3", recordedResult}, code: -1, errText: `perf budget "scroll:jnak<=3": unknown metric "jnak" (known: anrs, battery_temp_max, big_jank_perfdog, `},
		{name: "no file", args: []string{"-md", "-"}, code: -1, errText: "report: no result file given"},
		{name: "missing file", args: []string{filepath.Join(dir, "nope.json")}, code: -1, errText: "nope.json: no such file"},
		{name: "not a result", args: []string{writeFile(t, "bad.json", `{"schema":"other/v9"}`)}, code: -1, errText: `unsupported result schema: "other/v9"`},
		{name: "empty directory", args: []string{t.TempDir()}, code: -1, errText: "no *.json result files"},
		{name: "an output that cannot be written", args: []string{recordedResult, "-html", filepath.Join(blocker, "r.html")}, code: -1,
			errText: "report: write " + filepath.Join(blocker, "r.html") + ": "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := runReport(tc.args, &stdout, &stderr)
			checkExit(t, err, tc.code, tc.errText)
			for _, want := range tc.stdout {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
				}
			}
			for path, wants := range tc.files {
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				for _, want := range wants {
					if !strings.Contains(string(b), want) {
						t.Errorf("%s lacks %q", filepath.Base(path), want)
					}
				}
			}
		})
	}
}

// -budgets takes its path as given: a bare name is a file in the current
// folder, not under testdata/ as a test's budget file is.
func TestReportBudgetsPathAsGiven(t *testing.T) {
	result, err := filepath.Abs(recordedResult)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	if err := os.WriteFile("cli.budget.json", []byte(`{"schema": "perfgate.budget/v1", "steps": {"scroll": {"jank": {"max": 2}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	err = runReport([]string{"-budgets", "cli.budget.json", result}, &stdout, &bytes.Buffer{})
	if err != nil || !strings.Contains(stdout.String(), "perf budget exceeded: scroll: jank 3 > 2") {
		t.Errorf("err %v, output:\n%s", err, stdout.String())
	}
}

// checkExit checks an error against the exit status the command asks for:
// 0 no error, -1 an error with no particular status.
func checkExit(t *testing.T, err error, code int, text string) {
	t.Helper()
	if code == 0 {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("no error, want %q", text)
	}
	var ec exitCoder
	got := -1
	if errors.As(err, &ec) {
		got = ec.ExitCode()
	}
	if got != code {
		t.Errorf("exit code %d, want %d (%v)", got, code, err)
	}
	if !strings.Contains(err.Error(), text) {
		t.Errorf("error %q lacks %q", err, text)
	}
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// runsDir is a folder of six copies of the recorded Result with frame
// time p99 scaled by f: runs of one build.
func runsDir(t *testing.T, f float64) string {
	dir := t.TempDir()
	for i := range 6 {
		r, err := perftest.ReadResult(recordedResult)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range r.Steps {
			st.FrameStats.FrameTimeMS.P99 *= f
		}
		if err := r.WriteFile(filepath.Join(dir, fmt.Sprintf("run%d.json", i))); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

package assert_test

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfgate/perfgate/assert"
	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/result"
)

const goodFile = `{
  "schema": "perfgate.budget/v1",
  "steps": {
    "scroll": {
      "jank": { "max": 3, "unit": "frames", "definition": "deadline missed" },
      "fps": { "min": 50, "unit": "fps" }
    },
    "tap": {
      "crashes": { "max": 0, "unit": "crashes" }
    }
  }
}
`

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadBudgetFile(t *testing.T) {
	p := writeFile(t, t.TempDir(), "feed.budget.json", goodFile)
	f, err := budget.ReadBudgetFile(p)
	if err != nil {
		t.Fatal(err)
	}
	jank := f.Steps["scroll"]["jank"]
	if jank == nil || *jank.Max != 3 || jank.Line != 5 || jank.Definition != "deadline missed" {
		t.Errorf("jank entry %+v", jank)
	}
	if fps := f.Steps["scroll"]["fps"]; fps.Min == nil || *fps.Min != 50 || fps.Line != 6 {
		t.Errorf("fps entry %+v", fps)
	}
	if c := f.Steps["tap"]["crashes"]; c.Line != 9 || *c.Max != 0 {
		t.Errorf("crashes entry %+v", c)
	}
}

// A broken file names the file, the line and the entry, and quotes it,
// at most a bounded excerpt of it.
func TestBrokenBudgetFiles(t *testing.T) {
	huge := strings.Repeat("x", 256<<10)
	cases := []struct{ name, text, want string }{
		{"bad JSON", "{\n  \"schema\": \"perfgate.budget/v1\",\n  \"steps\": {\n    \"scroll\": { \"jank\": { \"max\": 3, } }\n  }\n}\n",
			"b.json:4: bad JSON: invalid character '}' looking for beginning of object key string"},
		{"unknown metric", strings.Replace(goodFile, `"jank"`, `"jnk"`, 1),
			`b.json:5: step "scroll", metric "jnk": unknown metric (known: `},
		{"negative limit", strings.Replace(goodFile, `"min": 50`, `"min": -5`, 1),
			`b.json:6: step "scroll", metric "fps": negative limit min -5`},
		{"both", strings.Replace(goodFile, `"min": 50`, `"min": 50, "max": 70`, 1),
			`b.json:6: step "scroll", metric "fps": both max and min in { "min": 50, "max": 70, "unit": "fps" }`},
		{"empty entry", strings.Replace(goodFile, `{ "max": 0, "unit": "crashes" }`, `{ "unit": "crashes" }`, 1),
			`b.json:9: step "tap", metric "crashes": no max, min or baseline in { "unit": "crashes" }`},
		{"unknown field", strings.Replace(goodFile, `"unit": "frames"`, `"unti": "frames"`, 1),
			`b.json:5: step "scroll", metric "jank": bad entry { "max": 3, "unti": "frames", "definition": "deadline missed" }: json: unknown field "unti"`},
		{"wrong schema", strings.Replace(goodFile, "budget/v1", "budget/v9", 1),
			`b.json:2: schema "perfgate.budget/v9", want "perfgate.budget/v1"`},
		{"no schema", "{\"steps\": {}}", `b.json:1: no schema (want "perfgate.budget/v1")`},
		{"truncated", goodFile[:60], "b.json:4: bad JSON: unexpected end of file"},
		{"not an object", "[1]", `b.json:1: top level: want "{", found [`},
		{"string limit", strings.Replace(goodFile, `"max": 3`, `"max": "3"`, 1),
			`b.json:5: step "scroll", metric "jank": bad entry { "max": "3", "unit": "frames", "definition": "deadline missed" }: json: cannot unmarshal string into Go struct field Entry.max of type float64`},
		// A key given twice, at any level, names both lines and the key: a
		// merge leftover must not loosen jank ≤ 3 to ≤ 300.
		{"duplicate metric", strings.Replace(goodFile, `"fps": { "min": 50, "unit": "fps" }`, `"fps": { "min": 50, "unit": "fps" },
      "jank": { "max": 300, "unit": "frames" }`, 1),
			`b.json:7: duplicate key "jank" in object "steps"."scroll" (lines 5 and 7); keep one`},
		{"duplicate step", strings.Replace(goodFile, `"tap": {`, `"scroll": {`, 1),
			`b.json:8: duplicate key "scroll" in object "steps" (lines 4 and 8); keep one`},
		{"duplicate field of an entry", strings.Replace(goodFile, `"max": 3, "unit": "frames"`, `"max": 3, "unit": "frames", "max": 300`, 1),
			`b.json:5: duplicate key "max" in object "steps"."scroll"."jank" (lines 5 and 5); keep one`},
		{"duplicate top-level field", strings.Replace(goodFile, `"schema": "perfgate.budget/v1",`, `"schema": "perfgate.budget/v1", "steps": {},`, 1),
			`b.json:3: duplicate key "steps" in the top level (lines 2 and 3); keep one`},
		// However long its line, a message quotes a bounded excerpt.
		{"long unknown field of an entry", strings.Replace(goodFile, `"unit": "frames"`, `"`+huge+`": 1`, 1), `b.json:5: step "scroll", metric "jank": bad entry { "max": 3, "xxx`},
		{"long both limits", strings.Replace(goodFile, `"min": 50, "unit": "fps"`, `"min": 50, "max": 70, "unit": "`+huge+`"`, 1), `b.json:6: step "scroll", metric "fps": both max and min in { "min": 50, "max": 70, "unit": "xxx`},
		{"long unknown metric", strings.Replace(goodFile, `"jank"`, `"`+huge+`"`, 1), `b.json:5: step "scroll", metric "xxx`},
		{"long step", strings.Replace(goodFile, `"tap": {`, `"`+huge+`": [`, 1), `b.json:8: step "xxx`},
		{"long schema", strings.Replace(goodFile, "perfgate.budget/v1", huge, 1), `b.json:2: schema "xxx`},
		{"long top-level field", strings.Replace(goodFile, `"schema"`, `"`+huge+`"`, 1), `b.json:2: unknown field "xxx`},
		{"long duplicate", strings.Replace(goodFile, `"tap": {`, `"`+huge+`": {}, "`+huge+`": {`, 1), `b.json:8: duplicate key "xxx`},
		{"long found", strings.Replace(goodFile, `"steps": {`, `"steps": "`+huge+`", "x": {`, 1), `b.json:3: "steps": want "{", found "xxx`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := writeFile(t, dir, "b.json", tc.text)
			_, err := budget.ReadBudgetFile(p)
			if err == nil {
				t.Fatal("no error")
			}
			want := filepath.Join(dir, tc.want)
			if !strings.HasPrefix(err.Error(), want) || len(err.Error()) > 1000 {
				t.Errorf("got  %.400q (%d bytes)\nwant %q", err, len(err.Error()), want)
			}
			// Budget reports the same error through the test.
			f := &fakeT{}
			if assert.Budget(f, run("Pixel 7", "14", scrollStep()), p) || len(f.errs) != 1 || !strings.HasPrefix(f.errs[0], want) {
				t.Errorf("Budget reported %q", f.errs)
			}
		})
	}
}

func TestMissingBudgetFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "none.budget.json")
	_, err := budget.ReadBudgetFile(p)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("error %v does not wrap fs.ErrNotExist", err)
	}
	want := fmt.Sprintf("perf budget file %s does not exist (run 'go test . -update' to record it): open %s: no such file or directory", p, p)
	if err.Error() != want {
		t.Errorf("got  %q\nwant %q", err, want)
	}
}

// A bare file name lives under testdata/.
func TestBudgetFileUnderTestdata(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv(budget.EnvUpdate, "1")
	if !assert.Budget(&fakeT{}, run("Pixel 7", "14", scrollStep()), "feed.budget.json") {
		t.Fatal("recording failed")
	}
	if _, err := os.Stat(filepath.Join("testdata", "feed.budget.json")); err != nil {
		t.Fatal(err)
	}
}

// Budget checks every budget of the file, reports every broken one with
// the hint, and passes a run that meets them.
func TestBudgetFromFile(t *testing.T) {
	p := writeFile(t, t.TempDir(), "feed.budget.json", goodFile)
	f := &fakeT{}
	r := run("Pixel 7", "14", scrollStep(), crashStep())
	if assert.Budget(f, r, p) {
		t.Error("Budget passed a run that breaks two budgets")
	}
	want := []string{
		"perf budget exceeded: scroll: jank 5 > 3 (deadline missed; frames at 1.84s 2.10s 2.31s 3.02s 3.40s)",
		"perf budget exceeded: tap: crashes 1 > 0 (app process crashed (Java, native or ANR, by its logcat); pids [4242] → [4300] at 400ms)",
		"run 'go test . -update' to rewrite " + p + " if the change is intended",
	}
	if f.text() != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", f.text(), strings.Join(want, "\n"))
	}
	// Iterations of a step are checked against its budgets; a step of the
	// file the run lacks fails.
	good := scrollStep()
	good.Name = "scroll#2"
	good.FrameStats.Jank = 2
	f = &fakeT{}
	assert.Budget(f, run("Pixel 7", "14", good), p)
	want = []string{`perf budget exceeded: tap: step not measured (the run has no step "tap"; budgets at ` + p + ":9)",
		"run 'go test . -update' to rewrite " + p + " if the change is intended"}
	if f.text() != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", f.text(), strings.Join(want, "\n"))
	}
	tap := &result.Step{Name: "tap", HostEndNs: 1}
	f = &fakeT{}
	if !assert.Budget(f, run("Pixel 7", "14", good, tap), p) || len(f.errs) != 0 {
		t.Errorf("a run within every budget: %q", f.errs)
	}
}

// Recording writes every usual metric with headroom, keeps baselines,
// tightens, and refuses to loosen unless asked, saying old and new.
func TestRecordBudgets(t *testing.T) {
	p := filepath.Join(t.TempDir(), "testdata", "feed.budget.json")
	t.Setenv(budget.EnvUpdate, "1")
	f := &fakeT{}
	if !assert.Budget(f, run("Pixel 7", "14", scrollStep()), p) {
		t.Fatalf("record: %q", f.errs)
	}
	file, err := budget.ReadBudgetFile(p)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for m, e := range file.Steps["scroll"] {
		l, _ := e.Limit(m)
		got[m] = l.String()
	}
	want := map[string]string{
		"jank": "jank ≤ 6", "fps": "fps ≥ 51.7", "frame_time_p95": "frame_time_p95 ≤ 20.1ms", "big_jank_perfdog": "big_jank_perfdog ≤ 3",
		"cpu": "cpu ≤ 13.8%", "pss_max": "pss_max ≤ 168000KiB", "rx": "rx ≤ 5500B", "tx": "tx ≤ 880B",
		"startup_initial": "startup_initial ≤ 715ms", "startup_full": "startup_full ≤ 990ms", "crashes": "crashes ≤ 0",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("recorded\n%v\nwant\n%v", got, want)
	}
	if len(f.logs) != len(want) || !strings.HasPrefix(f.logs[0], "perf budget recorded: scroll: ") {
		t.Errorf("logs %q", f.logs)
	}
	// The file now passes the run it was recorded from.
	t.Setenv(budget.EnvUpdate, "")
	if f := (&fakeT{}); !assert.Budget(f, run("Pixel 7", "14", scrollStep()), p) {
		t.Errorf("a run fails the budgets recorded from it: %q", f.errs)
	}

	// A better run tightens; a worse one is refused.
	t.Setenv(budget.EnvUpdate, "1")
	better := scrollStep()
	better.FrameStats.Jank = 1
	f = &fakeT{}
	assert.Budget(f, run("Pixel 7", "14", better), p)
	if !strings.Contains(strings.Join(f.logs, "\n"), "perf budget tightened: scroll: jank 6 → 2 (measured 1)") {
		t.Errorf("tighten logs %q", f.logs)
	}
	worse := scrollStep()
	worse.FrameStats.Jank = 9
	f = &fakeT{}
	if assert.Budget(f, run("Pixel 7", "14", worse), p) {
		t.Error("an update that would loosen a budget passed")
	}
	if want := "perf budget not loosened: scroll: jank 2 → 10 (measured 9); set PERFGATE_UPDATE=loosen to loosen it in " + p; f.text() != want {
		t.Errorf("got  %q\nwant %q", f.text(), want)
	}
	if file, _ := budget.ReadBudgetFile(p); *file.Steps["scroll"]["jank"].Max != 2 {
		t.Errorf("refused loosening still wrote jank ≤ %v", *file.Steps["scroll"]["jank"].Max)
	}
	t.Setenv(budget.EnvUpdate, "loosen")
	f = &fakeT{}
	if !assert.Budget(f, run("Pixel 7", "14", worse), p) || !strings.Contains(strings.Join(f.logs, "\n"), "perf budget loosened: scroll: jank 2 → 10 (measured 9)") {
		t.Errorf("loosen: %q %q", f.errs, f.logs)
	}
}

// A budget file that cannot be written gives a clear error.
func TestReadOnlyBudgetFile(t *testing.T) {
	if os.Geteuid() == 0 {
		// root writes through permissions; a file in place of the folder
		// stands in for an unwritable place.
		dir := t.TempDir()
		writeFile(t, dir, "testdata", "a file, not a folder")
		t.Setenv(budget.EnvUpdate, "1")
		f := &fakeT{}
		p := filepath.Join(dir, "testdata", "x.budget.json")
		if assert.Budget(f, run("Pixel 7", "14", scrollStep()), p) || len(f.errs) != 1 || !strings.Contains(f.errs[0], "perf budget file: mkdir "+filepath.Join(dir, "testdata")+": not a directory") {
			t.Errorf("got %q", f.errs)
		}
		return
	}
	dir := t.TempDir()
	p := writeFile(t, dir, "x.budget.json", goodFile)
	os.Chmod(dir, 0o555)
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	t.Setenv(budget.EnvUpdate, "1")
	f := &fakeT{}
	if assert.Budget(f, run("Pixel 7", "14", scrollStep()), p) || len(f.errs) != 1 || !strings.Contains(f.errs[0], "permission denied") {
		t.Errorf("got %q", f.errs)
	}
}

// Parallel subtests and separate processes updating one file lose
// nothing: every step any of them recorded is in the file.
func TestConcurrentUpdates(t *testing.T) {
	if p := os.Getenv("PERFGATE_TEST_UPDATE_CHILD"); p != "" {
		return // the child's work is in TestUpdateChild
	}
	p := filepath.Join(t.TempDir(), "shared.budget.json")
	t.Setenv(budget.EnvUpdate, "1")
	const goroutines, procs = 8, 3
	var wg sync.WaitGroup
	for i := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := scrollStep()
			st.Name = fmt.Sprintf("g%d", i)
			assert.Budget(&fakeT{}, run("Pixel 7", "14", st), p)
		}()
	}
	var cmds []*exec.Cmd
	for i := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestUpdateChild$")
		cmd.Env = append(os.Environ(), "PERFGATE_TEST_UPDATE_CHILD="+p, fmt.Sprintf("PERFGATE_TEST_CHILD_STEP=p%d", i))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	wg.Wait()
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("child: %v", err)
		}
	}
	f, err := budget.ReadBudgetFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Steps) != goroutines+procs {
		t.Errorf("file has %d steps, want %d: %v", len(f.Steps), goroutines+procs, keys(f.Steps))
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestUpdateChild records one step into a shared file when run as
// TestConcurrentUpdates' child process.
func TestUpdateChild(t *testing.T) {
	p := os.Getenv("PERFGATE_TEST_UPDATE_CHILD")
	if p == "" {
		t.Skip("runs as a child of TestConcurrentUpdates")
	}
	t.Setenv(budget.EnvUpdate, "1")
	for i := range 5 {
		st := scrollStep()
		st.Name = os.Getenv("PERFGATE_TEST_CHILD_STEP")
		st.FrameStats.Jank = 5 - i // tightening every time: a rewrite each round
		if f := (&fakeT{}); !assert.Budget(f, run("Pixel 7", "14", st), p) {
			t.Fatal(f.errs)
		}
	}
}

// Under a real *testing.T a broken budget fails the test, reports every
// line and lets the test run on.
func TestRealTestingT(t *testing.T) {
	if os.Getenv("PERFGATE_TEST_REAL_T") == "1" {
		t.Skip("only runs as a child")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRealTChild$", "-test.v")
	cmd.Env = append(os.Environ(), "PERFGATE_TEST_REAL_T=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the child passed:\n%s", out)
	}
	for _, want := range []string{
		"budget_real_test.go:14: perf budget exceeded: scroll: jank 5 > 3 (deadline missed; frames at 1.84s 2.10s 2.31s 3.02s 3.40s)",
		"budget_real_test.go:15: perf budget exceeded: scroll: fps 57.46 < 60 ((n−1)/(t[n−1]−t[0]), gfxinfo)",
		"after the checks",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("child output lacks %q:\n%s", want, out)
		}
	}
}

// A step with a handful of frames (a tap) gets no frame budgets: its frame
// figures come and go with timing.
func TestRecordSkipsFrameBudgetsOfShortSteps(t *testing.T) {
	p := filepath.Join(t.TempDir(), "b.json")
	tap := scrollStep()
	tap.Name = "tap"
	tap.FrameStats.Frames = 3
	t.Setenv(budget.EnvUpdate, "1")
	if f := (&fakeT{}); !assert.Budget(f, run("Pixel 7", "14", scrollStep(), tap), p) {
		t.Fatal(f.errs)
	}
	file, err := budget.ReadBudgetFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, has := file.Steps["tap"]["jank"]; has {
		t.Errorf("a 3-frame step got a jank budget: %v", keys(file.Steps["tap"]))
	}
	if _, has := file.Steps["tap"]["cpu"]; !has {
		t.Errorf("the tap step lost its other budgets: %v", keys(file.Steps["tap"]))
	}
	if _, has := file.Steps["scroll"]["jank"]; !has {
		t.Errorf("the 230-frame step has no jank budget: %v", keys(file.Steps["scroll"]))
	}
}

// A step shorter than a few CPU ticks (the end of a session) gets no CPU
// budgets: one 100 ms tick reads 0 % in one run and 1.3 % in the next.
func TestRecordSkipsCPUBudgetsOfShortSteps(t *testing.T) {
	p := filepath.Join(t.TempDir(), "b.json")
	stop := scrollStep()
	stop.Name = "stop"
	stop.CPUStats.Intervals = 1
	stop.CPUStats.Mean = 0
	t.Setenv(budget.EnvUpdate, "1")
	if f := (&fakeT{}); !assert.Budget(f, run("Pixel 7", "14", scrollStep(), stop), p) {
		t.Fatal(f.errs)
	}
	file, err := budget.ReadBudgetFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"cpu", "cpu_p90"} {
		if _, has := file.Steps["stop"][n]; has {
			t.Errorf("a one-tick step got a %s budget: %v", n, keys(file.Steps["stop"]))
		}
	}
	if _, has := file.Steps["stop"]["pss_max"]; !has {
		t.Errorf("the one-tick step lost its other budgets: %v", keys(file.Steps["stop"]))
	}
	if _, has := file.Steps["scroll"]["cpu"]; !has {
		t.Errorf("the 40-tick step has no cpu budget: %v", keys(file.Steps["scroll"]))
	}
	// The 40-tick scroll step's cpu of 12.5 % gets the default 10 %
	// headroom; a 16-tick step gets 200/16 = 12.5 %.
	if got := *file.Steps["scroll"]["cpu"].Max; got != 13.8 {
		t.Errorf("40-tick cpu budget %v, want 13.8", got)
	}
	short := scrollStep()
	short.Name = "short"
	short.CPUStats.Intervals = 16
	if f := (&fakeT{}); !assert.Budget(f, run("Pixel 7", "14", scrollStep(), short), p) {
		t.Fatal(f.errs)
	}
	if file, err = budget.ReadBudgetFile(p); err != nil {
		t.Fatal(err)
	}
	if got := *file.Steps["short"]["cpu"].Max; got != 14.1 {
		t.Errorf("16-tick cpu budget %v, want 14.1 (12.5 × 1.125, rounded up)", got)
	}
	// A one-tick repeat of a step neither gives its CPU nor widens the
	// headroom of the repeats that are long enough.
	p2 := filepath.Join(t.TempDir(), "b.json")
	blip := scrollStep()
	blip.Name = "scroll#2"
	blip.CPUStats.Intervals, blip.CPUStats.Mean = 1, 50
	if f := (&fakeT{}); !assert.Budget(f, run("Pixel 7", "14", scrollStep(), blip), p2) {
		t.Fatal(f.errs)
	}
	if f2, err := budget.ReadBudgetFile(p2); err != nil {
		t.Fatal(err)
	} else if got := *f2.Steps["scroll"]["cpu"].Max; got != 13.8 {
		t.Errorf("cpu budget of a 40-tick step with a one-tick repeat: %v, want 13.8", got)
	}
	// Checking the file against a run whose stop step burnt CPU passes.
	stop.CPUStats.Mean = 1.25
	t.Setenv(budget.EnvUpdate, "")
	if f := (&fakeT{}); !assert.Budget(f, run("Pixel 7", "14", scrollStep(), stop, short), p) {
		t.Errorf("the next run fails: %v", f.errs)
	}
}

// A byte count taken between reads sways with where the reads fall, as a
// CPU share does: over fewer than ten read intervals (a short step read
// by the 1 s netstats lane) it gets no budget, and over n intervals at
// least 200/n % of headroom.
func TestRecordTrafficSpan(t *testing.T) {
	t.Setenv(budget.EnvUpdate, "1")
	for _, c := range []struct {
		intervals int
		rx, tx    string
	}{{4, "", ""}, {9, "", ""}, {10, "rx ≤ 6000B", "tx ≤ 960B"}, {40, "rx ≤ 5500B", "tx ≤ 880B"}} {
		p := filepath.Join(t.TempDir(), "feed.budget.json")
		st := scrollStep()
		st.TrafficStats.Intervals = c.intervals
		if f := (&fakeT{}); !assert.Budget(f, run("Pixel 7", "14", st), p) {
			t.Fatalf("record: %q", f.errs)
		}
		file, err := budget.ReadBudgetFile(p)
		if err != nil {
			t.Fatal(err)
		}
		got := func(m string) string {
			e := file.Steps["scroll"][m]
			if e == nil {
				return ""
			}
			l, _ := e.Limit(m)
			return l.String()
		}
		if got("rx") != c.rx || got("tx") != c.tx {
			t.Errorf("%d intervals: recorded %q, %q; want %q, %q", c.intervals, got("rx"), got("tx"), c.rx, c.tx)
		}
	}
}

// A rewrite changes a budget file only where a value changed: a run that
// moved within its noise (cpu 12.5 % recorded as ≤ 13.8 %, then 13.0 %,
// which alone would record ≤ 14.3 %) keeps the budget, neither refusing to
// loosen it nor rewriting it, and leaves the file's bytes as they were
// (also a hand-written layout); a clear improvement tightens it.
func TestRecordKeepsBudgetsWithinNoise(t *testing.T) {
	p := filepath.Join(t.TempDir(), "testdata", "feed.budget.json")
	t.Setenv(budget.EnvUpdate, "1")
	if f := (&fakeT{}); !assert.Budget(f, run("Pixel 7", "14", scrollStep()), p) {
		t.Fatalf("record: %q", f.errs)
	}
	first, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	noisy := scrollStep()
	noisy.CPUStats.Mean = 13.0
	noisy.FrameStats.FrameTimeMS.P95 = 17.1
	noisy.MemoryStats.PSSMaxKB = 160_000
	f := &fakeT{}
	if !assert.Budget(f, run("Pixel 7", "14", noisy), p) {
		t.Fatalf("an update within the noise failed: %q", f.errs)
	}
	if again, _ := os.ReadFile(p); !bytes.Equal(again, first) {
		t.Errorf("an update within the noise rewrote the file:\n%s\nwas\n%s", again, first)
	}
	if want := "perf budgets unchanged: the run kept all 11 in " + p; len(f.logs) != 1 || f.logs[0] != want {
		t.Errorf("an update within the noise logged %q, want only %q", f.logs, want)
	}

	// A hand-written layout stays when nothing changes.
	hand := "{\"schema\": \"perfgate.budget/v1\", \"steps\": {\"scroll\": {\n  \"cpu\": {\"max\": 13.8, \"unit\": \"%\"}}}}\n"
	if err := os.WriteFile(p, []byte(hand), 0o644); err != nil {
		t.Fatal(err)
	}
	if f := (&fakeT{}); !assert.Budget(f, run("Pixel 7", "14", noisy), p) {
		t.Fatalf("update: %q", f.errs)
	}
	if b, _ := os.ReadFile(p); string(b) != hand {
		t.Errorf("an update that changed nothing rewrote\n%s\nas\n%s", hand, b)
	}

	// Twice the headroom better (cpu headroom 10 %: under 13.8/1.2) tightens.
	better := scrollStep()
	better.CPUStats.Mean = 10
	f = &fakeT{}
	if !assert.Budget(f, run("Pixel 7", "14", better), p) {
		t.Fatalf("update: %q", f.errs)
	}
	if want := "perf budget tightened: scroll: cpu 13.8% → 11% (measured 10%)"; !strings.Contains(strings.Join(f.logs, "\n"), want) {
		t.Errorf("logs %q, want %q", f.logs, want)
	}
}

// Recording baselines again from a run with the same values within noise
// keeps the old ones, their date included; a changed run replaces them.
func TestRecordKeepsBaselinesWithinNoise(t *testing.T) {
	p := filepath.Join(t.TempDir(), "feed.budget.json")
	t.Setenv(budget.EnvUpdate, "1")
	g := budget.Gate{Metrics: []metrics.Name{"frame_time_p95"}}
	if f := (&fakeT{}); !assert.NoRegression(f, run("Pixel 7", "14", stepsOf([]float64{18.1, 18.3, 18.0, 18.4, 18.2, 18.5}, 58)...), p, g) {
		t.Fatalf("record: %q", f.errs)
	}
	first, _ := os.ReadFile(p)
	// Rewrite the date as an older run's, so a rewrite would show.
	old := strings.Replace(string(first), `"recorded": "`+time.Now().UTC().Format("2006"), `"recorded": "2001`, 1)
	if old == string(first) {
		t.Fatalf("no recorded date in\n%s", first)
	}
	if err := os.WriteFile(p, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	f := &fakeT{}
	if !assert.NoRegression(f, run("Pixel 7", "14", stepsOf([]float64{18.2, 18.0, 18.4, 18.1, 18.5, 18.3}, 58)...), p, g) {
		t.Fatalf("update: %q", f.errs)
	}
	if b, _ := os.ReadFile(p); string(b) != old {
		t.Errorf("a run within the noise rewrote the baseline:\n%s\nwas\n%s", b, old)
	}
	if !strings.Contains(strings.Join(f.logs, "\n"), "perf baseline kept: scroll: frame_time_p95, no significant change from the 6 iterations of 2001-") {
		t.Errorf("logs %q", f.logs)
	}
	// A slower app is a new baseline.
	f = &fakeT{}
	assert.NoRegression(f, run("Pixel 7", "14", stepsOf([]float64{25, 25.2, 24.9, 25.1, 25.3, 24.8}, 58)...), p, g)
	if b, _ := os.ReadFile(p); string(b) == old || !strings.Contains(strings.Join(f.logs, "\n"), "perf baseline recorded: scroll: frame_time_p95, 6 iterations") {
		t.Errorf("a changed run kept the baseline: %q\n%s", f.logs, b)
	}
}

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/scenario"
)

func writeScenario(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "feed.json")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const okScenario = `{
  "package": "com.perfgate.demo",
  "simulated": { "workload": "smooth-scroll" },
  "steps": [
    { "name": "launch", "actions": [ { "action": "launch", "kind": "cold", "iterations": 2 } ] },
    { "name": "scroll", "actions": [ { "action": "swipe", "direction": "up", "count": 2 }, { "action": "sleep", "ms": 300 } ] },
    { "name": "stop", "actions": [ { "action": "tap", "text": "Stop" }, { "action": "back" } ] }
  ],
  "budgets": {
    "launch": { "startup_initial": { "max": 1000 }, "crashes": { "max": 0 } },
    "scroll": { "jank": { "max": 0 }, "fps": { "min": 55 } }
  }
}
`

// A scenario on the simulated phone whose budgets hold: every step's
// figures are printed, and the exit status is 0.
func TestRunScenario(t *testing.T) {
	p := writeScenario(t, okScenario)
	var out, errb bytes.Buffer
	if err := run([]string{"run", p}, &out, &errb); err != nil {
		t.Fatalf("run: %v\n%s%s", err, out.String(), errb.String())
	}
	for _, want := range []string{
		"device: simulated perfgate-sim, API 33, workload smooth-scroll\n",
		"ok   launch (",
		"): cold start 650 ms (median of 2);",
		"ok   scroll (",
		"ok   stop (",
		"result: " + filepath.Join(filepath.Dir(p), "perf-results", "feed.json"),
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// A slow-start app breaks its startup budget: the line, and exit status 1.
func TestRunScenarioBrokenBudget(t *testing.T) {
	p := writeScenario(t, strings.Replace(okScenario, `"smooth-scroll"`, `"slow-start"`, 1))
	var out, errb bytes.Buffer
	err := run([]string{"run", p}, &out, &errb)
	var ec exitCoder
	if !errors.As(err, &ec) || ec.ExitCode() != 1 {
		t.Fatalf("error %v, want exit status 1\n%s", err, out.String())
	}
	want := "perf budget exceeded: launch: startup_initial 2500ms > 1000ms (time to initial display, cold start, am start -W TotalTime; logcat Fully drawn, median of 2)\n"
	if !strings.Contains(out.String(), want) || err.Error() != "run: 0 failed steps, 1 broken budgets" {
		t.Errorf("error %v, output:\n%s\nwant line %q", err, out.String(), want)
	}
}

// A step whose element never appears fails the run and says why.
func TestRunScenarioFailedStep(t *testing.T) {
	p := writeScenario(t, strings.Replace(okScenario, `{ "action": "tap", "text": "Stop" }`, `{ "action": "wait", "text": "Settings", "timeout_ms": 300 }`, 1))
	var out bytes.Buffer
	err := run([]string{"run", p}, &out, &bytes.Buffer{})
	if err == nil || err.Error() != "run: 1 failed steps, 0 broken budgets" {
		t.Fatalf("error %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "FAIL stop (") || !strings.Contains(out.String(), `scenario step "stop": wait for text "Settings": scenario wait: element not found: text "Settings" within 300ms`) {
		t.Errorf("output:\n%s", out.String())
	}
}

// -update records a budget file the scenario names; the next run checks it.
func TestRunScenarioUpdate(t *testing.T) {
	text := strings.Replace(okScenario, okScenario[strings.Index(okScenario, `"budgets"`):strings.LastIndex(okScenario, "}")], `"budgets": "feed.budget.json"`+"\n", 1)
	p := writeScenario(t, text)
	var out bytes.Buffer
	if err := run([]string{"run", p}, &out, &bytes.Buffer{}); err == nil || !strings.Contains(out.String(), "does not exist (run 'go test . -update' to record it)") {
		t.Fatalf("no budget file yet: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := run([]string{"run", "-update", p}, &out, &bytes.Buffer{}); err != nil {
		t.Fatalf("-update: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "perf budget recorded: launch: startup_initial ≤ 715ms") {
		t.Errorf("-update output:\n%s", out.String())
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(p), "feed.budget.json")); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := run([]string{"run", p}, &out, &bytes.Buffer{}); err != nil {
		t.Errorf("the run after -update: %v\n%s", err, out.String())
	}
}

// Broken scenario files name the file, the step and the action, and quote
// the bad value.
func TestRunScenarioBadFiles(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"bad JSON", "{\n  \"package\": \"com.x\",\n  \"steps\": [,]\n}", "feed.json:3: bad JSON: invalid character ',' looking for beginning of value"},
		{"unknown field", `{"package": "com.x", "stepz": []}`, `feed.json: json: unknown field "stepz"`},
		{"bad package", `{"package": "com.x;reboot", "steps": []}`, `feed.json: package "com.x;reboot": `},
		{"no steps", `{"package": "com.x", "steps": []}`, "feed.json: no steps"},
		{"unknown action", `{"package": "com.x", "steps": [{"name": "a", "actions": [{"action": "jump"}]}]}`,
			`feed.json: step 1 "a": action 1 "jump": unknown action (want launch, tap, tap_at, swipe, fling, back, home, key, type, wait, sleep)`},
		{"bad direction", `{"package": "com.x", "steps": [{"name": "a", "actions": [{"action": "swipe", "direction": "upp"}]}]}`,
			`feed.json: step 1 "a": action 1 "swipe": direction "upp": want up, down, left or right`},
		{"two selectors", `{"package": "com.x", "steps": [{"name": "a", "actions": [{"action": "tap", "text": "A", "id": "x:id/a"}]}]}`,
			`feed.json: step 1 "a": action 1 "tap": give exactly one of text, id, desc`},
		{"bad kind", `{"package": "com.x", "steps": [{"name": "a", "actions": [{"action": "launch", "kind": "tepid"}]}]}`,
			`feed.json: step 1 "a": action 1 "launch": kind "tepid": want cold, warm or hot`},
		{"twice", `{"package": "com.x", "steps": [{"name": "a", "actions": [{"action": "back"}]}, {"name": "a", "actions": [{"action": "back"}]}]}`,
			`feed.json: step 2 "a": the name is used twice`},
		{"unknown workload", `{"package": "com.x", "simulated": {"workload": "nope"}, "steps": [{"name": "a", "actions": [{"action": "back"}]}]}`,
			`feed.json: simulated: workload "nope": no such preset`},
		{"bad inline budget", "{\"package\": \"com.x\",\n\"steps\": [{\"name\": \"a\", \"actions\": [{\"action\": \"back\"}]}],\n\"budgets\": {\n  \"a\": {\n    \"jnk\": {\"max\": 3}\n  }\n}}",
			`feed.json:5: budgets: step "a", metric "jnk": unknown metric`},
		{"negative", `{"package": "com.x", "steps": [{"name": "a", "actions": [{"action": "sleep", "ms": -5}]}]}`,
			`feed.json: step 1 "a": action 1 "sleep": ms -5 is negative`},
		{"sleep too long", `{"package": "com.x", "steps": [{"name": "a", "actions": [{"action": "sleep", "ms": 3600000}]}]}`,
			`feed.json: step 1 "a": action 1 "sleep": ms 3600000 is over the maximum 600000 (10m0s)`},
		{"huge wait", `{"package": "com.x", "steps": [{"name": "a", "actions": [{"action": "wait", "text": "A", "timeout_ms": 9223372036854}]}]}`,
			`feed.json: step 1 "a": action 1 "wait": timeout_ms 9223372036854 is over the maximum 600000 (10m0s)`},
		{"duplicate key", "{\"package\": \"com.x\",\n\"steps\": [{\"name\": \"a\", \"actions\": [{\"action\": \"sleep\", \"ms\": 5,\n\"ms\": 50000}]}]}",
			`feed.json:3: duplicate key "ms" in object "steps".[0]."actions".[0] (lines 2 and 3); keep one`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := writeScenario(t, tc.text)
			err := run([]string{"run", p}, &bytes.Buffer{}, &bytes.Buffer{})
			want := "run: " + filepath.Join(filepath.Dir(p), tc.want)
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("got  %v\nwant %s…", err, want)
			}
		})
	}
}

// A bad value is quoted in a bounded excerpt, however long its line.
func TestRunScenarioLongValues(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	for _, text := range []string{
		`{"package": "` + huge + `", "steps": []}`,
		`{"package": "com.x", "` + huge + `": 1}`,
		`{"package": "com.x", "steps": [{"name": "` + huge + `", "actions": []}]}`,
		`{"package": "com.x", "steps": [{"name": "a", "actions": [{"action": "` + huge + `"}]}]}`,
		`{"package": "com.x", "steps": [{"name": "a", "actions": [{"action": "swipe", "direction": "` + huge + `"}]}]}`,
		`{"package": "com.x", "steps": [{"name": "a", "actions": [{"action": "launch", "kind": "` + huge + `"}]}]}`,
		`{"package": "com.x", "simulated": {"workload": "` + huge + `"}, "steps": []}`,
		`{"package": "com.x", "steps": [{"name": "a", "actions": [{"action": "back"}]}], "budgets": {"a": {"` + huge + `": {"max": 1}}}}`,
	} {
		_, err := parseScenario("feed.json", []byte(text))
		if err == nil || len(err.Error()) > 1000 || !strings.Contains(err.Error(), "bytes)") || !strings.HasPrefix(err.Error(), "feed.json") {
			t.Errorf("%d-byte error: %.300v", len(fmt.Sprint(err)), err)
		}
	}
}

// The scenario parser never panics, its errors quote a bounded excerpt,
// and an accepted file has named steps with actions.
func FuzzParseScenario(f *testing.F) {
	f.Add([]byte(okScenario))
	f.Add([]byte(`{"package": "com.x", "steps": [{"name": "a", "actions": [{"action": "tap_at", "x": 1, "y": 2}]}], "budgets": "b.json"}`))
	f.Add([]byte(`{"package": "com.x", "steps": [{"name": "a", "actions": [{"action": "key", "code": 4}]}], "budgets": {"a": {"fps": {"min": 1}}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		sc, err := parseScenario("s.json", b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "s.json") {
				t.Fatalf("error without the file name: %v", err)
			}
			if len(err.Error()) > 2000 {
				t.Fatalf("a %d-byte error for %d bytes of input", len(err.Error()), len(b))
			}
			return
		}
		if len(sc.steps) == 0 || len(sc.steps) != len(sc.file.Steps) {
			t.Fatalf("accepted %d steps", len(sc.steps))
		}
		for _, acts := range sc.steps {
			if len(acts) == 0 {
				t.Fatal("accepted a step without actions")
			}
		}
	})
}

// Every action of a scenario file is the Go action of the same name:
// a fling is scenario.FlingWith (50 ms, half the screen), not a swipe.
func TestRunScenarioActionsMatchGo(t *testing.T) {
	text := `{"package": "com.x", "steps": [{"name": "all", "actions": [
	  {"action": "launch", "kind": "warm", "iterations": 3},
	  {"action": "tap", "id": "com.x:id/feed"},
	  {"action": "tap_at", "x": 10, "y": 20},
	  {"action": "swipe", "direction": "up", "count": 3},
	  {"action": "fling", "direction": "down"},
	  {"action": "back"}, {"action": "home"}, {"action": "key", "code": 82},
	  {"action": "type", "desc": "search", "input": "cats"},
	  {"action": "wait", "text": "Feed", "timeout_ms": 700},
	  {"action": "sleep", "ms": 250}]}]}`
	sc, err := parseScenario("feed.json", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	want := []scenario.Action{
		scenario.LaunchWith(scenario.Warm, 3, scenario.StartupOptions{}),
		scenario.Tap(scenario.ID("com.x:id/feed")),
		scenario.TapAt(10, 20),
		scenario.Swipe(scenario.Up, 3),
		scenario.Fling(scenario.Down),
		scenario.Back(), scenario.Home(), scenario.Key(scenario.KeyMenu),
		scenario.Type(scenario.Desc("search"), "cats"),
		scenario.WaitFor(scenario.Text("Feed"), 700*time.Millisecond),
		scenario.Sleep(250 * time.Millisecond),
	}
	got := sc.steps[0]
	if len(got) != len(want) {
		t.Fatalf("%d actions, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].String() != want[i].String() {
			t.Errorf("action %d is %q, want %q", i+1, got[i], want[i])
		}
	}
}

// A step's line says which figures were not measured and why.
func TestStepLineNotMeasured(t *testing.T) {
	st := &perftest.Step{Name: "tap", HostEndNs: 40e6, FrameStats: metrics.FrameSummary{Source: "gfxinfo"},
		CPUStats:    perftest.CPUStats{Intervals: 1, Mean: 3.25},
		NotMeasured: map[metrics.Name]string{"pss_max": "memory: no dumpsys meminfo com.example read in the step (the step lasted 40ms; reads come every 1s)"}}
	want := "ok   tap (40ms): 0 frames, fps not measured, jank not measured; cpu 3.2%; pss max not measured;" +
		" not measured: fps, jank (frames: no frame in the step); pss_max (memory: no dumpsys meminfo com.example read in the step (the step lasted 40ms; reads come every 1s))"
	if got := stepLine(st, false); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

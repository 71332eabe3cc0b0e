package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/excerpt"
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

// A bad value is quoted in a bounded excerpt, however long its line.
func TestRunScenarioLongValues(t *testing.T) {
	t.Parallel()
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
			if cerr := excerpt.Check(err.Error()); cerr != nil {
				t.Fatalf("%v, for %d bytes of input", cerr, len(b))
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
	// A step without frames says so where the frames are counted, not
	// only as the reason fps and jank are missing.
	want := "ok   tap (40ms): 0 frames (the app drew none in the step: is it on screen?), fps not measured, jank not measured; cpu 3.2%; pss max not measured;" +
		" not measured: fps, jank (frames: no frame in the step); pss_max (memory: no dumpsys meminfo com.example read in the step (the step lasted 40ms; reads come every 1s))"
	if got := stepLine(st, false); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// Budgets on a step the scenario lacks are an error before anything is
// measured, naming the file and line: a misspelt step is not a budget
// nobody checks.
func TestRunBudgetOnMissingStep(t *testing.T) {
	text := `{
  "package": "com.perfgate.demo",
  "steps": [
    { "name": "launch", "actions": [ { "action": "launch" } ] },
    { "name": "scroll", "actions": [ { "action": "swipe", "direction": "up" } ] }
  ],
  "budgets": {
    "launch": { "startup_initial": { "max": 1000 } },
    "scrol": { "jank": { "max": 3 } }
  }
}`
	_, err := parseScenario("feed.json", []byte(text))
	if want := `feed.json:9: budgets of step "scrol", which the scenario does not have (its steps: launch, scroll)`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// "results": "." is the scenario's own folder, wherever perfgate runs, and
// the scenario file there is never taken for a Result: two runs leave it
// as it was and write their Results beside it (in one process, as two
// sessions of one run: feed.2.json and feed.3.json; TestResultFilesFiveRuns
// shows runs of separate processes replacing each other's).
func TestRunResultsBesideScenario(t *testing.T) {
	t.Parallel()
	text := `{
  "package": "com.perfgate.demo",
  "simulated": { "workload": "smooth-scroll" },
  "steps": [ { "name": "scroll", "actions": [ { "action": "swipe", "direction": "up" } ] } ],
  "results": "."
}
`
	p := writeScenario(t, text)
	for i := range 2 {
		var out, errOut bytes.Buffer
		if err := runScenario([]string{p}, &out, &errOut); err != nil {
			t.Fatalf("run %d: %v\n%s%s", i+1, err, out.String(), errOut.String())
		}
		if b, err := os.ReadFile(p); err != nil || string(b) != text {
			t.Fatalf("run %d changed the scenario file: %v\n%s", i+1, err, b)
		}
		want := filepath.Join(filepath.Dir(p), fmt.Sprintf("feed.%d.json", i+2))
		if !strings.Contains(out.String(), "result: "+want+"\n") {
			t.Errorf("run %d: the Result is not %s:\n%s", i+1, want, out.String())
		}
		if r, err := perftest.ReadResult(want); err != nil || r.Name != "feed" {
			t.Errorf("run %d: %v", i+1, err)
		}
	}
	if _, err := parseScenario("x.json", []byte(`{"package": "com.x", "steps": [{"name": "a", "actions": [{"action": "launch", "iterations": 100000000}]}]}`)); err == nil ||
		!strings.Contains(err.Error(), "iterations 100000000 is over the maximum 1000") {
		t.Errorf("iterations 1e8: %v", err)
	}
}

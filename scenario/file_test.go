package scenario_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/excerpt"
	"github.com/perfgate/perfgate/scenario"
)

const okFile = `{
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
func TestParseFileLongValues(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("x", 1<<20)
	for _, text := range []string{
		`{"package": "` + huge + `", "steps": []}`,
		`{"package": "com.x", "` + huge + `": 1}`,
		`{"package": "com.x", "steps": [{"name": "` + huge + `", "actions": []}]}`,
		`{"package": "com.x", "steps": [{"name": "a", "actions": [{"action": "` + huge + `"}]}]}`,
		`{"package": "com.x", "steps": [{"name": "a", "actions": [{"action": "swipe", "direction": "` + huge + `"}]}]}`,
		`{"package": "com.x", "steps": [{"name": "a", "actions": [{"action": "launch", "kind": "` + huge + `"}]}]}`,
		`{"package": "com.x", "steps": [{"name": "a", "actions": [{"action": "back"}]}], "budgets": {"a": {"` + huge + `": {"max": 1}}}}`,
	} {
		_, err := scenario.ParseFile("feed.json", []byte(text), scenario.ParseOptions{})
		if err == nil || len(err.Error()) > 1000 || !strings.Contains(err.Error(), "bytes)") || !strings.HasPrefix(err.Error(), "feed.json") {
			t.Errorf("%d-byte error: %.300v", len(fmt.Sprint(err)), err)
		}
	}
}

// The scenario parser never panics, its errors quote a bounded excerpt,
// and an accepted file has named steps with actions.
func FuzzParseFile(f *testing.F) {
	f.Add([]byte(okFile))
	f.Add([]byte(`{"package": "com.x", "steps": [{"name": "a", "actions": [{"action": "tap_at", "x": 1, "y": 2}]}], "budgets": "b.json"}`))
	f.Add([]byte(`{"package": "com.x", "steps": [{"name": "a", "actions": [{"action": "key", "code": 4}]}], "budgets": {"a": {"fps": {"min": 1}}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		sc, err := scenario.ParseFile("s.json", b, scenario.ParseOptions{})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "s.json") {
				t.Fatalf("error without the file name: %v", err)
			}
			if cerr := excerpt.Check(err.Error()); cerr != nil {
				t.Fatalf("%v, for %d bytes of input", cerr, len(b))
			}
			return
		}
		var written struct{ Steps []json.RawMessage }
		if err := json.Unmarshal(b, &written); err != nil {
			t.Fatal(err)
		}
		if len(sc.Steps) == 0 || len(sc.Steps) != len(written.Steps) {
			t.Fatalf("accepted %d steps of %d", len(sc.Steps), len(written.Steps))
		}
		for _, st := range sc.Steps {
			if len(st.Actions) == 0 {
				t.Fatal("accepted a step without actions")
			}
		}
	})
}

// Every action of a scenario file is the Go action of the same name:
// a fling is scenario.FlingWith (50 ms, half the screen), not a swipe.
func TestParseFileActionsMatchGo(t *testing.T) {
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
	sc, err := scenario.ParseFile("feed.json", []byte(text), scenario.ParseOptions{})
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
	got := sc.Steps[0].Actions
	if len(got) != len(want) {
		t.Fatalf("%d actions, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].String() != want[i].String() {
			t.Errorf("action %d is %q, want %q", i+1, got[i], want[i])
		}
	}
}

// Budgets on a step the scenario lacks are an error before anything is
// measured, naming the file and line: a misspelt step is not a budget
// nobody checks.
func TestParseFileBudgetOnMissingStep(t *testing.T) {
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
	_, err := scenario.ParseFile("feed.json", []byte(text), scenario.ParseOptions{})
	if want := `feed.json:9: budgets of step "scrol", which the scenario does not have (its steps: launch, scroll)`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// Launch iterations are bounded: a hundred million is a typo that would
// run until killed.
func TestParseFileBounds(t *testing.T) {
	if _, err := scenario.ParseFile("x.json", []byte(`{"package": "com.x", "steps": [{"name": "a", "actions": [{"action": "launch", "iterations": 100000000}]}]}`), scenario.ParseOptions{}); err == nil ||
		!strings.Contains(err.Error(), "iterations 100000000 is over the maximum 1000") {
		t.Errorf("iterations 1e8: %v", err)
	}
}

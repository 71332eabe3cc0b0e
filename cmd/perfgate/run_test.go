package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simlab"
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
		if r, err := result.ReadResult(want); err != nil || r.Name != "feed" {
			t.Errorf("run %d: %v", i+1, err)
		}
	}
	if _, err := simlab.ParseScenarioFile("x.json", []byte(`{"package": "com.x", "steps": [{"name": "a", "actions": [{"action": "launch", "iterations": 100000000}]}]}`)); err == nil ||
		!strings.Contains(err.Error(), "iterations 100000000 is over the maximum 1000") {
		t.Errorf("iterations 1e8: %v", err)
	}
}

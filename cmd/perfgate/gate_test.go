package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
)

// gateScenario writes, into its own folder, the scenario feed.json on a
// simulated phone with noise on (seed), running the workload wl: a cold
// launch, then a two-second scroll.
func gateScenario(t *testing.T, wl *simdevice.Workload, seed int64) string {
	t.Helper()
	dir := t.TempDir()
	b, err := json.Marshal(wl)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "app.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	sc := `{
  "package": "com.perfgate.demo",
  "simulated": { "workload": "app.json", "noise": { "seed": ` + strconv.FormatInt(seed, 10) + `, "frame_pct": 3, "run_pct": 3 } },
  "steps": [
    { "name": "launch", "actions": [ { "action": "launch", "kind": "cold" } ] },
    { "name": "scroll", "actions": [ { "action": "swipe", "direction": "up" }, { "action": "sleep", "ms": 1800 } ] }
  ]
}
`
	p := filepath.Join(dir, "feed.json")
	if err := os.WriteFile(p, []byte(sc), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// `perfgate compare` of one run of a smooth app against one run of the
// same app made janky (jank 0 → 5 or more, frame_time_p99 about five times longer)
// fails: one run a side cannot say how much runs differ, but a change that
// large needs nothing beyond the frames it rests on, and the line says
// so. The same app against itself (another seed) passes.
func TestCompareOneSmoothRunWithOneJankyRun(t *testing.T) {
	t.Parallel()
	smooth, err := simdevice.Preset("smooth-scroll")
	if err != nil {
		t.Fatal(err)
	}
	janky, _ := simdevice.Preset("smooth-scroll")
	janky.Phases[0].Janks = []simdevice.Jank{{At: []int{15, 35, 55, 75, 95}, Vsyncs: 3}}
	run := func(wl *simdevice.Workload, seed int64) string {
		p := gateScenario(t, wl, seed)
		var out, errOut bytes.Buffer
		if err := runScenario([]string{p}, &out, &errOut); err != nil {
			t.Fatalf("run %s: %v\n%s%s", p, err, out.String(), errOut.String())
		}
		return filepath.Join(filepath.Dir(p), "perf-results")
	}
	base, same, bad := run(smooth, 1), run(smooth, 2), run(janky, 3)

	var out, errOut bytes.Buffer
	err = runCompare([]string{"-write", base, bad}, &out, &errOut)
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 1 {
		t.Fatalf("compare smooth janky: %v, want exit 1\n%s", err, out.String())
	}
	text := out.String()
	t.Logf("%s", text)
	// The verdict rests on the new Result, for the reports to show.
	r, err := result.ReadResult(filepath.Join(bad, "feed.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The line quotes the jank the new run measured: the workload's five
	// late frames, and any the phone's frame noise (3 %, on the wall
	// clock) made late too.
	jank := -1
	for _, m := range r.Step("scroll").Metrics() {
		if m.Name == metrics.Jank {
			jank = int(m.Value)
		}
	}
	if jank < 5 {
		t.Fatalf("the janky run measured jank %d in scroll, want the workload's 5 at least", jank)
	}
	for _, want := range []string{fmt.Sprintf("perf regression: feed on Google Pixel 7, API 33: scroll: jank 0 → %d (+%d frames, p<0.001, 1+1 runs, ", jank, jank), " frames, frames alone)"} {
		if !strings.Contains(text, want) {
			t.Errorf("compare smooth janky lacks %q:\n%s", want, text)
		}
	}
	found := false
	for _, v := range r.Verdicts {
		if v.Kind == budget.KindRegression && v.Metric == "jank" {
			found = v.Fails() && v.Gate != nil && v.Gate.Method == budget.FramesOnly && strings.Contains(v.Line, fmt.Sprintf("jank 0 → %d", jank))
		}
	}
	if !found {
		t.Errorf("the janky Result keeps no failing jank regression verdict: %+v", r.Verdicts)
	}

	out.Reset()
	if err := runCompare([]string{base, same}, &out, &errOut); err != nil {
		t.Errorf("compare smooth smooth: %v\n%s", err, out.String())
	}
}

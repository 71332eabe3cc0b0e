package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/devicepool"
	"github.com/perfgate/perfgate/simlab"
)

const poolScenario = `{
  "package": "com.perfgate.demo",
  "steps": [
    { "name": "launch", "actions": [ { "action": "launch", "kind": "cold", "iterations": 1 } ] },
    { "name": "scroll", "actions": [ { "action": "swipe", "direction": "up", "count": 2 }, { "action": "sleep", "ms": 300 } ] }
  ],
  "budgets": "feed.budget.json"
}
`

// TestRunOnPool: `perfgate run -pool` runs a scenario on each phone of a
// lab (one on the pure-Go adb server, a slow one on the stock adb server);
// -update records each model's budgets in a file with budgets per model
// (the metrics its shared budgets name);
// the next run checks each phone against its own; `perfgate report` over
// the Results shows the two side by side; -shard runs one of them.
func TestRunOnPool(t *testing.T) {
	lab := simlab.Start(t, simlab.Lab{Phones: []simlab.Phone{
		{Model: "Pixel 8", API: 34, Workload: "smooth-scroll"},
		{Model: "Pixel 3", API: 28, Speed: 0.5, Workload: "smooth-scroll", Server: simlab.ServerADB},
	}})
	for _, k := range []string{devicepool.EnvConfig, devicepool.EnvModels, devicepool.EnvAPI, devicepool.EnvSerial, devicepool.EnvShard, budget.EnvUpdate} {
		t.Setenv(k, "")
	}
	t.Setenv(devicepool.EnvServers, strings.Join(lab.Servers(), ","))
	dir := t.TempDir()
	scen := filepath.Join(dir, "feed.json")
	budgets := filepath.Join(dir, "feed.budget.json")
	if err := os.WriteFile(scen, []byte(poolScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(budgets, []byte(`{"schema": "perfgate.budget/v1",
  "steps": {"launch": {"startup_initial": {"max": 5000, "unit": "ms"}}, "scroll": {"jank": {"max": 100, "unit": "frames"}}},
  "models": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	runCLI := func(args ...string) (string, error) {
		var out, errb syncBuffer
		err := run(args, &out, &errb)
		return out.String() + errb.String(), err
	}
	out, err := runCLI("run", "-pool", "-update", scen)
	if err != nil {
		t.Fatalf("run -pool -update: %v\n%s", err, out)
	}
	f, err := budget.ReadBudgetFile(budgets)
	if err != nil {
		t.Fatal(err)
	}
	// Each model gets the metrics the shared budgets name, no others.
	if len(f.Models) != 2 || f.Models["Google Pixel 8"] == nil || f.Models["Google Pixel 3"] == nil ||
		len(f.Models["Google Pixel 3"].Steps["launch"]) != 1 || len(f.Models["Google Pixel 3"].Steps["scroll"]) != 1 {
		t.Fatalf("budgets per model after -update: %v\n%s", f.Models, out)
	}
	// The slow Pixel 3 takes twice as long to launch, and its budget says so.
	fast, slow := f.Models["Google Pixel 8"].Steps["launch"]["startup_initial"], f.Models["Google Pixel 3"].Steps["launch"]["startup_initial"]
	if fast == nil || slow == nil || *slow.Max < 1.8**fast.Max {
		t.Errorf("startup budgets: Pixel 8 %v, Pixel 3 %v", fast, slow)
	}
	if out, err := runCLI("run", "-pool", scen); err != nil || !strings.Contains(out, "run: passed on 2 devices") {
		t.Fatalf("run -pool: %v\n%s", err, out)
	}
	out, err = runCLI("report", "-budgets", budgets, filepath.Join(dir, "perf-results"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### Devices side by side", "#### feed · `launch`", "Google Pixel 8 (API 34)", "Google Pixel 3 (API 28)", "✅ all budgets met"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	// A shard, and a model named by flag, at once: each on its own phone
	// (the pool lists the pure-Go server's Pixel 8 first).
	var wg sync.WaitGroup
	var shardOut, modelOut string
	var shardErr, modelErr error
	wg.Go(func() { shardOut, shardErr = runCLI("run", "-pool", "-shard", "1/2", scen) })
	wg.Go(func() {
		modelOut, modelErr = runCLI("run", "-pool", "-servers", strings.Join(lab.Servers(), ","), "-models", "Pixel 3", scen)
	})
	wg.Wait()
	if shardErr != nil || !strings.Contains(shardOut, "on 1 devices") || !strings.Contains(shardOut, "=== Google Pixel 8 (API 34") {
		t.Errorf("run -pool -shard 1/2: %v\n%s", shardErr, shardOut)
	}
	if modelErr != nil || !strings.Contains(modelOut, "on 1 devices") || !strings.Contains(modelOut, "=== Google Pixel 3 (API 28") {
		t.Errorf("run -pool -servers … -models 'Pixel 3': %v\n%s", modelErr, modelOut)
	}
	// Flags over the environment: a server the flag names that is not
	// there fails the run, although the environment names the lab's.
	if _, err := runCLI("run", "-pool", "-servers", "nohost", scen); err == nil || !strings.Contains(err.Error(), `adb server "nohost"`) {
		t.Errorf("-servers nohost: %v", err)
	}
	// And with no servers in the environment, the flag's are used.
	t.Setenv(devicepool.EnvServers, "")
	if out, err := runCLI("run", "-pool", "-servers", strings.Join(lab.Servers(), ","), "-models", "Pixel 8", "-shard", "2/2", scen); err == nil || !strings.Contains(err.Error(), "shard 2/2 of 1 devices is empty") {
		t.Errorf("-servers … -models 'Pixel 8' -shard 2/2 without the environment: %v\n%s", err, out)
	}
	if _, err := runCLI("run", "-pool", "-serial", "x", scen); err == nil || !strings.Contains(err.Error(), "-pool picks the devices") {
		t.Errorf("-pool -serial: %v", err)
	}
}

package scenario_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/scenario"
	"github.com/perfgate/perfgate/simdevice"
)

// Measure the cold start of the simulated phone's app, the way
// Macrobenchmark does.
func ExampleMeasureStartup() {
	wl, _ := simdevice.Preset("smooth-scroll")
	sim, _ := simdevice.New(simdevice.Config{Workload: wl})
	defer sim.Close()
	srv := adbtest.NewServer(sim)
	defer srv.Close()
	ctx := context.Background()
	dev := srv.Open("")
	s, err := scenario.MeasureStartup(ctx, dev, wl.Package, scenario.Cold, scenario.StartupOptions{FullyDrawn: 4 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s start: initial display %d ms, full display %d ms\n", s.LaunchState, s.TotalTimeMs, s.FullyDrawnMs)
	// Output:
	// COLD start: initial display 650 ms, full display 900 ms
}

// Drive the simulated phone's app through its uiautomator2 server.
func ExampleConnect() {
	sim, _ := simdevice.New(simdevice.Config{})
	defer sim.Close()
	srv := adbtest.NewServer(sim)
	defer srv.Close()
	ctx := context.Background()
	dev := srv.Open("")
	d, err := scenario.Connect(ctx, dev, scenario.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()
	w, h := d.Size()
	fmt.Printf("screen %dx%d\n", w, h)
	// Output:
	// screen 1080x2400
}

// Actions describe themselves; a step that fails names the action.
func ExampleFlingWith() {
	fmt.Println(scenario.Fling(scenario.Up))
	fmt.Println(scenario.FlingWith(scenario.SwipeOptions{Direction: scenario.Down, Count: 3, Distance: 0.8}))
	fmt.Println(scenario.Swipe(scenario.Up, 2))
	// Output:
	// fling up ×1
	// fling down ×3
	// swipe up ×2
}

// Read a scenario file, the JSON `perfgate run` takes, into steps of Go
// actions and the session's configuration.
func ExampleParseFile() {
	f, err := scenario.ParseFile("feed.json", []byte(`{
  "package": "com.example.feed",
  "steps": [
    { "name": "launch", "actions": [ { "action": "launch", "kind": "cold", "iterations": 3 } ] },
    { "name": "scroll", "actions": [ { "action": "swipe", "direction": "up", "count": 5 } ], "expect_crash": true }
  ],
  "budgets": "feed.budget.json"
}`), scenario.ParseOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, st := range f.Steps {
		fmt.Println(st.Name, st.Actions)
	}
	cfg := f.Config()
	fmt.Println(cfg.Name, cfg.ResultsDir, f.BudgetPath, cfg.ExpectCrash)
	// Output:
	// launch [launch cold ×3]
	// scroll [swipe up ×5]
	// feed perf-results ./feed.budget.json [scroll]
}

package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/internal/fixtures"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/internal/testenv"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
)

// TestMain installs the test binary as the perfgate command that scripts
// (and the process tests) run. Under -race a process waits a second at
// exit for late reports (GORACE atexit_sleep_ms, 1000 by default); the
// perfgate processes the tests start are done when they exit, so unless
// GORACE says otherwise they skip that wait (over a hundred of them ran a
// second longer each).
func TestMain(m *testing.M) {
	testenv.SkipRaceExitSleep()
	if _, ok := os.LookupEnv("GORACE"); !ok {
		os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
	// The scripts, and the tests that record from a phone of their own,
	// run four at once: they mostly wait on the processes they start and
	// the simulated phones those drive. Tests that set environment
	// variables stay serial.
	testenv.WaitingParallel(4)
	testscript.Main(m, map[string]func(){"perfgate": main})
}

// recordedResult is a Result of the simulated janky-scroll app, recorded
// by the report package's tests: scroll has 3 deadline-missed frames.
const recordedResult = "../../report/testdata/janky-scroll.json"

// TestScripts runs the CLI as a user does, one script per behaviour, in
// testdata/script/*.txtar. Besides testscript's own commands a script has:
//
//	sim [-deny SERVICE]       start a simulated phone with the janky-scroll app drawing,
//	                          served in this process; $ADB and $SERIAL reach it
//	iterations DIR N START STEP
//	                          N Results of a step "scroll" with frame time p95 START,
//	                          START+STEP, … ms
//	runs DIR FACTOR           six copies of $RECORDED, frame time p95 and p99 × FACTOR
//
// and the condition [fixtures]: the real-device captures are at $FIXTURES
// (without them a script that needs them skips, or fails when
// PERFGATE_REQUIRE_FIXTURES=1). $RECORDED is the janky-scroll Result the
// report package's tests recorded.
func TestScripts(t *testing.T) {
	t.Parallel()
	recorded, err := filepath.Abs(recordedResult)
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(e *testscript.Env) error {
			e.Setenv("RECORDED", recorded)
			e.Setenv("GORACE", os.Getenv("GORACE"))
			if dir, err := fixtures.Root(); err == nil {
				e.Setenv("FIXTURES", dir)
			}
			return nil
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "fixtures":
				_, err := fixtures.Root()
				if err != nil && os.Getenv("PERFGATE_REQUIRE_FIXTURES") == "1" {
					return false, fmt.Errorf("real-device captures not found and PERFGATE_REQUIRE_FIXTURES=1: %v", err)
				}
				return err == nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"sim":        cmdSim,
			"iterations": cmdIterations,
			"runs":       cmdRuns,
		},
	})
}

// scriptTB lets the test helpers fail a script.
type scriptTB struct{ ts *testscript.TestScript }

func (s scriptTB) Helper()                           {}
func (s scriptTB) Fatalf(format string, args ...any) { s.ts.Fatalf(format, args...) }
func (s scriptTB) Cleanup(f func())                  { s.ts.Defer(f) }

func cmdSim(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! sim")
	}
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	deny := fs.String("deny", "", "a dumpsys `service` that refuses the caller")
	ts.Check(fs.Parse(args))
	wl, err := simdevice.Preset("janky-scroll")
	ts.Check(err)
	cfg := simdevice.Config{Workload: simtest.QuickStart(wl), RefreshHz: 60}
	if *deny != "" {
		cfg.Quirks.DeniedServices = []string{*deny}
	}
	dev, srv := simtest.Serve(scriptTB{ts}, cfg)
	simtest.Launch(scriptTB{ts}, srv.Open(dev.Serial()), dev)
	ts.Setenv("ADB", srv.Addr)
	ts.Setenv("SERIAL", dev.Serial())
}

// floats parses a script command's numeric arguments.
func floats(ts *testscript.TestScript, args []string) []float64 {
	var v []float64
	for _, a := range args {
		f, err := strconv.ParseFloat(a, 64)
		ts.Check(err)
		v = append(v, f)
	}
	return v
}

func cmdIterations(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: iterations DIR N START STEP")
	}
	dir := ts.MkAbs(args[0])
	v := floats(ts, args[1:])
	for i := range int(v[0]) {
		p95 := v[1] + v[2]*float64(i)
		st := &result.Step{Name: "scroll"}
		st.FrameStats = frames.Summary{Source: "gfxinfo", Frames: 100, FPS: 60, JankDefinition: frames.JankDefinitionDeadlineMissed,
			FrameTimeMS: frames.Percentiles{P50: 7, P90: p95, P95: p95, P99: p95}}
		r := &result.Result{Schema: result.Schema, Name: "TestScroll", App: result.AppInfo{Package: "com.example"}, Steps: []*result.Step{st}}
		ts.Check(r.WriteFile(filepath.Join(dir, fmt.Sprintf("run%02d.json", i))))
	}
}

func cmdRuns(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: runs DIR FACTOR")
	}
	dir := ts.MkAbs(args[0])
	f := floats(ts, args[1:])[0]
	for i := range 6 {
		r, err := result.ReadResult(ts.Getenv("RECORDED"))
		ts.Check(err)
		for _, st := range r.Steps {
			st.FrameStats.FrameTimeMS.P95 *= f
			st.FrameStats.FrameTimeMS.P99 *= f
		}
		ts.Check(r.WriteFile(filepath.Join(dir, fmt.Sprintf("run%d.json", i))))
	}
}

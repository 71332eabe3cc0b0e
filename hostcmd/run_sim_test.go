package hostcmd_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/hostcmd"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/scenario"
	"github.com/perfgate/perfgate/simdevice"
)

// flingWorkload is testdata/fling.json: an app that draws only for 500 ms
// after a swipe, frames 8 and 20 of them three vsyncs long, and is idle
// otherwise, so a step that holds the whole fling has the same frames
// however long it lasts.
const flingWorkload = "testdata/fling.json"

// flingPhone serves the fling app on in-memory pipes (call it in a
// bubble), launched and done drawing its first screen.
func flingPhone(t *testing.T) (*simdevice.Device, *adbx.Device) {
	t.Helper()
	wl, err := simdevice.LoadWorkload(flingWorkload)
	if err != nil {
		t.Fatal(err)
	}
	dev, srv := simtest.ServePipe(t, simdevice.Config{Workload: wl, RefreshHz: 60})
	d := srv.Open(dev.Serial())
	simtest.Launch(t, d, dev)
	settle(dev)
	return dev, d
}

// flingSession starts a session "flow" on a flingPhone (call it in a
// bubble), as a command run does.
func flingSession(t *testing.T) (*simdevice.Device, *adbx.Device, *perftest.Session) {
	t.Helper()
	dev, d := flingPhone(t)
	s, err := perftest.NewSession(context.Background(), d, perftest.Config{Name: "flow", ResultsDir: t.TempDir(), Package: dev.World().Package(), WaitForApp: true})
	if err != nil {
		t.Fatal(err)
	}
	return dev, d, s
}

// offGrid waits 50 ms, so that the step that follows begins and ends
// between two of the session's ticks (every 100 ms from its start): a tick
// due at the instant a step ends falls on either side of it.
func offGrid() { time.Sleep(50 * time.Millisecond) }

// settle waits until the app's launch phase (100 ms) is over on the
// phone's clock.
func settle(dev *simdevice.Device) {
	first := dev.World().TruthFrames()[0].IntendedVsync
	for dev.World().Uptime() < time.Duration(first)+300*time.Millisecond {
		time.Sleep(10 * time.Millisecond)
	}
}

// The same swipe through a scenario step and through a command run by
// hostcmd.Run (in process here, so that both run on the bubble's fake
// clock) gives the same Result: every field of the step but the command
// it ran around (Step.Command), the verdicts of the same budgets, the
// notes.
func TestRunEqualsScenario(t *testing.T) {
	t.Parallel()
	budgets, err := budget.ParseBudgetFile("budgets.json", []byte(`{"schema": "`+budget.BudgetSchema+`",
		"steps": {"scroll": {"jank": {"max": 1}, "fps": {"min": 55}, "pss_max": {"max": 200000}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var viaScenario, viaCommand *result.Result
	var truth []simdevice.TruthFrame
	simtest.Bubble(t, func(t *testing.T) {
		dev, d := flingPhone(t)
		ctx := context.Background()
		sc, err := scenario.New(ctx, d, dev.World().Package(), perftest.Config{Name: "flow", ResultsDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		offGrid()
		sc.StepContext(ctx, "scroll", scenario.Swipe(scenario.Up, 1), scenario.Sleep(time.Second))
		viaScenario = sc.Stop()
		truth = dev.World().TruthFrames()
	})
	simtest.Bubble(t, func(t *testing.T) {
		dev, d, s := flingSession(t)
		ctx := context.Background()
		var env []string
		offGrid()
		its := hostcmd.Run(ctx, s, d, []string{"sh", "-c", "adb shell input swipe 540 1600 540 640 300; sleep 1.2"}, hostcmd.Config{
			Package: dev.World().Package(), Step: "scroll", Restart: hostcmd.None,
			Exec: func(ctx context.Context, c hostcmd.Command) (int, error) {
				env = c.Env
				r, err := d.Shell(ctx, "input swipe 540 1600 540 640 300")
				// The scenario's swipe pauses 200 ms after the gesture
				// (scenario.SwipeOptions.Pause), then sleeps a second.
				time.Sleep(1200 * time.Millisecond)
				return r.ExitCode, err
			}})
		viaCommand = s.Stop()
		if len(its) != 1 || its[0].Step != "scroll" || its[0].Exit != 0 || its[0].Failed != "" {
			t.Errorf("iterations %+v", its)
		}
		for _, want := range []string{"ANDROID_SERIAL=" + d.Serial(), "ADB_SERVER_SOCKET=tcp:" + d.Server(), "PERFGATE_ITERATION=1", "PERFGATE_STEP=scroll"} {
			if !contains(env, want) {
				t.Errorf("the command's environment lacks %s", want)
			}
		}
	})
	a, b := viaScenario.Step("scroll"), viaCommand.Step("scroll")
	if a == nil || b == nil || len(viaScenario.Steps) != 1 || len(viaCommand.Steps) != 1 {
		t.Fatalf("steps %v and %v", viaScenario.Steps, viaCommand.Steps)
	}
	// What differs: the command step says what ran around it.
	want := result.Command{Argv: []string{"sh", "-c", "adb shell input swipe 540 1600 540 640 300; sleep 1.2"}, Exit: 0, Log: "flow__scroll.log"}
	if a.Command != nil || b.Command == nil || !reflect.DeepEqual(*b.Command, want) {
		t.Errorf("commands %+v and %+v, want none and %+v", a.Command, b.Command, want)
	}
	b.Command = nil
	// Every other field as the Result file has it (time.Time values of
	// one instant may differ in their monotonic reading).
	if ja, jb := jsonOf(t, a), jsonOf(t, b); ja != jb {
		t.Errorf("the step differs:\nscenario %s\ncommand %s", ja, jb)
	}
	if !reflect.DeepEqual(viaScenario.Notes, viaCommand.Notes) {
		t.Errorf("notes:\nscenario %q\ncommand %q", viaScenario.Notes, viaCommand.Notes)
	}
	va, _ := budget.CheckFile(viaScenario, budgets)
	vb, _ := budget.CheckFile(viaCommand, budgets)
	if len(va) != 3 || !reflect.DeepEqual(va, vb) {
		t.Errorf("verdicts:\nscenario %+v\ncommand %+v", va, vb)
	}
	// Against the truth: every frame of the fling, both janks.
	fling := 0
	for _, f := range truth {
		if f.Phase == "fling" {
			fling++
		}
	}
	if fs := b.Frames(); fs.Frames != fling || fs.DeadlineMissed == nil || *fs.DeadlineMissed != 2 || fling < 25 {
		t.Errorf("command step: %d frames, %v deadline missed; the phone drew %d, 2 janky", fs.Frames, fs.DeadlineMissed, fling)
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func contains(env []string, kv string) bool {
	for _, e := range env {
		if e == kv {
			return true
		}
	}
	return false
}

// A command past Config.Timeout is stopped and fails its iteration's
// step, which lasted the timeout; the iterations after it do not run.
// The first iteration's figures are kept.
func TestRunTimeout(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		dev, d, s := flingSession(t)
		ctx := context.Background()
		ran := 0
		its := hostcmd.Run(ctx, s, d, []string{"maestro", "test", "flow.yaml"}, hostcmd.Config{
			Package: dev.World().Package(), Iterations: 3, Timeout: 2 * time.Second, Restart: hostcmd.None,
			Exec: func(ctx context.Context, c hostcmd.Command) (int, error) {
				ran++
				if ran == 1 {
					r, err := d.Shell(ctx, "input swipe 540 1600 540 640 300")
					time.Sleep(time.Second)
					return r.ExitCode, err
				}
				<-ctx.Done() // a flow that never ends
				return -1, ctx.Err()
			}})
		r := s.Stop()
		if ran != 2 || len(its) != 2 || its[0].Failed != "" || its[1].Exit != -1 {
			t.Fatalf("ran %d, iterations %+v", ran, its)
		}
		want := `perfgate run "iteration#2": "maestro test flow.yaml": timed out after 2s (output ` + s.ResultsDir() + "/flow__iteration_2.log)"
		if its[1].Failed != want {
			t.Errorf("failed: %s\nwant    %s", its[1].Failed, want)
		}
		if len(r.Steps) != 2 || r.Steps[1].Name != "iteration#2" || r.Steps[1].HostEndNs-r.Steps[1].HostStartNs != int64(2*time.Second) {
			t.Fatalf("steps %+v", r.Steps)
		}
		if c := r.Steps[1].Command; c == nil || c.Exit != -1 || c.Log != "flow__iteration_2.log" || r.Steps[0].Command.Exit != 0 {
			t.Errorf("commands %+v and %+v", r.Steps[0].Command, c)
		}
		if st := r.Step("iteration"); st.Frames().Frames == 0 || st.ActionFailed != "" {
			t.Errorf("the first iteration: %d frames, failed %q", st.Frames().Frames, st.ActionFailed)
		}
		var fails []budget.Verdict
		for _, v := range r.Verdicts {
			if v.Fails() {
				fails = append(fails, v)
			}
		}
		if len(fails) != 1 || fails[0].Kind != budget.KindAction || fails[0].Step != "iteration#2" || fails[0].Line != want {
			t.Errorf("failing verdicts %+v", fails)
		}
	})
}

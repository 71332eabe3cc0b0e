package scenario_test

import (
	"errors"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/scenario"
	"github.com/perfgate/perfgate/simdevice"
)

// Every action against the simulated phone's ground truth, on the
// bubble's clock: a launch shows the app after the workload's startup
// time, tapping "Stop" stops its frames, swiping scrolls and renders
// frames, BACK and HOME leave the app, a wait finds what is there.
func TestActions(t *testing.T) {
	t.Parallel()
	simtest.FakeClock(t, func(t *testing.T) ([]string, bool) { return actionsRun(t, server) })
}

// actionsRun is one run of TestActions: its problems, and whether the
// session lost frames to a host stalled past the phone's frame buffer, or
// could not poll them at all.
func actionsRun(t *testing.T, ep endpoint) (problems []string, stalled bool) {
	p := newPhone(t, ep, "smooth-scroll", nil)
	results := t.TempDir()
	sc := scenario.Start(t, p.dev, p.pkg, perftest.WithResultsDir(results), perftest.WithInterval(50*time.Millisecond))
	if !sc.Step("launch", scenario.Launch(scenario.Cold), scenario.WaitFor(scenario.Text("Scroll"), 3*time.Second)) {
		t.FailNow()
	}
	sc.Step("stop", scenario.Tap(scenario.Text("Stop")), scenario.Sleep(800*time.Millisecond))
	sc.Step("scroll", scenario.Swipe(scenario.Up, 3))
	sc.Step("fling", scenario.Fling(scenario.Up), scenario.Sleep(300*time.Millisecond))
	sc.Step("tap id", scenario.Tap(scenario.ID(p.pkg+":id/stop")), scenario.Tap(scenario.Desc("feed")), scenario.TapAt(200, 2270), scenario.Sleep(400*time.Millisecond))
	sc.Step("back", scenario.Back(), scenario.Sleep(800*time.Millisecond))
	r := sc.Stop()

	truth := p.sim.World().Truth()
	if len(truth.Startups) != 1 || truth.Startups[0].Kind != "COLD" {
		t.Fatalf("startups %+v, want one cold launch", truth.Startups)
	}
	launch := r.Step("launch").Startup
	if launch == nil || launch.InitialDisplayMs != float64(truth.Startups[0].Displayed.Milliseconds()) || launch.Iterations[0].DisplayedMs != 650 {
		problems = append(problems, fmt.Sprintf("launch startup %+v, truth %v", launch, truth.Startups[0].Displayed))
	}
	// After "Stop" the app renders nothing until the swipe.
	stop, scroll := r.Step("stop"), r.Step("scroll")
	if n := truthFramesIn(p.sim, settled(r, stop, 800*time.Millisecond), unsettled(r, stop)); n != 0 {
		problems = append(problems, fmt.Sprintf("%d frames after tapping Stop, want none (%s)", n, truthSpan(p.sim, stop.DeviceStartNs, stop.DeviceEndNs)))
	}
	if why := scroll.NotMeasured["frames"]; why != "" {
		// A host too busy to poll the phone after the step: the session
		// says so rather than give a count it could only know in part.
		return append(problems, "scroll step: frames not measured: "+why), true
	}
	if got, want := scroll.Frames().Frames, truthFramesIn(p.sim, scroll.DeviceStartNs, scroll.DeviceEndNs); got == 0 || got != want {
		problems = append(problems, fmt.Sprintf("scroll step: %d frames measured, the phone rendered %d (%s)", got, want, frameLoss(r, p.sim, scroll.DeviceStartNs, scroll.DeviceEndNs)))
	}
	// Tapping Stop by id stops the scroll that TapAt(Scroll) restarts.
	tap := r.Step("tap id")
	if n := truthFramesIn(p.sim, tap.DeviceEndNs-int64(200*time.Millisecond), tap.DeviceEndNs); n == 0 {
		problems = append(problems, fmt.Sprintf("no frames after tapping the Scroll button by coordinates (step %s)", truthSpan(p.sim, tap.DeviceStartNs, tap.DeviceEndNs)))
	}
	back := r.Step("back")
	if n := truthFramesIn(p.sim, settled(r, back, 800*time.Millisecond), unsettled(r, back)); n != 0 {
		problems = append(problems, fmt.Sprintf("%d frames after BACK, want none: the app left the screen", n))
	}
	var names []string
	for _, st := range r.Steps {
		names = append(names, st.Name)
	}
	if got := strings.Join(names, ","); got != "launch,stop,scroll,fling,tap id,back" {
		problems = append(problems, fmt.Sprintf("steps %s", got))
	}
	return problems, wrapped(r)
}

// wrapped reports whether the session recorded frames lost to a frame
// buffer that wrapped between two polls.
func wrapped(r *result.Result) bool {
	for _, g := range r.Gaps {
		if strings.Contains(g.Error, "frame buffer wrapped") {
			return true
		}
	}
	return false
}

// settled is the device time from which a step that ends in a sleep of
// the given length has had every earlier action take effect: the actions
// returned before the sleep began, and the step's end is placed on the
// phone's clock within the clock map's uncertainty. A fixed time after the
// step's start would not do: on a busy host the action itself may take
// longer than that to reach the phone.
func settled(r *result.Result, st *result.Step, sleep time.Duration) int64 {
	return st.DeviceEndNs - int64(sleep) + int64(math.Ceil(r.Clock.UncertaintyMs*1e6)) + 1
}

// unsettled is the device time from which a step's frames may be the next
// step's: its end, placed on the phone's clock within the clock map's
// uncertainty. On the wall clock the next step's first action reaches the
// phone a round trip after the step ended; on a fake clock it reaches it
// at the very instant, and its first frame's vsync can be on either side
// of the end the step records.
func unsettled(r *result.Result, st *result.Step) int64 {
	return st.DeviceEndNs - int64(math.Ceil(r.Clock.UncertaintyMs*1e6))
}

// frameLoss says where the frames the phone rendered in [from, to) went
// that the step does not count: measured in another window, rejected (and
// why), or in no poll at all (the first and last such vsync from the
// step's start); with the session's gaps, the clock map's uncertainty and
// the longest time between two ticks' device clocks.
func frameLoss(r *result.Result, sim *simdevice.Device, from, to int64) string {
	held := map[int64]string{}
	for _, f := range r.Frames {
		held[f.IntendedVsync] = "window " + f.Window
	}
	for _, f := range r.RejectedFrames {
		held[f.IntendedVsync] = "rejected " + f.Reason
	}
	where := map[string]int{}
	var lost []int64
	for _, f := range sim.World().TruthFrames() {
		if f.IntendedVsync < from || f.IntendedVsync >= to {
			continue
		}
		if w, ok := held[f.IntendedVsync]; ok {
			where[w]++
		} else {
			lost = append(lost, (f.IntendedVsync-from)/1e6)
		}
	}
	s := fmt.Sprintf("held: %v; in no poll: %d", where, len(lost))
	if len(lost) > 0 {
		s += fmt.Sprintf(" from %d ms to %d ms", lost[0], lost[len(lost)-1])
	}
	var stall int64
	for i := 1; i < len(r.Samples); i++ {
		if a, b := r.Samples[i-1].UptimeNs, r.Samples[i].UptimeNs; a > 0 && b > 0 {
			stall = max(stall, b-a)
		}
	}
	s += fmt.Sprintf("; %d gaps", len(r.Gaps))
	if len(r.Gaps) > 0 {
		s += fmt.Sprintf(", first %q", r.Gaps[0].Error)
	}
	return s + fmt.Sprintf("; clock ±%.1f ms; longest tick gap %d ms; %d notes", r.Clock.UncertaintyMs, stall/1e6, len(r.Notes))
}

// truthSpan is the phone's frames in [from, to) as their vsyncs from
// from, in ms.
func truthSpan(sim *simdevice.Device, from, to int64) string {
	var at []int64
	for _, f := range sim.World().TruthFrames() {
		if f.IntendedVsync >= from && f.IntendedVsync < to {
			at = append(at, (f.IntendedVsync-from)/1e6)
		}
	}
	return fmt.Sprintf("%d ms long, the phone's frames at %v ms", (to-from)/1e6, at)
}

// truthFramesIn counts the frames the phone rendered with intended vsync
// in [from, to).
func truthFramesIn(sim *simdevice.Device, from, to int64) int {
	n := 0
	for _, f := range sim.World().TruthFrames() {
		if f.IntendedVsync >= from && f.IntendedVsync < to {
			n++
		}
	}
	return n
}

// A janky workload janks while it scrolls; a crash-on-tap one dies.
func TestJankAndCrash(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		ep := server
		p := newPhone(t, ep, "crash-on-tap", nil)
		sc := scenario.Start(t, p.dev, p.pkg, perftest.WithResultsDir(t.TempDir()), perftest.ExpectCrash("crash"))
		sc.Step("launch", scenario.Launch(scenario.Cold))
		sc.Step("crash", scenario.Tap(scenario.Text("Crash")), scenario.Sleep(800*time.Millisecond))
		r := sc.Stop()
		if !r.Step("crash").Crashed() || p.sim.World().Truth().Crashes != 1 {
			t.Errorf("crash step crashed=%v, the phone crashed %d times", r.Step("crash").Crashed(), p.sim.World().Truth().Crashes)
		}
	})
}

// An element that never appears fails the step with the selector, the
// wait and the texts on screen, saves a screenshot beside the results, and
// the test goes on.
func TestElementNotFound(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		ep := server
		p := newPhone(t, ep, "smooth-scroll", nil)
		results := t.TempDir()
		ft := &fakeT{}
		sc := scenario.Start(ft, p.dev, p.pkg, perftest.WithResultsDir(results))
		if sc == nil {
			t.Fatalf("start: %q", ft.errs)
		}
		sc.Step("launch", scenario.Launch(scenario.Hot))
		ok := sc.Step("open", scenario.WaitFor(scenario.Text("Settings"), 700*time.Millisecond), scenario.Tap(scenario.Text("Stop")))
		if ok {
			t.Fatal("waiting for a missing element succeeded")
		}
		shot := filepath.Join(results, "perftest__open@"+strings.NewReplacer(":", "_", "/", "_").Replace(p.dev.Serial())+".png")
		// The texts the screen shows, closest to "Settings" first (edit
		// distances 6, 7 and 11, case aside).
		want := `scenario step "open": wait for text "Settings": scenario wait: element not found: text "Settings" within 700ms; ` +
			`texts on screen, closest first: "Stop", "Scroll", "perfgate demo" (screenshot ` + shot + ")"
		if len(ft.errs) != 1 || ft.errs[0] != want || ft.failNow {
			t.Fatalf("got %q\nwant %q", ft.errs, want)
		}
		f, err := os.Open(shot)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := png.Decode(f); err != nil {
			t.Errorf("screenshot is not a PNG: %v", err)
		}
		// The step's other actions were skipped: Stop was never tapped,
		// so the app still scrolls, as the phone's truth shows (what
		// the session measured of so short a step may be nothing on a
		// busy host, and says so).
		sc.Step("after", scenario.Sleep(300*time.Millisecond))
		r := sc.Stop()
		if after := r.Step("after"); truthFramesIn(p.sim, after.DeviceStartNs, after.DeviceEndNs) == 0 {
			t.Errorf("the app stopped: an action after the failing one ran (measured %d frames; %s)", after.Frames().Frames, after.NotMeasured["frames"])
		}
		if len(r.Steps) != 3 {
			t.Errorf("steps %d, want launch, open, after", len(r.Steps))
		}
	})
}

// A device without a uiautomator2 server: Connect says what is missing and
// how to install and start it.
func TestServerNotRunning(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		ep := server
		dev := &adbtest.FakeDevice{SerialNo: "bare-phone", Commands: map[string]adbtest.FakeResult{
			"pm list packages io.appium.uiautomator2": {Stdout: "package:io.appium.uiautomator2.server\n"},
		}}
		d, _ := ep.open(t, dev)
		_, err := scenario.Connect(ctxT(t, 20*time.Second), d, scenario.Options{})
		if !errors.Is(err, scenario.ErrServerNotRunning) {
			t.Fatalf("error %v, want ErrServerNotRunning", err)
		}
		for _, want := range []string{
			"The device lacks io.appium.uiautomator2.server.test. Install the Appium UiAutomator2 server",
			"adb install -r -g appium-uiautomator2-server-debug-androidTest.apk",
			"adb shell am instrument -w -e disableAnalytics true io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner",
		} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error lacks %q:\n%v", want, err)
			}
		}
		// Under Start the same error fails the test at once.
		ft := &fakeT{}
		if sc := scenario.Start(ft, d, "com.perfgate.demo"); sc != nil || !ft.failNow || len(ft.errs) != 1 {
			t.Errorf("Start on a bare phone: %v %q", ft.failNow, ft.errs)
		}
	})
}

// A device that vanishes mid-scenario fails the action with a clear error
// instead of hanging, and the Result keeps what was measured.
func TestDeviceGone(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		ep := server
		p := newPhone(t, ep, "smooth-scroll", nil)
		ft := &fakeT{}
		sc := scenario.Start(ft, p.dev, p.pkg, perftest.WithResultsDir(t.TempDir()))
		if sc == nil {
			t.Fatalf("start: %q", ft.errs)
		}
		sc.ActionTimeout = 5 * time.Second
		sc.Step("launch", scenario.Launch(scenario.Cold))
		p.drop()
		p.sim.Close()
		start := time.Now()
		if sc.Step("scroll", scenario.Swipe(scenario.Up, 2)) {
			t.Fatal("a swipe on a vanished device succeeded")
		}
		if took := time.Since(start); took > 15*time.Second {
			t.Errorf("the failing step took %v", took)
		}
		if !strings.HasPrefix(ft.errs[len(ft.errs)-1], `scenario step "scroll": swipe up ×2: scenario swipe up ×2: `) {
			t.Errorf("error %q", ft.errs[len(ft.errs)-1])
		}
		r := sc.Stop()
		if r.Step("launch").Startup == nil {
			t.Errorf("the launch measured before the device went is lost")
		}
	})
}

// Typing and key presses reach the app: the workload binds "text" and
// "key:82" (MENU) to scrolling, and HOME sends the app to the background.
func TestTypeKeyHome(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		p := newPhone(t, server, "smooth-scroll", func(wl *simdevice.Workload) {
			wl.Screen = append(wl.Screen, simdevice.Elem{Class: "android.widget.EditText", ResourceID: wl.Package + ":id/search",
				Text: "Search", Bounds: [4]int{40, 2000, 1040, 2100}, Clickable: true})
			wl.Actions = append(wl.Actions, simdevice.Action{On: "text", Phase: "scroll"}, simdevice.Action{On: "key:82", Phase: "scroll"})
		})
		sc := scenario.Start(t, p.dev, p.pkg, perftest.WithResultsDir(t.TempDir()))
		sc.Step("launch", scenario.Launch(scenario.Cold))
		sc.Step("stop", scenario.Tap(scenario.Text("Stop")), scenario.Sleep(700*time.Millisecond))
		sc.Step("type", scenario.Type(scenario.ID(p.pkg+":id/search"), "cats"), scenario.Sleep(700*time.Millisecond))
		sc.Step("stop again", scenario.Tap(scenario.Text("Stop")), scenario.Sleep(700*time.Millisecond))
		sc.Step("menu", scenario.Key(scenario.KeyMenu), scenario.Sleep(700*time.Millisecond))
		sc.Step("home", scenario.Home(), scenario.Sleep(700*time.Millisecond))
		r := sc.Stop()
		for _, c := range []struct {
			step   string
			frames bool
		}{{"stop", false}, {"type", true}, {"stop again", false}, {"menu", true}, {"home", false}} {
			st := r.Step(c.step)
			// The tail of each step, after the action took effect.
			n := truthFramesIn(p.sim, st.DeviceEndNs-int64(200*time.Millisecond), unsettled(r, st))
			if (n > 0) != c.frames {
				t.Errorf("%s: %d frames at the end of the step, want frames: %v (%s; clock ±%.3f ms)", c.step, n, c.frames, truthSpan(p.sim, st.DeviceEndNs-int64(200*time.Millisecond), st.DeviceEndNs), r.Clock.UncertaintyMs)
			}
		}
	})
}

// Two devices of a pool that fail the same step of one test keep a
// screenshot each: the screenshot is named after the device too. The
// wait that fails is the bubble's (simtest.Bubble), as long on a busy
// host as on an idle one.
func TestScreenshotPerDevice(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		results := t.TempDir()
		for _, serial := range []string{"lab-1", "lab-2"} {
			wl, err := simdevice.Preset("smooth-scroll")
			if err != nil {
				t.Fatal(err)
			}
			sim, err := simdevice.New(simdevice.Config{Serial: serial, Workload: wl})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { sim.Close() })
			srv := adbtest.NewPipeServer(sim)
			t.Cleanup(srv.Close)
			ft := &fakeT{}
			sc := scenario.Start(ft, srv.Open(serial), wl.Package, perftest.WithResultsDir(results), func(c *perftest.Config) { c.Name = "TestPool" })
			if sc == nil {
				t.Fatalf("start: %q", ft.errs)
			}
			if sc.Step("tap", scenario.WaitFor(scenario.Text("Settings"), 200*time.Millisecond)) {
				t.Fatal("waiting for a missing element succeeded")
			}
			sc.Stop()
		}
		shots, _ := filepath.Glob(filepath.Join(results, "*.png"))
		want := []string{filepath.Join(results, "TestPool__tap@lab-1.png"), filepath.Join(results, "TestPool__tap@lab-2.png")}
		if !slices.Equal(shots, want) {
			t.Errorf("screenshots %q, want %q", shots, want)
		}
	})
}

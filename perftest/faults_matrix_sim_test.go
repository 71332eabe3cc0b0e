package perftest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
)

// faultCase is one way the phone fails a session with every collector on
// (frames, CPU, memory, traffic, battery, the causes' property, profiler
// and log, a Perfetto trace), in its second step ("faulty") or as Stop
// begins.
type faultCase struct {
	name   string
	source perftest.FrameSource
	// kind is how the phone fails: "freeze" (every request waits; it thaws
	// when Stop reads the log, after its polls gave up), "unplug" (taken
	// away, put back after Stop), "stall" (the trace's pull stops halfway;
	// with cut the phone is taken away then, else the pull goes on).
	kind   string
	cut    bool
	atStop bool // the fault strikes as Stop begins, not inside the step
	// drawing keeps the app scrolling through the fault; otherwise it
	// stops before it, so what the step drew stays in the phone's buffer.
	drawing bool
	// frames says what the faulty step's frames are: the phone's true
	// ones ("truth"), or not measured for a reason holding the text.
	frames string
	// trace says the trace is pulled whole.
	trace bool
}

var faultCases = []faultCase{
	{name: "frozen in a step", kind: "freeze", frames: "truth", trace: true},
	{name: "frozen at Stop", kind: "freeze", atStop: true, frames: "truth", trace: true},
	{name: "frozen at Stop, SurfaceFlinger", source: perftest.SourceSurfaceFlinger, kind: "freeze", atStop: true, frames: "truth", trace: true},
	// Frozen longer than the phone's frame buffer lasts, with the app
	// drawing on, the frames after the last poll are lost: not measured.
	{name: "frozen at Stop while the app draws on", kind: "freeze", atStop: true, drawing: true, frames: "the phone's frame buffer wrapped between two polls", trace: true},
	{name: "unplugged in a step", kind: "unplug", frames: "no frame poll succeeded after the step ended"},
	{name: "unplugged at Stop", kind: "unplug", atStop: true, frames: "no frame poll succeeded after the step ended"},
	{name: "trace pull stalled, then unplugged", kind: "stall", cut: true, frames: "truth"},
	{name: "trace pull stalled, then resumed", kind: "stall", frames: "truth", trace: true},
}

// Every fault on every collector: the step before the fault keeps the
// phone's true frames and a figure of every collector; the faulty step's
// frames are the phone's true ones when a poll could still read them, and
// not measured, with why, when none could; the Result on disk is the one
// Stop returned; and what the session could not undo on the phone, the
// next session does, with a note, leaving the phone as it was.
func TestFaultsOnEveryCollector(t *testing.T) {
	t.Parallel()
	for i, fc := range faultCases {
		t.Run(fc.name, func(t *testing.T) {
			t.Parallel()
			// Each case's phone has a serial of its own: the cases' bubbles
			// start their clocks at the same instant, so their sessions name
			// their traces alike, and the next session on one phone would
			// take another case's live trace of that name and serial for
			// its own phone's.
			simtest.Bubble(t, func(t *testing.T) { faultRun(t, fc, fmt.Sprintf("sim-fault%d", i)) })
		})
	}
}

func faultRun(t *testing.T, fc faultCase, serial string) {
	dev := markPhone(t, serial, "100")
	fp := newFreezingPhone(dev)
	fp.stall = fc.kind == "stall"
	srv := adbtest.NewPipeServer(fp)
	t.Cleanup(srv.Close)
	d := srv.Open(fp.Serial())
	launch(t, d, dev)
	before := readPhone(t, dev)

	tk := newTicker()
	cfg := quickConfig(t)
	cfg.OnTick = tk.onTick
	cfg.WaitForApp = true
	cfg.FrameSource = fc.source
	cfg.Trace = &perftest.TraceConfig{}
	rt := &recT{}
	s := perftest.Start(rt, d, perftest.WithConfig(cfg))
	if s == nil {
		t.Fatalf("start: %s", rt.joined())
	}
	s.Step("before", func() { tk.wait(t, 4) })
	strike := func() {
		switch fc.kind {
		case "freeze":
			fp.freeze()
		case "unplug":
			srv.Remove(fp.Serial())
		}
	}
	s.Begin("faulty")
	tk.wait(t, 2)
	time.Sleep(roundTrip) // the step ends a moment after the tick, as on a phone
	if !fc.drawing {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if _, err := d.Shell(ctx, "input tap 540 2270"); err != nil { // "Stop"
			t.Fatal(err)
		}
		cancel()
	}
	if !fc.atStop {
		strike()
		switch fc.kind {
		case "freeze":
			fp.waitHeld(t, func(string) bool { return true })
		case "unplug":
			select {
			case <-s.Done():
			case <-time.After(time.Minute):
				t.Fatal("the session did not end within a minute of the phone going away")
			}
		}
	}
	s.End()
	if fc.atStop {
		strike()
	}
	stopped := make(chan *result.Result)
	go func() { stopped <- s.Stop() }()
	switch fc.kind {
	case "freeze":
		frozenAt := len(dev.World().TruthFrames())
		fp.waitHeld(t, func(req string) bool { return strings.Contains(req, "logcat") })
		if fc.drawing {
			// The app draws past the buffer's 120 frames before the thaw.
			for deadline := time.Now().Add(time.Minute); len(dev.World().TruthFrames()) < frozenAt+150; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("the app drew too little in a minute")
				}
			}
		}
		fp.unfreeze()
	case "stall":
		select {
		case <-fp.stalled:
		case <-time.After(time.Minute):
			t.Fatal("no pull stalled within a minute")
		}
		if fc.cut {
			srv.Remove(fp.Serial())
		}
		fp.goOn(fc.cut)
	}
	r := <-stopped
	if fc.kind == "unplug" || fc.cut {
		srv.Add(fp)
	}

	back, err := result.ReadResult(r.Path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Unfinished != nil || len(back.Steps) != 2 || back.Error != r.Error {
		t.Errorf("on disk: unfinished %+v, %d steps, error %q; Stop returned error %q", back.Unfinished, len(back.Steps), back.Error, r.Error)
	}
	truth := dev.World().TruthFrames()
	for _, name := range []string{"before", "faulty"} {
		st := back.Step(name)
		want := "truth"
		if name == "faulty" {
			want = fc.frames
		}
		if want != "truth" {
			absent(t, st, []metrics.Name{metrics.Frames, metrics.FPS, metrics.Jank}, want)
			continue
		}
		in, _, late := truthInStep(back, st, truth, fc.source == perftest.SourceSurfaceFlinger)
		if got := metric(t, st, metrics.Frames); got != float64(len(in)) || late > 0 {
			t.Errorf("%s: %v frames; the phone drew %d in it (%d after the last poll)", name, got, len(in), late)
		}
	}
	// Every collector's figures of the step before the fault are there.
	for _, n := range []metrics.Name{metrics.CPU, metrics.RSSMax} {
		metric(t, back.Step("before"), n)
	}
	// A figure of the faulty step is measured, or says why not.
	for n, why := range back.Step("faulty").NotMeasured {
		if why == "" {
			t.Errorf("faulty: %s not measured, without a reason", n)
		}
	}
	if got := back.Trace != nil && back.Trace.File != ""; got != fc.trace {
		t.Errorf("trace pulled: %v, want %v (%+v)", got, fc.trace, back.Trace)
	}
	cleanedByNext(t, dev, d, before)
}

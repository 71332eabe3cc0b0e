package perftest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/simdevice"
)

// A session outside a test, on the simulated phone: one step of scrolling,
// summarised with the metric definitions.
func ExampleNewSession() {
	wl, _ := simdevice.Preset("smooth-scroll")
	dev, _ := simdevice.New(simdevice.Config{Workload: wl, RefreshHz: 60})
	defer dev.Close()
	srv := adbtest.NewServer(dev)
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d := srv.Open("")
	d.Shell(ctx, "am start -W -n com.perfgate.demo/.MainActivity") // returns once the app is displayed

	s, err := perftest.NewSession(ctx, d, perftest.Config{Package: "com.perfgate.demo", ResultFile: "-"})
	if err != nil {
		fmt.Println(err)
		return
	}
	s.Step("scroll", func() { time.Sleep(500 * time.Millisecond) })
	r := s.Stop()

	st := r.Step("scroll")
	fmt.Printf("source %s, jank counted as %s, crashed %v\n", st.Frames().Source, st.Frames().JankDefinition, st.Crashed())
	// Output: source gfxinfo, jank counted as deadline_missed, crashed false
}

// TestNewSessionFigures records ExampleNewSession's session in a bubble,
// its phone served over in-memory pipes, and checks the frame figures the
// Example leaves out of its Output: on the host's clock a host stalled for
// longer than the phone's frame buffer lasts loses the step's frames, and
// the Example's output would depend on the host; on the bubble's clock no
// frame is lost, and the figures are the phone's.
func TestNewSessionFigures(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		wl, _ := simdevice.Preset("smooth-scroll")
		_, srv := simtest.ServePipe(t, simdevice.Config{Workload: wl, RefreshHz: 60})
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		d := srv.Open("")
		d.Shell(ctx, "am start -W -n com.perfgate.demo/.MainActivity")
		s, err := perftest.NewSession(ctx, d, perftest.Config{Package: "com.perfgate.demo", ResultFile: "-"})
		if err != nil {
			t.Fatal(err)
		}
		s.Step("scroll", func() { time.Sleep(500 * time.Millisecond) })
		r := s.Stop()
		st := r.Step("scroll")
		got := fmt.Sprintf("source %s, fps %.0f, jank %d (%s), crashed %v",
			st.Frames().Source, st.FPS(), st.Jank(), st.Frames().JankDefinition, st.Crashed())
		if want := "source gfxinfo, fps 60, jank 0 (deadline_missed), crashed false"; got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	})
}

// A session with a Perfetto trace on the simulated phone, whose app makes
// every 20th frame wait on a binder call: Android's own verdict on each
// janky frame, and what the main thread did meanwhile.
func ExampleWithTrace() {
	wl, _ := simdevice.Preset("smooth-scroll")
	wl.Phases[0].Janks = []simdevice.Jank{{Every: 20, Vsyncs: 4, Wait: simdevice.WaitBinder}}
	dev, _ := simdevice.New(simdevice.Config{Workload: wl, RefreshHz: 60})
	defer dev.Close()
	srv := adbtest.NewServer(dev)
	defer srv.Close()
	dir, _ := os.MkdirTemp("", "perfgate-example")
	defer os.RemoveAll(dir)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d := srv.Open("")
	d.Shell(ctx, "am start -W -n com.perfgate.demo/.MainActivity") // returns once the app is displayed

	s, err := perftest.NewSession(ctx, d, perftest.Config{Package: "com.perfgate.demo", Name: "scroll", ResultsDir: dir,
		Trace: &perftest.TraceConfig{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	s.Step("scroll", func() { time.Sleep(500 * time.Millisecond) })
	r := s.Stop()

	fmt.Println("trace:", filepath.Base(r.Trace.File))
	jf := r.Step("scroll").Trace.JankyFrames[0]
	st := jf.MainThread
	fmt.Printf("%v (%v), %.1f ms: running %.1f ms, binder %.1f ms, sleeping %.1f ms\n", jf.Jank, jf.Present,
		float64(jf.Dur())/1e6, float64(st.RunningNs)/1e6, float64(st.BinderNs)/1e6, float64(st.SleepingNs)/1e6)
	fmt.Println("longest slice:", jf.Slices[0].Name)
	// Output:
	// trace: scroll@perftest.perfetto-trace
	// App Deadline Missed (Late Present), 62.5 ms: running 19.8 ms, binder 4.5 ms, sleeping 37.5 ms
	// longest slice: traversal
}

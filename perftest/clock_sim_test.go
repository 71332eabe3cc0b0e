package perftest_test

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"testing"
	"testing/synctest"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/simdevice"
)

// openPipe serves the phone from adbtest's host-protocol server over
// in-memory pipes, so a test in a testing/synctest bubble runs the phone,
// the server and the session on the bubble's clock.
func openPipe(t testing.TB, dev *simdevice.Device, _ func() *adbtest.ADB) (*adbx.Device, func() int) {
	t.Helper()
	srv := adbtest.NewPipeServer(dev)
	t.Cleanup(srv.Close)
	return srv.Open(dev.Serial()), func() int { return srv.Streams(dev.Serial()) }
}

var pipeEndpoint = endpoint{"pipe", openPipe}

// settledWait is wait in a testing/synctest bubble: it first lets every
// goroutine finish what it does at this instant, so a tick due now counts
// or not the same in every run, not as the goroutines happen to be
// scheduled. (The fake clock orders events in time; events at one instant
// still race.)
func (tk ticker) settledWait(t *testing.T, n int) {
	t.Helper()
	synctest.Wait()
	tk.wait(t, n)
}

// TestFramesMatchGroundTruthFakeClock is TestFramesMatchGroundTruth's
// host-server cases on the bubble's clock: no retries, since a host cannot
// stall on a clock that only moves when every goroutine waits.
func TestFramesMatchGroundTruthFakeClock(t *testing.T) {
	type tc struct {
		preset string
		hz     float64
		api    int
		sf     bool
	}
	cases := []tc{
		{"janky-scroll", 60, 33, false},
		{"janky-scroll", 144, 33, false},
		{"janky-scroll", 60, 28, false},
		{"janky-scroll", 60, 33, true},
	}
	for _, c := range cases {
		src := "gfxinfo"
		if c.sf {
			src = "surfaceflinger"
		}
		t.Run(fmt.Sprintf("%s/%gHz/api%d/%s", c.preset, c.hz, c.api, src), func(t *testing.T) {
			t.Parallel()
			simtest.Bubble(t, func(t *testing.T) {
				start := time.Now()
				problems, stalled := groundTruthRun(t, pipeEndpoint, nil, c.preset, c.hz, c.api, c.sf)
				for _, p := range problems {
					t.Error(p)
				}
				if stalled {
					t.Error("the session recorded a gap on the fake clock")
				}
				t.Logf("%v of simulated time", time.Since(start))
			})
		})
	}
}

// TestJankCountFakeClock: janky-scroll misses three frame deadlines in
// every 3 s of its scroll (6, 8 and 3 vsyncs; two of them PerfDog Janks,
// one of those a BigJank), and a 3 s step on the bubble's clock reports
// exactly that, the same in every run: two runs in bubbles of their own
// give equal frames and summaries.
func TestJankCountFakeClock(t *testing.T) {
	var runs [2]jankRun
	for i := range runs {
		simtest.Bubble(t, func(t *testing.T) { runs[i] = jankOnce(t, openPipe) })
	}
	if t.Failed() {
		return
	}
	a, b := runs[0], runs[1]
	if !reflect.DeepEqual(a.summary, b.summary) || !reflect.DeepEqual(a.frames, b.frames) || a.start != b.start || a.end != b.end {
		t.Errorf("two runs differ:\n%+v\n%+v", a, b)
	}
}

// jankRun is what TestJankCountFakeClock compares between runs.
type jankRun struct {
	summary    metrics.FrameSummary
	frames     []metrics.Frame
	start, end int64
}

// TestJankCountWallClock is TestJankCountFakeClock's run on the wall
// clock through the TCP server, as the ground-truth tests run before the
// fake clock: for comparing the two under load
// (PERFGATE_CLOCK_BASELINE=1), not part of the suite.
func TestJankCountWallClock(t *testing.T) {
	if os.Getenv("PERFGATE_CLOCK_BASELINE") == "" {
		t.Skip("a baseline for comparison; set PERFGATE_CLOCK_BASELINE=1")
	}
	jankOnce(t, openHost)
}

func jankOnce(t *testing.T, open func(testing.TB, *simdevice.Device, func() *adbtest.ADB) (*adbx.Device, func() int)) jankRun {
	dev := sim(t, "janky-scroll", 60, 33)
	d, _ := open(t, dev, nil)
	launch(t, d, dev)
	s := perftest.Start(t, d, perftest.App(pkg), perftest.WithResultsDir(t.TempDir()),
		perftest.WithCollectors(perftest.CollectFrames))
	s.Step("scroll", func() { time.Sleep(3 * time.Second) })
	r := s.Stop()
	if r.Error != "" || len(r.Gaps) > 0 {
		t.Fatalf("error %q gaps %+v", r.Error, r.Gaps)
	}
	st := r.Step("scroll")
	f := st.Frames()
	if f.DeadlineMissed == nil || *f.DeadlineMissed != 3 || f.PerfDog.Jank != 2 || f.PerfDog.BigJank != 1 {
		t.Errorf("%d frames, deadline missed %v, PerfDog %+v; want 3 missed, 2 Janks, 1 BigJank", f.Frames, f.DeadlineMissed, f.PerfDog)
	}
	// And the truth: every frame the phone drew in the step, read once.
	truth, early, late := truthInStep(r, st, dev.World().TruthFrames(), false)
	if early != 0 || late != 0 {
		t.Errorf("%d true frames before the history was cleared, %d after the last poll; want none on the fake clock", early, late)
	}
	want := expectedSummary(truth, int64(dev.World().RefreshPeriod()), false, 33)
	got := f
	got.Window = ""
	if !reflect.DeepEqual(got, want) {
		t.Errorf("summary\n got %+v\nwant %+v", got, want)
	}
	var frames []metrics.Frame
	for _, fr := range r.Frames {
		if ft := fr.Time(); ft >= st.DeviceStartNs && ft < st.DeviceEndNs {
			frames = append(frames, fr)
		}
	}
	t.Logf("step %v on the phone: %d frames, %v missed, PerfDog %+v", time.Duration(st.DeviceEndNs-st.DeviceStartNs), f.Frames, *f.DeadlineMissed, f.PerfDog)
	return jankRun{summary: got, frames: frames, start: st.DeviceStartNs, end: st.DeviceEndNs}
}

// fingerprint logs a digest of the step's frames, its summary and the
// session's samples, for comparing runs on the fake clock: equal digests,
// equal measurements.
func fingerprint(t *testing.T, r *perftest.Result, st *perftest.Step) {
	t.Helper()
	h := sha256.New()
	_ = json.NewEncoder(h).Encode([]any{r.Frames, st.Frames(), st.DeviceStartNs, st.DeviceEndNs, r.Samples, r.Clock})
	t.Logf("fingerprint %x: %d frames, %d samples", h.Sum(nil)[:8], len(r.Frames), len(r.Samples))
}

// inBubble says whether the caller runs in a testing/synctest bubble,
// whose clock starts at midnight UTC 2000-01-01. (A probe's shortcut: a
// converted suite passes the endpoint.)
func inBubble() bool { return time.Now().Year() == 2000 }

// TestTraceMatchesTruthFakeClock is TestTraceMatchesTruth on the bubble's
// clock.
func TestTraceMatchesTruthFakeClock(t *testing.T) {
	simtest.Bubble(t, traceMatchesTruth)
}

// TestCausesMatchTruthFakeClock is TestCausesMatchTruth on the bubble's
// clock.
func TestCausesMatchTruthFakeClock(t *testing.T) {
	for _, tc := range causesCases {
		t.Run(fmt.Sprintf("api%d_%ghz", tc.api, tc.hz), func(t *testing.T) {
			t.Parallel()
			simtest.Bubble(t, func(t *testing.T) { causesMatchTruth(t, tc) })
		})
	}
}

// TestDeviceDisconnectMidStepFakeClock is TestDeviceDisconnectMidStep's
// host-server case on the bubble's clock: one run, no retry.
func TestDeviceDisconnectMidStepFakeClock(t *testing.T) {
	simtest.Bubble(t, func(t *testing.T) {
		if early := disconnectRun(t, "pipe"); early != "" {
			t.Error(early)
		}
	})
}

// TestHungCommandIsAGapFakeClock is TestHungCommandIsAGap on the bubble's
// clock: one run, no retry.
func TestHungCommandIsAGapFakeClock(t *testing.T) {
	simtest.Bubble(t, func(t *testing.T) {
		problems, stalled := hungRun(t)
		for _, p := range problems {
			t.Error(p)
		}
		if stalled {
			t.Error("frames lost on the fake clock")
		}
	})
}

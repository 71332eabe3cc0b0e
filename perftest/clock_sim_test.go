package perftest_test

import (
	"crypto/sha256"
	"encoding/json"
	"reflect"
	"testing"
	"testing/synctest"
	"time"

	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
)

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

// roundTrip is a moment of the bubble's clock, as long as a round trip to
// a phone: a test that acts on a phone after waiting for a tick sleeps for
// it, since on the fake clock the tick, the test's own round trips and the
// step's end would otherwise share one instant, and a poll at that
// instant would count as one after the step's end.
const roundTrip = 5 * time.Millisecond

// TestJankCountFakeClock: janky-scroll misses three frame deadlines in
// every 3 s of its scroll (6, 8 and 3 vsyncs; two of them PerfDog Janks,
// one of those a BigJank), and a 3 s step on the bubble's clock reports
// exactly that, the same in every run: two runs in bubbles of their own
// give equal frames and summaries.
func TestJankCountFakeClock(t *testing.T) {
	var runs [2]jankRun
	for i := range runs {
		simtest.Bubble(t, func(t *testing.T) { runs[i] = jankOnce(t) })
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
	summary    frames.Summary
	frames     []frames.Frame
	start, end int64
}

func jankOnce(t *testing.T) jankRun {
	dev := sim(t, "janky-scroll", 60, 33)
	d, _ := openHost(t, dev, nil)
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
	var frames []frames.Frame
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
func fingerprint(t *testing.T, r *result.Result, st *result.Step) {
	t.Helper()
	h := sha256.New()
	_ = json.NewEncoder(h).Encode([]any{r.Frames, st.Frames(), st.DeviceStartNs, st.DeviceEndNs, r.Samples, r.Clock})
	t.Logf("fingerprint %x: %d frames, %d samples", h.Sum(nil)[:8], len(r.Frames), len(r.Samples))
}

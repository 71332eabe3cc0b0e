package startupphase_test

import (
	"os"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/fixtures"
	"github.com/perfgate/perfgate/perftest/internal/startupphase"
	"github.com/perfgate/perfgate/trace"
)

const nowInAndroid = "perfetto/nowinandroid_pixel7pro_cheetah_android13_frametimeline_ftrace.perfetto-trace"

// The real Android 13 trace records the app's own sections and
// FrameTimeline but no atrace category am: the launch it holds has its
// first frame presented and its reportFullyDrawn, and says the phases
// ActivityThread's slices would give are not measured. The first frame is
// the app's earliest FrameTimeline frame, and reportFullyDrawn ends where
// the app's "reportFullyDrawn() for ComponentActivity" section begins.
func TestPhasesOfRealAndroid13Trace(t *testing.T) {
	t.Parallel()
	f, err := os.Open(fixtures.Path(t, nowInAndroid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := trace.Analyze(f, trace.Options{Package: "com.google.samples.apps.nowinandroid.demo", MainThreads: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.AppPIDs) != 1 {
		t.Fatalf("app pids %v", a.AppPIDs)
	}
	pid := a.AppPIDs[0]
	ls := startupphase.Find(a, pid, a.Start, a.End)
	if len(ls) != 1 || len(ls[0].Phases) != 2 {
		t.Fatalf("launches %+v", ls)
	}
	l := ls[0]
	if !strings.Contains(l.NotMeasured, "no bindApplication slice") {
		t.Errorf("not measured: %q", l.NotMeasured)
	}
	var firstFrame *trace.Frame
	for i := range a.Frames {
		if fr := &a.Frames[i]; fr.PID == pid && (firstFrame == nil || fr.Start < firstFrame.Start) {
			firstFrame = fr
		}
	}
	ff, fd := l.Phases[0], l.Phases[1]
	if ff.Name != startupphase.FirstFrame || ff.Start != firstFrame.Start || ff.End != firstFrame.End {
		t.Errorf("first frame phase %s [%d, %d), the app's first frame [%d, %d)", ff.Name, ff.Start, ff.End, firstFrame.Start, firstFrame.End)
	}
	_, sl := a.MainThread(pid, a.Start, a.End)
	var rfd []trace.Slice
	for _, s := range sl {
		if s.Name == "reportFullyDrawn() for ComponentActivity" {
			rfd = append(rfd, s)
		}
	}
	if len(rfd) != 1 || fd.Name != startupphase.FullyDrawn || fd.Start != firstFrame.End || fd.End != rfd[0].Start {
		t.Errorf("reportFullyDrawn phase %s [%d, %d); sections %+v", fd.Name, fd.Start, fd.End, rfd)
	}
	// Each phase lists its longest slices within it, longest first; the
	// trace has no scheduler events, so no states.
	for _, p := range l.Phases {
		if p.MainThread != nil || len(p.Slices) == 0 {
			t.Errorf("%s: states %v, slices %v", p.Name, p.MainThread, p.Slices)
		}
		for i, s := range p.Slices {
			if s.Start < p.Start || s.End > p.End || i > 0 && s.Dur() > p.Slices[i-1].Dur() {
				t.Errorf("%s [%d, %d): slice %d %+v", p.Name, p.Start, p.End, i, s)
			}
		}
	}
}

package perftest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/android/hprof"
	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
)

const leakClass = "com.perfgate.demo.feed.ImageHolder"

// leakyPhone is the memory-leak preset whose scroll also keeps 400
// ImageHolders of 48 bytes a second.
func leakyPhone(t *testing.T, debuggable bool) (*simdevice.Device, perftest.Config, *result.Result) {
	t.Helper()
	wl, err := simdevice.Preset("memory-leak")
	if err != nil {
		t.Fatal(err)
	}
	wl.Debuggable = debuggable
	wl.Phases[0].Leak = &simdevice.Leak{Class: leakClass, PerSecond: 400, Bytes: 48}
	dev, d := simWorkload(t, wl, 28, simdevice.Quirks{})
	tk := newTicker()
	c := quirkConfig(t, tk)
	c.HeapDumps = true
	s := perftest.Start(t, d, perftest.WithConfig(c))
	s.Step("scroll", func() { tk.wait(t, 30) })
	r := s.Stop()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("heap dumps %+v, notes %q", r.HeapDumps, r.Notes)
		}
	})
	return dev, c, r
}

// A session with heap dumps on a phone that leaks: the PSS growth budget
// fails, and its line names the leaking class with the count and bytes the
// phone's two dumps differ by (the truth); the dumps lie beside the Result,
// read whole, and are gone from the phone.
func TestHeapDumpsNameTheLeak(t *testing.T) {
	simtest.Bubble(t, func(t *testing.T) {
		dev, c, r := leakyPhone(t, true)
		dumps := dev.World().TruthDumps()
		if len(dumps) != 2 || r.HeapDumps == nil || r.HeapDumps.First == nil || r.HeapDumps.Last == nil {
			t.Fatalf("%d dumps written on the phone; the Result's %+v", len(dumps), r.HeapDumps)
		}
		count := func(d simdevice.TruthDump) (n, b int64) {
			for _, cl := range d.Classes {
				if cl.Name == leakClass {
					return cl.Instances, cl.ShallowBytes
				}
			}
			return 0, 0
		}
		n0, b0 := count(dumps[0])
		n1, b1 := count(dumps[1])
		if n1-n0 < 400 {
			t.Fatalf("the truth: %d → %d ImageHolders between the dumps, want the scroll's 3 s of leaking", n0, n1)
		}
		want := fmt.Sprintf("+%s %s (+%s)", hprof.Thousands(n1-n0), leakClass, hprof.Bytes(b1-b0))
		l, err := budget.ParseLimit("pss_growth<=1")
		if err != nil {
			t.Fatal(err)
		}
		vs := budget.Check(r.Step("scroll"), "test", l)
		if len(vs) != 1 || vs[0].Status != budget.Fail || !strings.Contains(vs[0].Line, "grew between the heap dumps: "+want) {
			t.Errorf("verdicts %+v; want a failure naming %q", vs, want)
		}
		t.Logf("truth %d → %d %s; %s", n0, n1, leakClass, vs[0].Line)
		for _, d := range []string{r.HeapDumps.First.File, r.HeapDumps.Last.File} {
			f, err := os.Open(filepath.Join(c.ResultsDir, d))
			if err != nil {
				t.Fatal(err)
			}
			_, err = hprof.ReadHistogram(f)
			f.Close()
			if err != nil {
				t.Errorf("%s: %v", d, err)
			}
		}
		for _, d := range dumps {
			if fi, err := dev.Stat(d.File); err == nil {
				t.Errorf("%s is still on the phone (%d bytes)", d.File, fi.Size())
			}
		}
	})
}

// A release build refuses heap dumps: the Result says so in a note, the
// session measures as before, and a memory gate fails without a cause.
func TestHeapDumpsRefused(t *testing.T) {
	simtest.Bubble(t, func(t *testing.T) {
		_, _, r := leakyPhone(t, false)
		if r.Error != "" || r.HeapDumps == nil || !strings.Contains(r.HeapDumps.Note, "not debuggable") || r.HeapDumps.First != nil ||
			!slices.Contains(r.Notes, r.HeapDumps.Note) {
			t.Errorf("error %q, heap dumps %+v; want a note that the app is not debuggable", r.Error, r.HeapDumps)
		}
		if len(r.Step("scroll").Metrics()) == 0 {
			t.Error("the step measured nothing")
		}
	})
}

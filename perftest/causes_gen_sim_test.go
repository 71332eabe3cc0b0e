package perftest_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
)

// genSeeds are the random cause workloads the suite runs: a handful, at
// 60, 120 and 144 Hz, among them one of 64 s (seed 30), three with two
// ANRs (11, 30, 184) and one whose frame bound on RenderThread ends as
// the next frame's message starts (184).
var genSeeds = []int64{9, 11, 30, 184}

// Attribution on workloads nobody picked by hand: each seed's random
// workload (simdevice.RandomCauseWorkload) runs in a session of random
// steps, some of which end inside a slow message, and every janky frame,
// under every jank definition, is compared with the phone's truth. The
// contract: no frame is tied to a message that did not make it late, and
// a frame without a block says why; every ANR has its own stack; a step
// of 60 s keeps its stacks.
func TestCausesRandomWorkloads(t *testing.T) {
	t.Parallel()
	for _, seed := range genSeeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			t.Parallel()
			var g genTally
			simtest.Bubble(t, func(t *testing.T) { g = runGenSeed(t, seed) })
			t.Logf("seed %d: %s", seed, g.String())
			g.check(t)
		})
	}
}

// The same over 500 seeds, when PERFGATE_LONG=1: it prints the counts,
// the worst seed, and one seed of each kind of failure.
func TestCausesRandomWorkloadsLong(t *testing.T) {
	if os.Getenv("PERFGATE_LONG") != "1" {
		t.Skip("set PERFGATE_LONG=1 to run 500 random cause workloads")
	}
	n := int64(500)
	results := make([]genTally, n)
	t.Run("seeds", func(t *testing.T) {
		for seed := range n {
			t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
				t.Parallel()
				simtest.Bubble(t, func(t *testing.T) { results[seed] = runGenSeed(t, seed) })
				g := results[seed]
				t.Logf("seed %d (API %d, %g Hz): %s", seed, g.API, g.Hz, g.String())
				for k, v := range g.Kinds {
					t.Logf("%d × %s (%s)", g.KindCount[k], k, v)
				}
			})
		}
	})
	var all genTally
	worst := -1
	for i, g := range results {
		all.add(g)
		if g.failures() > 0 && (worst < 0 || g.failures() > results[worst].failures()) {
			worst = i
		}
	}
	t.Logf("%d seeds: %s", n, all.String())
	if worst >= 0 {
		t.Logf("worst seed %d: %s", worst, results[worst].String())
	}
	kinds := make([]string, 0, len(all.Kinds))
	for k := range all.Kinds {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		t.Logf("%5d × %s (first: %s)", all.KindCount[k], k, all.Kinds[k])
	}
	all.check(t)
}

// runGenSeed runs seed's workload on a phone of a random API level, in a
// session of random steps, and judges every janky frame and ANR.
func runGenSeed(t *testing.T, seed int64) genTally {
	wl := simdevice.RandomCauseWorkload(seed)
	r := rand.New(rand.NewPCG(uint64(seed), 2))
	api := []int{28, 30, 33, 34}[r.IntN(4)]
	dev, err := simdevice.New(simdevice.Config{API: api, Workload: wl, Serial: "sim-gen"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	d, _ := openHost(t, dev, nil)
	s := perftest.Start(t, d, perftest.WithConfig(perftest.Config{Package: wl.Package, Name: t.Name(), ResultsDir: t.TempDir(), WaitForApp: true}))
	s.Step("launch", func() { launch(t, d, dev) })
	w := dev.World()
	drawn := time.Duration(w.TruthFrames()[0].IntendedVsync)
	for _, p := range wl.Phases {
		drawn += time.Duration(p.DurationMs) * time.Millisecond
	}
	for i, end := range genStepEnds(r, w.Uptime(), drawn) {
		s.Step(fmt.Sprintf("s%d", i), func() { genWaitStepEnd(w, end) })
	}
	res := s.Stop()
	if res.Error != "" {
		t.Fatalf("seed %d: session failed: %s", seed, res.Error)
	}
	return judgeGen(genTally{Seed: seed, Seeds: 1, API: api, Hz: wl.RefreshHz}, res, w)
}

// genStep is where a step ends: at a time, or, when inside is set, at the
// first slow message Looper logs that runs across that time (or within
// two seconds of it): its line then comes after the step's end.
type genStep struct {
	at     time.Duration
	inside bool
}

// genStepEnds plans the steps from now until the app has drawn (then,
// idle, it draws nothing): a first step of 61 s when the run is that long,
// then steps of 1 to 5 s, two in five ending inside a slow message.
func genStepEnds(r *rand.Rand, now, drawn time.Duration) []genStep {
	var out []genStep
	t := now
	if drawn-now >= 62*time.Second {
		t += 61 * time.Second
		out = append(out, genStep{at: t})
	}
	for t < drawn {
		t += time.Duration(1000+r.IntN(4000)) * time.Millisecond
		out = append(out, genStep{at: min(t, drawn+300*time.Millisecond), inside: r.IntN(5) < 2})
	}
	return out
}

// genWaitStepEnd waits, on the phone's clock, for the step's end.
func genWaitStepEnd(w *simdevice.World, s genStep) {
	for w.Uptime() < s.at {
		time.Sleep(20 * time.Millisecond)
	}
	if !s.inside {
		return
	}
	// The truth knows a frame's messages once its vsync has passed: wait
	// for one Looper logs that ends later, and end the step halfway in it.
	for bound := s.at + 2*time.Second; w.Uptime() < bound; time.Sleep(20 * time.Millisecond) {
		now := int64(w.Uptime())
		for _, b := range slices.Backward(w.TruthBlocks()) {
			if b.EndNs < now {
				break
			}
			if b.LoggedMs >= 20 && b.EndNs > now+int64(10*time.Millisecond) {
				for mid := time.Duration(max(b.StartNs+(b.EndNs-b.StartNs)/2, now)); w.Uptime() < mid; {
					time.Sleep(min(mid-w.Uptime(), 20*time.Millisecond))
				}
				return
			}
		}
	}
}

// genAt is a step's time in a line: "s3 at 1.234s".
func genAt(st *result.Step, ns int64) string {
	return fmt.Sprintf("%s at %.3fs", st.Name, float64(ns-st.DeviceStartNs)/1e9)
}

// check asserts the contract on the tally.
func (g *genTally) check(t *testing.T) {
	t.Helper()
	if g.Wrong > 0 || g.Silent > 0 || g.Missed > 0 {
		t.Errorf("%d janky frames tied to a wrong cause, %d without a block or a reason, %d missed; want none:\n%s",
			g.Wrong, g.Silent, g.Missed, strings.Join(g.Lines, "\n"))
	}
	if g.ANRWrong > 0 || g.ANRNoStack > 0 || g.ANRMissed > 0 {
		t.Errorf("of %d ANRs, %d with another's stack, %d without a stack, %d missed; want every one with its own", g.ANRs, g.ANRWrong, g.ANRNoStack, g.ANRMissed)
	}
	if g.LongNoStacks > 0 {
		t.Errorf("%d of %d steps of 60 s or more kept no stacks", g.LongNoStacks, g.LongSteps)
	}
	if g.Pairs == 0 {
		t.Errorf("no janky frame to judge")
	}
}

package devicepool_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfgate/perfgate/devicepool"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/internal/testenv"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
	"github.com/perfgate/perfgate/simlab"
)

// labSize is how many simulated phones the lab tests spread a suite over.
const labSize = 8

// TestMain lets the lab's parallel subtests all run at once: go test runs
// at most GOMAXPROCS parallel tests by default, 2 on a 2-core machine,
// which would queue a suite of 8 devices. The two lab tests run beside
// each other within those 8. An explicit -parallel wins.
func TestMain(m *testing.M) {
	testenv.SkipRaceExitSleep()
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		if err := flag.Set("test.parallel", fmt.Sprint(labSize)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	os.Exit(m.Run())
}

// startLab serves n phones of simlab.Spread (half on adbtest's pure-Go
// server, half on the stock adb server) and pools them.
func startLab(t *testing.T, n int) (*simlab.Running, *devicepool.Pool) {
	t.Helper()
	lab := simlab.Start(t, simlab.Spread(n))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := devicepool.New(ctx, devicepool.Config{Servers: lab.Servers(), Wait: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(p.Members()); got != n {
		t.Fatalf("pool of %d devices from a lab of %d: %v", got, n, p.Members())
	}
	// Each device's facts, read through its own server, are its phone's.
	for _, m := range p.Members() {
		phone := lab.Phone(m.Server(), m.Serial())
		if phone == nil || m.Facts.Model != phone.Device.Model || m.Facts.API != phone.Dev.Config().API {
			t.Fatalf("pool member %s is not the lab's phone %+v", m, phone)
		}
	}
	return lab, p
}

// interval is the sessions' tick in the lab tests: eight sessions at the
// default 100 ms, each a batch of shell commands on a simulated phone,
// would keep a 2-core machine busier than the phones themselves; 250 ms
// still reads every frame (the device's buffers hold 120, a second at 120
// Hz) and gives the suite room to run all eight at once.
const interval = 250 * time.Millisecond

// noCauses: the lab tests measure frames only; eight main threads sampled
// at 1 kHz would cost the 2-core machine more than the frames.
var noCauses = perftest.CauseOptions{Off: true}

// measure runs one test's session on a leased phone: the app launched, a
// 1.5 s scroll measured, frames only. It returns the Result and the phone.
func measure(t *testing.T, lab *simlab.Running, m *devicepool.Member, during func(s *perftest.Session)) (*result.Result, *simlab.Served) {
	t.Helper()
	phone := lab.Phone(m.Server(), m.Serial())
	if phone == nil {
		t.Fatalf("leased %s, which the lab does not serve", m)
	}
	simtest.Launch(t, m.Device, phone.Dev)
	s := perftest.Start(t, m.Device, perftest.App(simdevice.PresetPackage), perftest.WithResultsDir(t.TempDir()),
		perftest.WithCollectors(perftest.CollectFrames), perftest.WithInterval(interval), perftest.WithCauses(noCauses))
	s.Step("scroll", func() {
		if during != nil {
			during(s)
			return
		}
		time.Sleep(1500 * time.Millisecond)
	})
	return s.Stop(), phone
}

// frameProblems compares the step's frames with the phone's ground truth:
// every true frame presented before the session's last poll and after it
// cleared the app's frame history was read exactly once, with its own
// times, and nothing else was read. Both moments are known only within
// the clock map's uncertainty (the last poll, also within its round
// trip), so a frame presented in those spans is taken when read and
// counted early or late otherwise.
func frameProblems(r *result.Result, dev *simdevice.Device) []string {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	st := r.Step("scroll")
	if st == nil || len(r.Samples) == 0 {
		return []string{fmt.Sprintf("no scroll step or no samples (error %q)", r.Error)}
	}
	last := r.Samples[len(r.Samples)-1]
	cutoff := last.DeviceNs - last.RTTNs/2 - int64(r.Clock.UncertaintyMs*1e6) - 1
	// The session clears the frame history before its first step starts:
	// a frame presented by then was never in a dump. The step here is the
	// session's first.
	cleared := st.DeviceStartNs + int64(r.Clock.UncertaintyMs*1e6)
	read := map[int64]bool{}
	for _, f := range r.Frames {
		read[f.Time()] = true
	}
	truth := map[int64]simdevice.TruthFrame{}
	early, late := 0, 0
	for _, f := range dev.World().TruthFrames() {
		if f.IntendedVsync < st.DeviceStartNs || f.IntendedVsync >= st.DeviceEndNs {
			continue
		}
		if f.Present > cutoff {
			late++
			continue
		}
		if f.Present <= cleared && !read[f.IntendedVsync] {
			early++
			continue
		}
		truth[f.IntendedVsync] = f
	}
	seen := map[int64]int{}
	extra := 0
	for _, f := range r.Frames {
		ft := f.Time()
		if ft < st.DeviceStartNs || ft >= st.DeviceEndNs {
			continue
		}
		seen[ft]++
		tf, ok := truth[ft]
		switch {
		case !ok:
			extra++
		case f.FrameCompleted != tf.Completed:
			fail("frame at %d: completed %d, truth %d", ft, f.FrameCompleted, tf.Completed)
		}
	}
	lost := 0
	for vs := range truth {
		if seen[vs] != 1 {
			lost++
		}
	}
	if lost > 0 || extra > late {
		fail("%d of %d true frames not read exactly once; %d read frames not in the truth (%d late, %d presented before the history was cleared)", lost, len(truth), extra, late, early)
	}
	if len(truth) < 10 {
		fail("only %d true frames in a 1.5 s scroll", len(truth))
	}
	if r.Error != "" || len(r.Gaps) > 0 {
		fail("error %q, %d gaps", r.Error, len(r.Gaps))
	}
	return problems
}

// measureTruly measures on m and compares its frames with the phone's
// ground truth. A host stalled for longer than the phone's frame buffers
// hold (a loaded CI machine under -race can) loses frames, and the session
// records that as a gap: such a run is tried again, up to three times, as
// the perftest package's ground-truth tests do.
func measureTruly(t *testing.T, lab *simlab.Running, m *devicepool.Member) {
	t.Helper()
	for try := 1; ; try++ {
		r, phone := measure(t, lab, m, nil)
		problems := frameProblems(r, phone.Dev)
		if len(problems) > 0 && len(r.Gaps) > 0 && try < 3 {
			t.Logf("run %d on %s: host stalled (%d gaps): %s; trying again", try, m, len(r.Gaps), strings.Join(problems, "; "))
			continue
		}
		for _, pr := range problems {
			t.Errorf("%s: %s", m, pr)
		}
		return
	}
}

// TestLabSuiteSpreadsOverEveryDevice is the pool's end-to-end test: eight
// simulated phones of four models on two adb servers (four on the pure-Go
// one, four on the stock adb server), a suite of eight parallel tests each
// leasing one, every device's frames matching its own ground truth with
// none lost. It logs the suite's wall time against one device running one
// test: a figure to watch, not a timed assertion a busy machine could
// fail.
func TestLabSuiteSpreadsOverEveryDevice(t *testing.T) {
	t.Parallel()
	lab, p := startLab(t, labSize)
	servers := map[string]int{}
	for _, m := range p.Members() {
		servers[m.Server()]++
	}
	if len(servers) != 2 {
		t.Fatalf("devices on %d servers, want 2: %v", len(servers), servers)
	}

	var solo time.Duration
	t.Run("solo", func(t *testing.T) {
		start := time.Now()
		measureTruly(t, lab, p.Lease(t))
		solo = time.Since(start)
	})

	var mu sync.Mutex
	used := map[string]int{}
	start := time.Now()
	t.Run("suite", func(t *testing.T) {
		for i := range labSize {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				m := p.Lease(t)
				mu.Lock()
				used[m.Server()+"/"+m.Serial()]++
				mu.Unlock()
				measureTruly(t, lab, m)
			})
		}
	})
	wall := time.Since(start)
	if len(used) != labSize {
		t.Errorf("the suite ran on %d devices, want all %d: %v", len(used), labSize, used)
	}
	t.Logf("one device, one test: %v; %d devices on %d servers, %d tests in parallel: %v (%.2f×)",
		solo.Round(time.Millisecond), labSize, len(servers), labSize, wall.Round(time.Millisecond), float64(wall)/float64(solo))
}

// recorder is a test that records its failures instead of failing: the
// unplugged phone's test must fail, and this test checks that it does.
type recorder struct {
	name     string
	mu       sync.Mutex
	errs     []string
	cleanups []func()
}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return r.name }
func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...); r.FailNow() }
func (r *recorder) FailNow()                          { panic(r) }
func (r *recorder) Cleanup(f func())                  { r.cleanups = append(r.cleanups, f) }
func (r *recorder) Logf(string, ...any)               {}

// run runs fn as the test's body, then its cleanups last first.
func (r *recorder) run(fn func()) {
	defer func() {
		for i := len(r.cleanups) - 1; i >= 0; i-- {
			r.cleanups[i]()
		}
	}()
	defer func() {
		if v := recover(); v != nil && v != r {
			panic(v)
		}
	}()
	fn()
}

// TestUnplugFailsOnlyItsTest: a phone unplugged in the middle of a parallel
// suite fails the test that held it, with errors naming the session's end
// and the device, and its partial Result (the frames read before) is
// written; it leaves the pool; the other tests pass. The phone is unplugged
// from the pure-Go adb server (the server drops it), and from the stock adb
// server (its adbd goes away and the server, not ours, must notice).
func TestUnplugFailsOnlyItsTest(t *testing.T) {
	t.Parallel()
	for server, name := range []string{"go", "adb"} {
		t.Run(name, func(t *testing.T) { unplugMidRun(t, server) })
	}
}

// unplugMidRun runs the suite of TestUnplugFailsOnlyItsTest with the victim
// on the lab's server number server (0: the pure-Go one, 1: the stock one).
func unplugMidRun(t *testing.T, server int) {
	lab, p := startLab(t, 4)
	var victim *recorder
	var partial *result.Result
	var unplugged *simlab.Served
	var written *result.Result
	var readErr error
	t.Run("suite", func(t *testing.T) {
		for i := range 4 {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				if i > 0 {
					measureTruly(t, lab, p.Lease(t))
					return
				}
				// The victim runs under a recorder, which this test checks.
				victim = &recorder{name: t.Name()}
				victim.run(func() {
					m := p.LeaseWhere(victim, func(m *devicepool.Member) bool { return m.Server() == lab.Servers()[server] })
					phone := lab.Phone(m.Server(), m.Serial())
					simtest.Launch(t, m.Device, phone.Dev)
					drawing := make(chan struct{})
					var once sync.Once
					s := perftest.Start(victim, m.Device, perftest.WithConfig(perftest.Config{
						Package: simdevice.PresetPackage, ResultsDir: t.TempDir(), Collectors: []perftest.Collector{perftest.CollectFrames},
						Interval: interval, GiveUpAfter: time.Second, Causes: noCauses,
						OnTick: func(l result.Live) {
							if l.Frames >= 5 {
								once.Do(func() { close(drawing) })
							}
						},
					}))
					s.Step("scroll", func() {
						select {
						case <-drawing:
						case <-time.After(time.Minute):
							t.Errorf("no frames read in a minute")
						}
						unplugged = phone
						phone.Unplug()
						select {
						case <-s.Done():
						case <-time.After(time.Minute):
							t.Errorf("the session still runs a minute after its phone was unplugged")
						}
					})
					partial = s.Stop()
					// Read back before the subtest's folder goes.
					written, readErr = result.ReadResult(partial.Path)
				})
			})
		}
	})
	if victim == nil || partial == nil {
		t.Fatal("the victim's test did not run")
	}
	errs := strings.Join(victim.errs, "\n")
	t.Logf("the unplugged phone's test failed with:\n%s", errs)
	if !strings.Contains(errs, "session ended early") || !strings.Contains(errs, "disappeared during") || !strings.Contains(errs, unplugged.Serial) {
		t.Errorf("the unplugged phone's test failed with:\n%s\nwant the session's end and the device named", errs)
	}
	if partial.Error == "" || len(partial.Frames) < 5 {
		t.Errorf("partial Result: error %q, %d frames", partial.Error, len(partial.Frames))
	}
	if readErr != nil || written.Error != partial.Error || len(written.Frames) != len(partial.Frames) {
		t.Errorf("partial Result on disk: %v", readErr)
	}
	if n := len(p.Members()); n != 3 {
		t.Errorf("%d devices left in the pool, want 3", n)
	}
	if slices.ContainsFunc(p.Members(), func(m *devicepool.Member) bool { return m.Serial() == unplugged.Serial }) {
		t.Errorf("the unplugged phone %s is still in the pool", unplugged.Serial)
	}
	// A lease of the gone phone alone fails at once, saying why.
	r := &recorder{name: "TestAfter"}
	r.run(func() {
		p.LeaseWhere(r, func(m *devicepool.Member) bool { return m.Serial() == unplugged.Serial })
	})
	if len(r.errs) != 1 || !strings.Contains(r.errs[0], devicepool.ErrPoolEmpty.Error()) || !strings.Contains(r.errs[0], unplugged.Serial) {
		t.Errorf("leasing the unplugged phone: %q", r.errs)
	}
}

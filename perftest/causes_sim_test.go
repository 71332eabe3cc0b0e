package perftest_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/logcat"
	"github.com/perfgate/perfgate/assert"
	"github.com/perfgate/perfgate/causes"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/simdevice"
)

// causeDevice is a phone running the janky-feed app (two causes of slow
// frames in one scroll: rows bound in RecyclerView's layout, four frames
// in a row, and an image decoded in a Handler message of its own), not
// started yet. Its cold start keeps the preset's 650 ms: the tests launch
// the app inside the session, and the stack sampler, which starts when
// the app's process appears, may take that long on a busy host before it
// samples (the scroll's first slow frames come 0.14 s into it).
func causeDevice(t *testing.T, api int, hz float64, q simdevice.Quirks, edit func(*simdevice.Workload)) (*simdevice.Device, *adbx.Device) {
	t.Helper()
	wl, err := simdevice.Preset("janky-feed")
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(wl)
	}
	dev, err := simdevice.New(simdevice.Config{API: api, RefreshHz: hz, Workload: wl, Quirks: q, Serial: "sim-causes"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	d, _ := openHost(t, dev, nil)
	return dev, d
}

// waitCauseFrames waits until the phone has presented n more frames made
// slow by each cause (its truth says so), and then 100 ms of the phone's
// time: the step that waits ends that long after the last of them, so the
// Looper lines of their messages are inside it however the clock map
// places its end (within its uncertainty, a few ms). At most a minute: a
// bound for a broken test, not a wait for time to pass.
func waitCauseFrames(t *testing.T, dev *simdevice.Device, n map[string]int) {
	t.Helper()
	base := map[string]int{}
	for _, f := range dev.World().TruthFrames() {
		base[f.Cause]++
	}
	deadline := time.Now().Add(time.Minute)
	for {
		got := map[string]int{}
		var last int64
		for _, f := range dev.World().TruthFrames() {
			got[f.Cause]++
			last = max(last, f.Present)
		}
		done := true
		for c, k := range n {
			done = done && got[c]-base[c] >= k
		}
		if done {
			for int64(dev.World().Uptime()) < last+int64(100*time.Millisecond) {
				time.Sleep(10 * time.Millisecond)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a minute the phone presented %v frames by cause, want %v more than %v", got, n, base)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// appFrame is the innermost method of a truth stack in the app's package.
func appFrame(stack []string) string {
	for i := len(stack) - 1; i >= 0; i-- {
		if strings.HasPrefix(stack[i], pkg+".") {
			return stack[i]
		}
	}
	return ""
}

// launchCold launches the app in a step of its own, so that its process
// starts after the session set the Looper property.
func launchCold(t *testing.T, s *perftest.Session, d *adbx.Device, dev *simdevice.Device) {
	t.Helper()
	s.Step("launch", func() { launch(t, d, dev) })
}

// The done-when test: on the simulated phone, for a workload with two
// causes in one step, at least 95 % of the janky frames are attributed to
// the cause the truth names, and the step's top blocker and top stack are
// the truth's.
func TestCausesMatchTruth(t *testing.T) {
	t.Parallel()
	for _, tc := range causesCases {
		t.Run(fmt.Sprintf("api%d_%ghz", tc.api, tc.hz), func(t *testing.T) {
			t.Parallel()
			simtest.Bubble(t, func(t *testing.T) { causesMatchTruth(t, tc) })
		})
	}
}

// causesCase is a phone TestCausesMatchTruth runs on.
type causesCase struct {
	api int
	hz  float64
}

var causesCases = []causesCase{{33, 60}, {28, 120}}

// causesMatchTruth is one case of TestCausesMatchTruth.
func causesMatchTruth(t *testing.T, tc causesCase) {
	// On the bubble's clock no host stalls past the phone's frame ring
	// (1 s at 120 Hz): frames lost fail the test.
	dev, d := causeDevice(t, tc.api, tc.hz, simdevice.Quirks{LogHistory: true}, nil)
	s := perftest.Start(t, d, perftest.WithConfig(perftest.Config{Package: pkg, Name: t.Name(), ResultsDir: t.TempDir(), WaitForApp: true}))
	launchCold(t, s, d, dev)
	s.Step("scroll", func() { waitCauseFrames(t, dev, map[string]int{"bind": 8, "decode": 2}) })
	r := s.Stop()
	if lost := framesLost(r); lost != "" {
		t.Errorf("%s on the fake clock", lost)
	}
	w := dev.World()
	wl := w.Workload()
	st := r.Step("scroll")
	c := st.Causes
	if c == nil {
		t.Fatal("no causes")
	}
	for _, src := range []string{causes.SourcePhases, causes.SourceBlocks, causes.SourceStacks, causes.SourceANRs} {
		if why := c.NotMeasured[src]; why != "" {
			t.Errorf("%s not measured: %s", src, why)
		}
	}

	// Every janky frame against the truth's cause.
	truth := map[int64]simdevice.TruthFrame{}
	for _, f := range w.TruthFrames() {
		truth[f.IntendedVsync] = f
	}
	// A step's blocks are the messages whose Looper line was logged
	// before the step's end, and the end is placed on the phone's
	// clock within the clock map's uncertainty. The message of a
	// frame presented just before the step ended can be logged
	// after that end as the session places it: such an edge frame
	// has no block in the step, and is set apart (at most two).
	pastEnd := map[int64]bool{}
	for _, b := range w.TruthBlocks() {
		if b.LoggedMs > 0 && b.FrameVsync != 0 && b.EndNs >= st.DeviceEndNs {
			pastEnd[b.FrameVsync] = true
		}
	}
	attributed, janky, edge := 0, 0, 0
	for _, fc := range c.Frames {
		if !slices.Contains(fc.Janks, st.FrameStats.JankDefinition) {
			continue
		}
		if fc.Block == nil && pastEnd[fc.TimeNs] {
			t.Logf("janky frame at %.3fs: its message was logged after the step's end (clock uncertainty %.1f ms)", fc.AtS, r.Clock.UncertaintyMs)
			edge++
			continue
		}
		janky++
		tf := truth[fc.TimeNs]
		ci := slices.IndexFunc(wl.Causes, func(x simdevice.Cause) bool { return x.Name == tf.Cause })
		if ci < 0 {
			t.Errorf("janky frame at %.3fs: the truth has no cause for it (%+v)", fc.AtS, tf)
			continue
		}
		cause := wl.Causes[ci]
		handler, callback := "android.view.Choreographer$FrameHandler", "android.view.Choreographer$FrameDisplayEventReceiver"
		if cause.Phase == "wait" {
			handler, callback = cause.Handler, cause.Callback
		}
		var b causes.Block
		if fc.Block != nil {
			b = c.Blocks[*fc.Block]
		}
		if fc.Block != nil && b.Handler == handler && b.Callback == callback && fc.AppFrame == appFrame(cause.Stack) &&
			fc.Stack == strings.Join(cause.Stack, ";") && string(fc.Phase) == cause.Phase {
			attributed++
		} else {
			t.Logf("frame at %.3fs (truth %s): phase %s, block %+v, stack %d/%d in %s", fc.AtS, tf.Cause, fc.Phase, b, fc.StackHits, fc.StackSamples, fc.AppFrame)
		}
	}
	t.Logf("%d of %d janky frames attributed to their true cause; top blockers %+v; top stacks %+v", attributed, janky, c.TopBlockers, c.TopStacks)
	if edge > 2 {
		t.Errorf("%d janky frames whose message was logged after the step's end, want at most two", edge)
	}
	if janky < 8 || float64(attributed) < 0.95*float64(janky) {
		t.Errorf("%d of %d janky frames attributed to the truth's cause, want at least 95%% of at least 8", attributed, janky)
	}

	// The truth's top blocker: the messages Looper logged in the step,
	// by handler, callback class and the cause's app frame.
	type key struct{ h, c, app string }
	total := map[key]int64{}
	work := map[string]int64{}
	var longest int64
	for _, b := range w.TruthBlocks() {
		if b.EndNs < st.DeviceStartNs || b.EndNs >= st.DeviceEndNs {
			continue
		}
		work[b.Cause] += b.WorkNs
		if b.LoggedMs == 0 {
			continue
		}
		longest = max(longest, b.LoggedMs)
		cb, _, _ := strings.Cut(b.Callback, "@")
		app := ""
		if i := slices.IndexFunc(wl.Causes, func(x simdevice.Cause) bool { return x.Name == b.Cause }); i >= 0 {
			app = appFrame(wl.Causes[i].Stack)
		}
		total[key{b.Handler, cb, app}] += b.LoggedMs
	}
	var top key
	for k, v := range total {
		if v > total[top] {
			top = k
		}
	}
	if len(c.TopBlockers) == 0 {
		t.Fatal("no top blocker")
	}
	tb := c.TopBlockers[0]
	if tb.Handler != top.h || tb.Callback != top.c || tb.AppFrame != top.app || tb.TotalMs != total[top] {
		t.Errorf("top blocker %+v, truth %+v with %d ms", tb, top, total[top])
	}
	if got := metric(t, st, metrics.MaxBlock); int64(got) != longest {
		t.Errorf("max_block %v, truth %d ms", got, longest)
	}

	// The truth's top stack: the stack of the cause that worked longest.
	topCause := ""
	for k, v := range work {
		if k != "" && v > work[topCause] {
			topCause = k
		}
	}
	i := slices.IndexFunc(wl.Causes, func(x simdevice.Cause) bool { return x.Name == topCause })
	if len(c.TopStacks) == 0 || i < 0 || c.TopStacks[0].Stack != strings.Join(wl.Causes[i].Stack, ";") || c.TopStacks[0].AppFrame != appFrame(wl.Causes[i].Stack) {
		t.Errorf("top stacks %+v, truth: cause %q", c.TopStacks, topCause)
	}

	// The gate says why.
	var out bytes.Buffer
	rec := &recordT{w: &out}
	assert.MaxJank(rec, st, 0)
	if line := out.String(); !strings.Contains(line, "late in layout; top block ") || !strings.Contains(line, " ms in "+pkg+".FeedAdapter.onBindViewHolder") {
		t.Errorf("failure line %q does not say why", line)
	}

	// The folded stacks beside the Result, and the property put back.
	b, err := os.ReadFile(filepath.Join(filepath.Dir(r.Path), r.Causes.StacksFile))
	if err != nil || !bytes.Contains(b, []byte("scroll;"+strings.Join(wl.Causes[i].Stack, ";")+" ")) {
		t.Errorf("folded stacks %s: %v\n%.400s", r.Causes.StacksFile, err, b)
	}
	if v, ok := w.Prop(logcat.LooperSlowProperty(wl.UID, "main")); ok || r.Causes.LooperSlowMs != int64(1000/tc.hz) {
		t.Errorf("property after Stop: %q (set %v); threshold %d ms", v, ok, r.Causes.LooperSlowMs)
	}
}

// recordT collects a check's failure lines.
type recordT struct{ w *bytes.Buffer }

func (r *recordT) Errorf(format string, args ...any) {
	r.w.WriteString(strings.TrimSpace(fmt.Sprintf(format, args...)) + "\n")
}
func (r *recordT) FailNow() {}

// An app that is neither debuggable nor profileable: phases and blocks
// measured, one clear note for stacks, no failure.
func TestCausesNotProfileable(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		dev, d := causeDevice(t, 33, 60, simdevice.Quirks{}, func(w *simdevice.Workload) { w.Debuggable = false })
		s := perftest.Start(t, d, perftest.WithConfig(perftest.Config{Package: pkg, Name: t.Name(), ResultsDir: t.TempDir(), WaitForApp: true}))
		launchCold(t, s, d, dev)
		s.Step("scroll", func() { waitCauseFrames(t, dev, map[string]int{"bind": 4, "decode": 1}) })
		r := s.Stop()
		if r.Error != "" {
			t.Fatalf("session failed: %s", r.Error)
		}
		st := r.Step("scroll")
		c := st.Causes
		if c == nil || len(c.Blocks) == 0 || len(c.Phases) == 0 || c.NotMeasured[causes.SourceBlocks] != "" {
			t.Fatalf("causes %+v", c)
		}
		why := c.NotMeasured[causes.SourceStacks]
		if !strings.Contains(why, "isn't debuggable/profileable") || len(c.TopStacks) != 0 {
			t.Errorf("stacks not measured because %q; top stacks %v", why, c.TopStacks)
		}
		notes := 0
		for _, n := range r.Notes {
			if strings.HasPrefix(n, "stacks: ") {
				notes++
			}
		}
		if notes != 1 {
			t.Errorf("%d notes on stacks, want one: %q", notes, r.Notes)
		}
		metric(t, st, metrics.MaxBlock)
		if r.Causes.StacksFile != "" {
			t.Errorf("a stacks file %q without stacks", r.Causes.StacksFile)
		}
	})
}

// The app already runs when the session starts: its Looper read the
// property before the session set it, so blocks are not measured, with a
// note saying so; stacks and phases are.
func TestCausesAppAlreadyRunning(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		dev, d := causeDevice(t, 34, 60, simdevice.Quirks{}, nil)
		launch(t, d, dev)
		s := perftest.Start(t, d, perftest.WithConfig(perftest.Config{Package: pkg, Name: t.Name(), ResultsDir: t.TempDir()}))
		s.Step("scroll", func() { waitCauseFrames(t, dev, map[string]int{"bind": 4}) })
		r := s.Stop()
		st := r.Step("scroll")
		absent(t, st, []metrics.Name{metrics.MaxBlock}, "blocks: ", "already running", "log.looper.10234.main.slow")
		if !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "was running") && strings.Contains(n, "cold launch") }) {
			t.Errorf("no note on the running app: %q", r.Notes)
		}
		if st.Causes == nil || len(st.Causes.TopStacks) == 0 || len(st.Causes.Phases) == 0 {
			t.Errorf("causes %+v", st.Causes)
		}
	})
}

// A build that keeps the shell from the property: a clear note, no blocks,
// the rest measured.
func TestCausesPropertyDenied(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		dev, d := causeDevice(t, 33, 60, simdevice.Quirks{DeniedProperties: []string{"log.looper.*"}}, nil)
		s := perftest.Start(t, d, perftest.WithConfig(perftest.Config{Package: pkg, Name: t.Name(), ResultsDir: t.TempDir(), WaitForApp: true}))
		launchCold(t, s, d, dev)
		s.Step("scroll", func() { waitCauseFrames(t, dev, map[string]int{"decode": 1}) })
		r := s.Stop()
		st := r.Step("scroll")
		absent(t, st, []metrics.Name{metrics.MaxBlock}, "could not be set", "Failed to set property 'log.looper.10234.main.slow' to '16'")
		if r.Causes.LooperProperty != "" || !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "blocks are not measured") }) {
			t.Errorf("run %+v, notes %q", r.Causes, r.Notes)
		}
		if len(st.Causes.TopStacks) == 0 {
			t.Errorf("no stacks: %+v", st.Causes.NotMeasured)
		}
	})
}

// The app stops responding: the ANR is an event of the step with the main
// thread's stack, and NoANR fails.
func TestCausesANR(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		dev, d := causeDevice(t, 33, 60, simdevice.Quirks{}, nil)
		s := perftest.Start(t, d, perftest.WithConfig(perftest.Config{Package: pkg, Name: t.Name(), ResultsDir: t.TempDir(), WaitForApp: true}))
		launchCold(t, s, d, dev)
		s.Step("save", func() {
			tapSave(t, d)
			waitCauseFrames(t, dev, map[string]int{"commit": 1})
		})
		r := s.Stop()
		st := r.Step("save")
		anrs := st.ANRs()
		if len(anrs) != 1 || anrs[0].PID != r.Step("save").Causes.ANRs[0].PID || !strings.Contains(anrs[0].Reason, "Input dispatching timed out") {
			t.Fatalf("ANRs %+v (not measured: %v)", anrs, st.Causes.NotMeasured)
		}
		if len(anrs[0].MainStack) == 0 || !strings.HasPrefix(anrs[0].MainStack[0], "java.io.FileDescriptor.sync(") ||
			!slices.ContainsFunc(anrs[0].MainStack, func(f string) bool { return strings.HasPrefix(f, pkg+".SettingsStore.save(") }) {
			t.Errorf("main stack %q", anrs[0].MainStack)
		}
		var out bytes.Buffer
		if assert.NoANR(&recordT{w: &out}, st) || !strings.Contains(out.String(), "perf budget exceeded: save: anrs 1 > 0") {
			t.Errorf("NoANR: %q", out.String())
		}
		if metric(t, st, metrics.MaxBlock) < 5000 {
			t.Errorf("max_block %v, want the 6 s commit", metric(t, st, metrics.MaxBlock))
		}
	})
}

// A phone without simpleperf: the session samples the debuggable app's
// main thread with ART's sampling profiler (am profile), and the stacks
// still name the truth's causes.
func TestCausesWithARTProfiler(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		dev, d := causeDevice(t, 30, 60, simdevice.Quirks{MissingCommands: []string{"simpleperf"}}, nil)
		wl := dev.World().Workload()
		s := perftest.Start(t, d, perftest.WithConfig(perftest.Config{Package: pkg, Name: t.Name(), ResultsDir: t.TempDir(), WaitForApp: true}))
		launchCold(t, s, d, dev)
		s.Step("scroll", func() { waitCauseFrames(t, dev, map[string]int{"bind": 4, "decode": 1}) })
		r := s.Stop()
		st := r.Step("scroll")
		c := st.Causes
		if r.Causes == nil || !strings.HasPrefix(r.Causes.StackSource, "am profile start --sampling") || c.NotMeasured[causes.SourceStacks] != "" {
			t.Fatalf("run %+v, stacks not measured: %q", r.Causes, c.NotMeasured[causes.SourceStacks])
		}
		if !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "no simpleperf") }) {
			t.Errorf("no note on the missing simpleperf: %q", r.Notes)
		}
		truth := map[int64]string{}
		for _, f := range dev.World().TruthFrames() {
			truth[f.IntendedVsync] = f.Cause
		}
		for _, fc := range c.Frames {
			if !slices.Contains(fc.Janks, st.FrameStats.JankDefinition) {
				continue
			}
			// ART samples the thread's stack whether it runs or waits: the
			// cause's stack is the most sampled one inside its frames.
			want := ""
			for _, cs := range wl.Causes {
				if cs.Name == truth[fc.TimeNs] {
					want = appFrame(cs.Stack)
				}
			}
			if fc.AppFrame != want || fc.StackHits*2 < fc.StackSamples {
				t.Errorf("frame at %.3fs (%s): app frame %q from %d of %d samples, want %q", fc.AtS, fc.Phase, fc.AppFrame, fc.StackHits, fc.StackSamples, want)
			}
		}
		if len(c.TopStacks) == 0 || c.TopStacks[0].AppFrame != pkg+".FeedAdapter.onBindViewHolder" {
			t.Errorf("top stacks %+v", c.TopStacks)
		}
	})
}

// CauseOptions reach the device: the Looper threshold set is the one asked
// for, so only messages at least that long are blocks (janky-feed binds rows
// in 41 ms messages, decodes in 88 ms ones), and with NoStacks no
// profiler runs and the step says why it has no stacks.
func TestCauseOptions(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		dev, d := causeDevice(t, 33, 60, simdevice.Quirks{}, nil)
		s := perftest.Start(t, d, perftest.WithConfig(perftest.Config{Package: pkg, Name: t.Name(), ResultsDir: t.TempDir(), WaitForApp: true}),
			perftest.WithCauses(perftest.CauseOptions{LooperSlow: 50 * time.Millisecond, NoStacks: true}))
		launchCold(t, s, d, dev)
		prop := logcat.LooperSlowProperty(10234, "main")
		var set string
		s.Step("scroll", func() {
			set, _ = dev.World().Prop(prop)
			waitCauseFrames(t, dev, map[string]int{"bind": 4, "decode": 1})
		})
		r := s.Stop()
		if r.Error != "" {
			t.Fatalf("session failed: %s", r.Error)
		}
		if set != "50" || r.Causes == nil || r.Causes.LooperProperty != prop || r.Causes.LooperSlowMs != 50 || r.Causes.StackSource != "" {
			t.Fatalf("property %s = %q during the step; run %+v", prop, set, r.Causes)
		}
		c := r.Step("scroll").Causes
		if c == nil || len(c.Blocks) == 0 {
			t.Fatalf("no blocks: %+v", c)
		}
		var short int
		for _, b := range dev.World().TruthBlocks() {
			if ms := (b.EndNs - b.StartNs) / 1e6; ms > 16 && ms < 50 {
				short++
			}
		}
		for _, b := range c.Blocks {
			if b.Ms < 50 {
				t.Errorf("a block of %d ms under the 50 ms threshold: %+v", b.Ms, b)
			}
		}
		if short == 0 {
			t.Errorf("the phone ran no message of 17–49 ms: the threshold went untested")
		}
		if why := c.NotMeasured[causes.SourceStacks]; !strings.Contains(why, "NoStacks") || len(c.TopStacks) != 0 {
			t.Errorf("stacks not measured because %q; top stacks %v", why, c.TopStacks)
		}
	})
}

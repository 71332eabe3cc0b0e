package perftest

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/android/logcat"
	"github.com/perfgate/perfgate/causes"
	"github.com/perfgate/perfgate/perftest/internal/looper"
	"github.com/perfgate/perfgate/perftest/internal/profiling"
	"github.com/perfgate/perfgate/result"
)

// looperAPI is the first API level whose Looper reads the slow-message
// property (and logs "Slow delivery"); simpleperf's Java stacks start
// there too.
const looperAPI = 28

// looperSlowMs is the threshold the session sets: Config.Causes.LooperSlow,
// else one refresh period rounded down to whole ms, at least 1.
func (c *collector) looperSlowMs() int64 {
	if d := c.cfg.Causes.LooperSlow; d > 0 {
		return max(1, d.Milliseconds())
	}
	return max(1, int64(1000/c.refreshHz))
}

// causesOn reports whether the session looks for causes at all.
func (c *collector) causesOn() bool { return !c.cfg.Causes.Off && c.cfg.has(CollectFrames) }

// setupCauses sets the app's Looper property and starts the profiler on
// the app's running processes; it runs at the end of setup. What both
// need to know of the phone is read in one round trip.
func (c *collector) setupCauses(ctx context.Context) {
	if !c.causesOn() {
		return
	}
	api := c.s.res.Device.API
	run := &result.CauseRun{}
	c.s.res.Causes = run
	looperOn, stacks := false, false
	switch {
	case c.cfg.Causes.NoLooper:
		c.looper.Leave("blocks: not collected (Config.Causes.NoLooper)")
	case api > 0 && api < looperAPI:
		c.looper.Leave(fmt.Sprintf("blocks: Looper's slow-message log needs Android 9 (API %d); the device runs API %d", looperAPI, api))
	default:
		looperOn = true
	}
	switch {
	case c.cfg.Causes.NoStacks:
		c.prof.Leave("stacks: not collected (Config.Causes.NoStacks)")
	case api > 0 && api < looperAPI:
		c.prof.Leave(fmt.Sprintf("stacks: simpleperf samples Java code from Android 9 (API %d); the device runs API %d", looperAPI, api))
	default:
		stacks = true
	}
	var cmds []string
	if stacks {
		cmds = append(cmds, profiling.SetupCmds()...)
	}
	if looperOn {
		cmds = append(cmds, c.looper.Prepare(c.uid)...)
	}
	var out []adbx.Result
	var err error
	if len(cmds) > 0 {
		out, err = c.s.dev.batch(ctx, cmds)
	}
	if err == nil && len(out) != len(cmds) {
		err = fmt.Errorf("batch of %d commands returned %d results", len(cmds), len(out))
	}
	if looperOn {
		var read []adbx.Result
		if err == nil {
			read = out[len(out)-looper.Reads:]
		}
		c.looper.Set(ctx, read, err, c.looperSlowMs(), c.pids, c.note)
		if prop, ms, ok := c.looper.Setting(); ok {
			run.LooperProperty, run.LooperSlowMs = prop, ms
		}
	}
	if stacks {
		var res []adbx.Result
		if err == nil {
			res = out[:len(profiling.SetupCmds())]
		}
		run.StackSource = c.prof.Setup(ctx, res, c.note)
		for _, pid := range c.pids {
			c.prof.Start(pid)
		}
	}
}

// restoreLooperProp undoes the session's change to the property (see
// looper.Property.Restore), noting what it could not undo.
func (c *collector) restoreLooperProp() {
	notes := c.looper.Restore()
	if len(notes) == 0 {
		return
	}
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	for _, n := range notes {
		c.note("%s", n)
	}
}

// guardSignals keeps a session's Result and the phone's state when the
// test binary is interrupted (Ctrl-C, SIGTERM, SIGHUP) before Stop: the
// session stops as Stop stops it (its open step marked unfinished, the
// Looper property restored, the profiler and trace stopped), writes its
// Result with the signal as its error, and then the signal takes its
// course. It runs only in a test binary (go test), where nothing else
// handles the signals: a program that opens sessions (NewSession, or
// Start with a TestingT of its own, as `perfgate run` does) handles its
// signals and calls Stop. A signal the process ignores is left alone
// (guardedSignals).
func (s *Session) guardSignals() {
	if result.TestPackage() == "" {
		return
	}
	if !guard.add(s) {
		return
	}
	s.unguard = func() { guard.remove(s) }
}

// guard is the test binary's one handler of stop signals, for every
// session it has open. It is made, and its goroutine started, when the
// package initialises: outside any testing/synctest bubble, so that a
// session started inside one neither makes the signal channel part of its
// bubble (the runtime, outside it, sends to that channel) nor starts the
// os/signal machinery's goroutines there, and the guard outlives it.
var guard = newSignalGuard()

// signalGuard handles the stop signals while sessions are open: each
// signal stops them all at once, and is raised again once they stopped
// (or guardWait passed).
type signalGuard struct {
	mu    sync.Mutex
	live  map[*Session]bool
	sigs  chan os.Signal   // what signal.Notify delivers
	arm   chan []os.Signal // signals to catch; nil: catch none
	armed chan struct{}    // arm's request done
}

func newSignalGuard() *signalGuard {
	g := &signalGuard{
		live:  map[*Session]bool{},
		sigs:  make(chan os.Signal, 1),
		arm:   make(chan []os.Signal),
		armed: make(chan struct{}),
	}
	go g.run()
	return g
}

// guardWait bounds how long an interrupted test binary waits for its
// sessions to stop before the signal ends it.
const guardWait = 20 * time.Second

// add registers s, installing the handler for the first live session; it
// reports false when there is no signal to guard.
func (g *signalGuard) add(s *Session) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.live) == 0 {
		guarded := guardedSignals()
		if len(guarded) == 0 {
			return false
		}
		g.arm <- guarded
		<-g.armed
	}
	g.live[s] = true
	return true
}

// remove unregisters s, giving the signals back their default when no
// session is left.
func (g *signalGuard) remove(s *Session) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.live[s] {
		return
	}
	delete(g.live, s)
	if len(g.live) == 0 {
		g.arm <- nil
		<-g.armed
	}
}

// run catches and releases the signals as add and remove ask, and stops
// every live session on a signal.
func (g *signalGuard) run() {
	for {
		select {
		case sigs := <-g.arm:
			if sigs == nil {
				signal.Stop(g.sigs)
				// A signal caught as the last session left has no
				// session to stop.
				select {
				case <-g.sigs:
				default:
				}
			} else {
				signal.Notify(g.sigs, sigs...)
			}
			g.armed <- struct{}{}
		case sig := <-g.sigs:
			go g.stopAll(sig)
		}
	}
}

// stopAll stops every live session, then raises sig again.
func (g *signalGuard) stopAll(sig os.Signal) {
	g.mu.Lock()
	live := make([]*Session, 0, len(g.live))
	for s := range g.live {
		live = append(live, s)
	}
	g.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range live {
		wg.Go(func() { s.interrupt(sig) })
	}
	stopped := make(chan struct{})
	go func() { wg.Wait(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(guardWait):
	}
	g.arm <- nil
	<-g.armed
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Signal(sig)
	}
}

// interrupt ends the session on a signal: its open step is unfinished, and
// Stop restores the phone and writes the Result, whose error names the
// signal; the Result is published (reports, history) as at a test's end.
func (s *Session) interrupt(sig os.Signal) {
	s.mu.Lock()
	if s.endErr == nil && !s.stopped {
		s.endErr = fmt.Errorf("perftest: interrupted by %v before the session stopped", sig)
	}
	if s.cur != nil {
		s.cur.Unfinished = true
	}
	s.endLocked()
	s.mu.Unlock()
	s.Publish()
}

// stopSignals are the signals that end a test binary that does not
// handle them.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// guardedSignals are the stop signals the process does not ignore. An
// ignored one does not end it (a test binary that a script starts in the
// background runs with SIGINT ignored), and catching it would undo that:
// signal.Notify stops ignoring it, and the guard, having restored the
// property, raised it again into a process that went back to ignoring
// it. The session went on with the property restored, and an app
// process started after that logged no slow message: its blocks read as
// none where they were not measured.
func guardedSignals() []os.Signal {
	var out []os.Signal
	for _, sig := range stopSignals {
		if !signal.Ignored(sig) {
			out = append(out, sig)
		}
	}
	return out
}

// readCauses stops the profiler and reads what the causes need, once the
// lanes stopped: the samples, the app's Looper lines and ANRs.
func (c *collector) readCauses(ctx context.Context) {
	if !c.causesOn() {
		return
	}
	c.prof.Stop(ctx)
	samples, notes := c.prof.Read(ctx)
	log := c.readCauseLog(ctx)
	notes = append(notes, c.readANRStacks(ctx, log.anrs)...)
	if n := c.prof.FailedNote(); n != "" {
		notes = append(notes, n)
	}
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	for _, n := range notes {
		c.note("%s", n)
	}
	log.samples = samples
	log.read = true
	c.causes = log
	if r := c.s.res.Causes; r != nil {
		r.Samples = len(samples)
	}
}

// causeLogCmds read, in one round trip, the system buffer's Looper and
// ActivityManager lines with times on the device's monotonic clock (the
// frames' clock), and the buffer's first lines, which tell how far back it
// still reaches.
func causeLogCmds() []string {
	const format = "-v threadtime -v usec -v monotonic"
	return []string{"logcat -d -b system " + format + " -s Looper:W ActivityManager:E",
		"logcat -d -b system " + format + " | head -n 3"}
}

// readCauseLog reads the app's slow-message lines and ANRs.
func (c *collector) readCauseLog(ctx context.Context) causeLog {
	ctx, cancel := context.WithTimeout(ctx, max(c.cfg.TickTimeout, 10*time.Second))
	defer cancel()
	cmds := causeLogCmds()
	out, err := c.s.dev.batch(ctx, cmds)
	if err == nil && len(out) != len(cmds) {
		err = fmt.Errorf("batch of %d commands returned %d results", len(cmds), len(out))
	}
	if err != nil {
		return causeLog{logWhy: fmt.Sprintf("%s: %v", cmds[0], err)}
	}
	for i := range out {
		if out[i].ExitCode != 0 {
			return causeLog{logWhy: failure(out[i], cmds[i])}
		}
	}
	c.s.mu.Lock()
	pids := slices.Clone(c.s.res.App.PIDs)
	for _, smp := range c.s.res.Samples {
		pids = append(pids, smp.PIDs...)
	}
	c.s.mu.Unlock()
	// The buffer's oldest line; an empty buffer lost nothing.
	var l causeLog
	first := strings.TrimSpace(string(devtext.Normalize(out[1].Stdout)))
	l.logFrom = -1
	for _, raw := range strings.Split(first, "\n") {
		if e, ok := logcat.ParseLine(raw); ok && e.Epoch {
			l.logFrom = e.Time.UnixNano()
			break
		}
	}
	switch {
	case l.logFrom >= 0:
	case first == "" || !strings.Contains(first, "\n") && strings.HasPrefix(first, "--------- beginning of"):
		l.logFrom = 0
	default:
		return causeLog{logWhy: fmt.Sprintf("%s printed no line with a monotonic time: %q", cmds[1], clipText(first))}
	}
	text := devtext.Normalize(out[0].Stdout)
	var entries []logcat.Entry
	for _, raw := range strings.Split(string(text), "\n") {
		if e, ok := logcat.ParseLine(raw); ok && e.Epoch {
			entries = append(entries, e)
		}
	}
	for _, ln := range logcat.LooperLines(entries) {
		e := entries[ln.Entry]
		if ln.Drained || ln.Kind != logcat.LooperDispatch || ln.Thread != "main" || e.PID != e.TID || !slices.Contains(pids, e.PID) {
			continue
		}
		l.blocks = append(l.blocks, causes.BlockOf(ln.LooperSlow, e.Time.UnixNano()))
	}
	for _, a := range logcat.ParseANRs(text) {
		if a.Process != c.cfg.Package && !slices.Contains(pids, a.PID) {
			continue
		}
		l.anrs = append(l.anrs, causes.ANR{TimeNs: a.Entry.Time.UnixNano(), PID: a.PID, Reason: a.Reason})
	}
	return l
}

// readANRStacks reads the ANRs' stack dumps for the main thread's stack:
// the dropbox's data_app_anr entries, else /data/anr/traces.txt (readable
// to the shell on old Android). It returns notes on what it could not read.
func (c *collector) readANRStacks(ctx context.Context, anrs []causes.ANR) []string {
	if len(anrs) == 0 {
		return nil
	}
	cmds := []string{"dumpsys dropbox --print data_app_anr", "cat /data/anr/traces.txt"}
	actx, cancel := context.WithTimeout(ctx, max(c.cfg.TickTimeout, 10*time.Second))
	out, err := c.s.dev.batch(actx, cmds)
	cancel()
	if err == nil && len(out) != len(cmds) {
		err = fmt.Errorf("batch of %d commands returned %d results", len(cmds), len(out))
	}
	if err != nil {
		return []string{fmt.Sprintf("anrs: the ANR stack dumps could not be read (%s; %s): %v", cmds[0], cmds[1], err)}
	}
	var secs []logcat.ANRTrace
	for _, o := range out {
		if o.ExitCode == 0 {
			secs = append(secs, logcat.ParseANRTraces(o.Stdout)...)
		}
	}
	var notes []string
	for i := range anrs {
		a := &anrs[i]
		// The newest dump of the process holds the ANR's stack.
		for k := len(secs) - 1; k >= 0; k-- {
			if secs[k].PID == a.PID {
				if m := secs[k].Main(); m != nil {
					a.MainStack = m.Frames
				}
				break
			}
		}
		if a.MainStack == nil {
			notes = append(notes, fmt.Sprintf("anrs: no stack dump of pid %d in %s or %s (Android 8+ keeps /data/anr from the shell; the dropbox entry may be gone)", a.PID, cmds[0], cmds[1]))
		}
	}
	return notes
}

// blocksWhy says why a step has no blocks, "" when it has them.
func (c *collector) blocksWhy(st *result.Step) string {
	if why := c.looper.Why(c.stepPIDs(st)); why != "" {
		return why
	}
	if why := c.causeLogWhy(st, causes.SourceBlocks); why != "" {
		return why
	}
	if !c.ranDuring(st.HostStartNs, st.HostEndNs) {
		return "blocks: " + c.notRunningWhy(st.HostStartNs, st.HostEndNs)
	}
	return ""
}

// causeLogWhy says why the log read at Stop tells source src nothing of
// the step, "" when it tells all.
func (c *collector) causeLogWhy(st *result.Step, src string) string {
	switch {
	case !c.causes.read:
		return src + ": the log was not read (the session ended before Stop)"
	case c.causes.logWhy != "":
		return src + ": " + c.causes.logWhy
	case c.causes.logFrom > st.DeviceStartNs:
		return fmt.Sprintf("%s: the system log no longer reaches back to the step (its oldest line is %v after the step began)", src, time.Duration(c.causes.logFrom-st.DeviceStartNs).Round(time.Millisecond))
	}
	return ""
}

// stacksWhy says why a step has no sampled stacks, "" when it may have.
func (c *collector) stacksWhy(st *result.Step) string {
	return c.prof.Why(c.stepPIDs(st), c.causes.read)
}

// anrsWhy says why a step's ANRs are not known, "" when they are.
func (c *collector) anrsWhy(st *result.Step) string { return c.causeLogWhy(st, causes.SourceANRs) }

// stepPIDs are the app's processes the ticks of the step saw.
func (c *collector) stepPIDs(st *result.Step) []int {
	var out []int
	ss := c.s.res.Samples
	for i := c.firstSample(st.HostStartNs); i < len(ss); i++ {
		for _, p := range ss[i].PIDs {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
		if ss[i].HostNs > st.HostEndNs {
			break
		}
	}
	return out
}

// restoreLooper stops the signal guard, puts the Looper property back as
// it was before the session, and stops any recording Stop did not read (a
// session that ended early), removing its file.
func (s *Session) restoreLooper() {
	if s.unguard != nil {
		s.unguard()
	}
	s.col.restoreLooperProp()
	ctx, cancel := context.WithTimeout(context.Background(), max(s.cfg.TickTimeout, 5*time.Second))
	defer cancel()
	s.mu.Lock()
	read := s.col.causes.read
	s.mu.Unlock()
	s.col.prof.Cleanup(ctx, read)
}

// newProfiler is the session's profiler of the app's main thread, which
// reaches the phone through s.dev.
func newProfiler(s *Session) *profiling.Profiler {
	batch := func(ctx context.Context, cmds []string) ([]adbx.Result, error) { return s.dev.batch(ctx, cmds) }
	var stream func(context.Context, string) (io.ReadCloser, error)
	if st, ok := s.dev.(streamer); ok {
		stream = st.stream
	}
	return profiling.New(batch, stream, s.cfg.Package, s.cfg.Causes.SampleHz)
}

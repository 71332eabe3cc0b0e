package perftest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/android/logcat"
	profilerpkg "github.com/perfgate/perfgate/android/profiler"
	"github.com/perfgate/perfgate/causes"
	"github.com/perfgate/perfgate/perftest/internal/looper"
	"github.com/perfgate/perfgate/result"
)

// looperAPI is the first API level whose Looper reads the slow-message
// property (and logs "Slow delivery"); simpleperf's Java stacks start
// there too.
const looperAPI = 28

// profiler is the session's recordings of the app's main thread, one per
// app process, by simpleperf or ART's sampling profiler (source).
type profiler struct {
	mu     sync.Mutex
	source string
	runs   []*profRun
	why    string // why no stacks can be sampled at all
	failed string // why a recording failed
	seen   map[int]bool
}

// profRun is one recording of one process's main thread. For simpleperf,
// done closes when the recorder exits; for ART's profiler, when `am
// profile start` returned.
type profRun struct {
	pid     int
	file    string
	pattern string // pkill -f pattern matching the simpleperf recorder alone
	// intervalUs is how often ART's profiler samples.
	intervalUs int64
	startNs    int64 // host ns the recording was asked for
	cancel     context.CancelFunc
	done       chan struct{}
	res        adbx.Result
	err        error
}

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
		c.prof.why = "stacks: not collected (Config.Causes.NoStacks)"
	case api > 0 && api < looperAPI:
		c.prof.why = fmt.Sprintf("stacks: simpleperf samples Java code from Android 9 (API %d); the device runs API %d", looperAPI, api)
	default:
		stacks = true
	}
	var cmds []string
	if stacks {
		// The profiler files earlier sessions left are looked for in the
		// same round trip (causes_leftover.go).
		cmds = append(cmds, stackSourceCmd)
		cmds = append(cmds, profilerListing()...)
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
		var res *adbx.Result
		if err == nil {
			res = &out[0]
			c.removeProfilerLeftovers(ctx, out[1:1+len(profilerListing())])
		}
		c.prof.source = c.stackSource(res)
		run.StackSource = c.prof.source
		for _, pid := range c.pids {
			c.startRecorder(pid)
		}
	}
}

// The profilers a session samples the main thread with.
const (
	sourceSimpleperf = "simpleperf record --app <pkg> -t <main thread> -e cpu-clock -g --clockid monotonic; simpleperf report-sample --show-callchain"
	sourceARTProfile = "am profile start --sampling <µs> <main process> <file>; am profile stop (ART's sampling profiler, debuggable apps)"
)

// stackSourceCmd tells whether the device has simpleperf.
const stackSourceCmd = "command -v simpleperf"

// stackSource picks simpleperf where the device has it (res is what
// stackSourceCmd gave, nil when its round trip failed), else ART's
// sampling profiler (debuggable apps only).
func (c *collector) stackSource(res *adbx.Result) string {
	if res != nil && res.ExitCode != 0 {
		c.note("stacks: the device has no simpleperf (%s: exit %d); sampling with `am profile start --sampling`, which needs a debuggable app", stackSourceCmd, res.ExitCode)
		return sourceARTProfile
	}
	return sourceSimpleperf
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

// startRecorder starts the profiler on the main thread of app process
// pid, once per process. It runs with the session's lock held.
func (c *collector) startRecorder(pid int) {
	p := &c.prof
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.why != "" || p.seen[pid] || p.source == "" {
		return
	}
	if p.seen == nil {
		p.seen = map[int]bool{}
	}
	p.seen[pid] = true
	var b [8]byte
	rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	hz := c.cfg.Causes.SampleHz
	if hz <= 0 {
		hz = 1000
	}
	r := &profRun{pid: pid, file: "/data/local/tmp/perfgate-" + token + ".data", startNs: c.s.now(), done: make(chan struct{})}
	// Anchored at the recorder's own command line: the shells that run it
	// and the pkill carry the pattern too, but start otherwise.
	r.pattern = "^simpleperf record .*perfgate-" + token + "[.]data"
	cmd := fmt.Sprintf("simpleperf record --app %s -t %d -e cpu-clock -f %d -g --clockid monotonic -o %s",
		shellQuote(c.cfg.Package), pid, hz, r.file)
	if p.source == sourceARTProfile {
		r.file = "/data/local/tmp/perfgate-" + token + ".trace"
		r.intervalUs = int64(max(1, 1_000_000/hz))
		cmd = fmt.Sprintf("am profile start --sampling %d %d %s", r.intervalUs, pid, r.file)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	p.runs = append(p.runs, r)
	go func() {
		defer close(r.done)
		out, err := c.s.dev.batch(ctx, []string{cmd})
		if err == nil && len(out) != 1 {
			err = fmt.Errorf("batch of 1 command returned %d results", len(out))
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		r.err = err
		if err == nil {
			r.res = out[0]
			if out[0].ExitCode != 0 && p.failed == "" {
				p.failed = failure(out[0], cmd)
			}
		}
	}()
}

// readCauses stops the profiler and reads what the causes need, once the
// lanes stopped: the samples, the app's Looper lines and ANRs.
func (c *collector) readCauses(ctx context.Context) {
	if !c.causesOn() {
		return
	}
	c.stopRecorders(ctx)
	samples, notes := c.readSamples(ctx)
	log := c.readCauseLog(ctx)
	notes = append(notes, c.readANRStacks(ctx, log.anrs)...)
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.prof.mu.Lock()
	if f := c.prof.failed; f != "" {
		notes = append(notes, "stacks: "+f+"; stacks are not measured ("+needs(c.prof.source)+"), everything else is")
	}
	c.prof.mu.Unlock()
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

// stopRecorders asks every recording still running to stop (SIGINT, after
// which simpleperf writes its file) and waits for it, at most 30 s. ART's
// profiler writes its file when `am profile stop` asks it to.
func (c *collector) stopRecorders(ctx context.Context) {
	c.prof.mu.Lock()
	runs := slices.Clone(c.prof.runs)
	art := c.prof.source == sourceARTProfile
	c.prof.mu.Unlock()
	for _, r := range runs {
		if art {
			<-r.done
			if r.err == nil && r.res.ExitCode == 0 {
				sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				c.s.dev.batch(sctx, []string{fmt.Sprintf("am profile stop %d", r.pid)})
				cancel()
			}
			continue
		}
		select {
		case <-r.done:
			continue
		default:
		}
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		c.s.dev.batch(sctx, []string{"pkill -INT -f " + shellQuote(r.pattern)})
		cancel()
		select {
		case <-r.done:
		case <-time.After(30 * time.Second):
			r.cancel()
			<-r.done
		}
	}
}

// readSamples reads each finished recording's samples and removes its file.
func (c *collector) readSamples(ctx context.Context) ([]causes.Sample, []string) {
	c.prof.mu.Lock()
	runs := slices.Clone(c.prof.runs)
	c.prof.mu.Unlock()
	var out []causes.Sample
	var notes []string
	for _, r := range runs {
		c.prof.mu.Lock()
		ok := r.err == nil && r.res.ExitCode == 0
		c.prof.mu.Unlock()
		if !ok {
			continue
		}
		if c.prof.source == sourceARTProfile {
			ss, note := c.readARTTrace(ctx, r)
			out = append(out, ss...)
			if note != "" {
				notes = append(notes, note)
			}
			continue
		}
		report := "simpleperf report-sample --show-callchain -i " + r.file
		rep, err := c.readReport(ctx, report, r.pid)
		// The recording is read, or cannot be: either way it goes.
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		c.s.dev.batch(rctx, []string{"rm -f " + r.file})
		cancel()
		if err != nil {
			notes = append(notes, "stacks: "+err.Error())
			continue
		}
		for _, s := range rep.Samples {
			out = append(out, causes.SampleOf(s, c.cfg.Package))
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].TimeNs < out[j].TimeNs })
	return out, notes
}

// readReport runs simpleperf's sample report and keeps the samples of
// thread tid. Where the device streams (adb), the report is read as it is
// printed, holding only the samples kept: report-sample prints 1–6 KB a
// sample, so a minute of a main thread busy throughout at 1000 Hz is some
// 200 MB of text, past what one shell call may read (adbx
// Options.MaxOutput). A device that cannot stream runs it in a batch.
func (c *collector) readReport(ctx context.Context, report string, tid int) (*profilerpkg.SimpleperfSamples, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	keep := func(s *profilerpkg.StackSample) bool { return s.TID == tid }
	if st, ok := c.s.dev.(streamer); ok {
		rc, err := st.stream(ctx, report)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", report, err)
		}
		defer rc.Close()
		rep, err := profilerpkg.ReadSimpleperfSamples(rc, keep)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", report, err)
		}
		return rep, nil
	}
	res, err := c.s.dev.batch(ctx, []string{report})
	if err == nil && len(res) != 1 {
		err = fmt.Errorf("batch of 1 command returned %d results", len(res))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", report, err)
	}
	if res[0].ExitCode != 0 {
		return nil, errors.New(failure(res[0], report))
	}
	rep, err := profilerpkg.ReadSimpleperfSamples(bytes.NewReader(res[0].Stdout), keep)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", report, err)
	}
	return rep, nil
}

// readARTTrace reads the trace ART's profiler wrote for recording r and
// removes it. The app writes the file after `am profile stop` returned, so
// a file not yet whole is read again, every 100 ms for at most 5 s.
func (c *collector) readARTTrace(ctx context.Context, r *profRun) ([]causes.Sample, string) {
	cmd := "cat " + r.file
	defer func() {
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		c.s.dev.batch(rctx, []string{"rm -f " + r.file})
		cancel()
	}()
	var why string
	for try := 0; try < 50; try++ {
		if try > 0 {
			time.Sleep(100 * time.Millisecond)
		}
		rctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		res, err := c.s.dev.batch(rctx, []string{cmd})
		cancel()
		switch {
		case err != nil:
			return nil, fmt.Sprintf("stacks: %s: %v", cmd, err)
		case len(res) != 1 || res[0].ExitCode != 0:
			return nil, "stacks: " + failure(res[0], cmd)
		}
		tr, err := profilerpkg.ParseARTTrace(res[0].Stdout)
		if err != nil {
			why = fmt.Sprintf("stacks: %s: %v", cmd, err)
			continue
		}
		var out []causes.Sample
		for _, s := range tr.Resample(r.intervalUs) {
			if s.TID == r.pid {
				out = append(out, causes.SampleOf(s, c.cfg.Package))
			}
		}
		if tr.Overflow {
			return out, fmt.Sprintf("stacks: the ART trace of pid %d filled its buffer (data-file-overflow=true): samples after that are lost", r.pid)
		}
		return out, ""
	}
	return nil, why + " (still after 5 s)"
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
	p := &c.prof
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.why != "":
		return p.why
	case p.failed != "":
		return "stacks: " + p.failed + " (" + needs(p.source) + "; everything else is still measured)"
	case !c.causes.read:
		return "stacks: the profiler was not read (the session ended before Stop)"
	}
	for _, pid := range c.stepPIDs(st) {
		covered := false
		for _, r := range p.runs {
			if r.pid == pid && r.err == nil && r.res.ExitCode == 0 {
				covered = true
			}
		}
		if !covered {
			return fmt.Sprintf("stacks: the app's process (pid %d) was not recorded", pid)
		}
	}
	return ""
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
	s.col.prof.mu.Lock()
	runs := slices.Clone(s.col.prof.runs)
	art := s.col.prof.source == sourceARTProfile
	s.col.prof.mu.Unlock()
	s.mu.Lock()
	read := s.col.causes.read
	s.mu.Unlock()
	for _, r := range runs {
		if art {
			// ART's profiler runs until asked to stop; Stop read it unless
			// the session ended early.
			<-r.done
			if !read && r.err == nil && r.res.ExitCode == 0 {
				s.dev.batch(ctx, []string{fmt.Sprintf("am profile stop %d", r.pid), "rm -f " + r.file})
			}
			continue
		}
		select {
		case <-r.done:
			continue // stopped and read, or it ended by itself
		default:
		}
		s.dev.batch(ctx, []string{"pkill -INT -f " + shellQuote(r.pattern)})
		select {
		case <-r.done:
		case <-ctx.Done():
			r.cancel()
			<-r.done
		}
		s.dev.batch(ctx, []string{"rm -f " + r.file})
	}
}

// needs says what the profiler needs of the app.
func needs(source string) string {
	if source == sourceARTProfile {
		return "ART's sampling profiler profiles debuggable apps"
	}
	return "simpleperf profiles apps that are debuggable, or profileable from the shell on Android 10+"
}

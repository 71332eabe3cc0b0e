package perftest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest/internal/energy"
	"github.com/perfgate/perfgate/result"
)

// Session measures one app on one device around named steps. Its methods
// are safe for concurrent use.
type Session struct {
	cfg   Config
	dev   device
	t     TestingT
	start time.Time // host reference; host ns count from here (monotonic)

	ctx    context.Context // ends at Stop
	cancel context.CancelFunc
	lanes  sync.WaitGroup

	tickMu sync.Mutex // one tick at a time (the lane's and Stop's last)

	mu     sync.Mutex
	res    *result.Result
	col    *collector
	energy *energy.Lane // the battery's current and voltage, the power rails
	cur    *result.Step // open step, nil between steps
	names  map[string]int
	lastOK int64 // host ns of the last successful tick
	// lastHeard is the host ns of the last tick the device answered,
	// whole or in part: a batch that timed out after some of its
	// commands finished came from a device that is there, only slow.
	lastHeard int64
	lastSend  int64 // host ns the last tick was sent
	failing   int   // consecutive failed ticks
	lastErr   error
	endErr    error // why the session ended early
	writeErr  error // why Stop could not write the Result or its reports
	stopped   bool
	// stopMu makes Stop run once, callers after the first waiting for
	// it (a sync.Once would hide the test's line from failures Stop
	// reports: only functions that call Helper are skipped).
	stopMu   sync.Mutex
	stopDone bool
	final    *result.Result
	// pending are session-bound checks waiting for Stop: each judges the
	// final Result and returns how to report its verdicts.
	pending []func(*result.Result) func()
	// restarting counts open Restarting calls; restartGrace covers the
	// first tick after the last one ended (host ns restartEndNs), for the
	// processes known before the first of them began (restartOld: seen by
	// a tick sent before restartFromNs).
	restarting    int
	restartGrace  bool
	restartEndNs  int64
	restartFromNs int64
	restartOld    []int
	// slowKick wakes the slow lane when a step begins, so every step has a
	// meminfo read of its own however short it is; kickFor names the step.
	slowKick chan struct{}
	kickFor  []string
	// unguard stops restoring the Looper property on a signal (see
	// guardSignals).
	unguard func()
	// deferPublish holds the Result's reports until the test's cleanup,
	// when every check of the test has recorded its verdict; published
	// says they went out.
	deferPublish bool
	publishMu    sync.Mutex
	published    bool

	// The Result is written as each step ends (checkpoint.go). stopping
	// ends those writes once Stop began; ckSeq numbers them. Once a frame
	// poll after ckAfter (host ns, the end of step ckAfterName) comes back,
	// the lane has the Result written again, when ckArmed; writers are
	// those writes still going on. ckDone keeps the summaries of steps
	// that no longer change.
	stopping    bool
	ckSeq       uint64
	ckAfter     int64
	ckAfterName string
	ckArmed     bool
	writers     sync.WaitGroup
	ckDone      map[*result.Step]ckStep
	// fileMu serialises the writes of the Result file: ckWritten is the
	// newest checkpoint written, finalWritten says Stop wrote the final
	// Result (no checkpoint does after it), ckErr is why a checkpoint
	// could not be written.
	fileMu       sync.Mutex
	ckWritten    uint64
	finalWritten bool
	ckErr        error
}

// Start begins measuring under a test. dev is the device (see adbx.Open);
// options name the app (App) and change the defaults. A session that cannot
// start fails the test at once (FailNow). Stop runs at t.Cleanup when t has
// Cleanup; call it yourself to get the Result.
func Start(t TestingT, dev *adbx.Device, opts ...Option) *Session {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	var cfg Config
	for _, o := range opts {
		o(&cfg)
	}
	if n, ok := t.(namedT); ok && cfg.Name == "" {
		cfg.Name = n.Name()
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	s, err := newSession(ctx, wrapAdbx(dev), cfg)
	if err != nil {
		t.Errorf("%v", err)
		t.FailNow()
		return nil
	}
	s.t = t
	s.guardSignals()
	register(t, s)
	if c, ok := t.(cleanupT); ok {
		// The Result is written at Stop; its reports (and its place in the
		// history) wait for the end of the test, so that they hold the
		// verdicts of the checks the test makes after Stop and the test's
		// own outcome.
		s.deferPublish = true
		c.Cleanup(func() {
			s.Stop()
			if f, ok := t.(interface{ Failed() bool }); ok && f.Failed() {
				s.final.SetTestFailed()
			}
			if err := s.Publish(); err != nil {
				t.Errorf("%v", err)
			}
			unregister(t, s)
		})
	}
	return s
}

// NewSession begins measuring outside a test, as `perfgate record` does. On
// error nothing runs; when cfg names a result file the failed attempt is
// written there all the same.
func NewSession(ctx context.Context, dev *adbx.Device, cfg Config) (*Session, error) {
	return newSession(ctx, wrapAdbx(dev), cfg)
}

// startTimeout bounds Start's setup round trips when the test gives none.
const startTimeout = 30 * time.Second

func newSession(ctx context.Context, dev device, cfg Config) (*Session, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Session{
		cfg:   cfg,
		dev:   dev,
		start: time.Now(),
		names: map[string]int{},
		res: &result.Result{
			Schema:      result.Schema,
			Name:        cfg.Name,
			TestPackage: result.TestPackage(),
			App:         result.AppInfo{Package: cfg.Package},
			Device:      procfs.DeviceFacts{Serial: dev.serial()},
		},
	}
	s.res.Start = s.start
	s.col = newCollector(s)
	if err := s.col.setup(ctx); err != nil {
		s.col.abandonTrace()
		s.endErr = err
		s.res.Error = err.Error()
		s.res.End = time.Now()
		s.res.Config = s.col.runConfig()
		if werr := cfg.writeResult(s.res); werr != nil {
			err = fmt.Errorf("%w (and %v)", err, werr)
		}
		return nil, err
	}
	s.res.Config = s.col.runConfig()
	s.energy = energy.Start(ctx, cfg.Energy, energy.Env{On: cfg.has(CollectBattery), Batch: dev.batch, Now: s.now, Timeout: cfg.TickTimeout})
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.slowKick = make(chan struct{}, 1)
	s.lanes.Add(1)
	go s.cheapLane()
	if s.col.samples.SlowLaneNeeded() {
		s.lanes.Add(1)
		go s.slowLane()
	}
	return s, nil
}

// now is host ns since the session started (monotonic).
func (s *Session) now() int64 { return int64(time.Since(s.start)) }

// Step runs fn as the step name: the window opens before fn and closes
// after it, even when fn panics or calls t.FailNow.
func (s *Session) Step(name string, fn func()) {
	if s == nil {
		fn()
		return
	}
	s.Begin(name)
	defer s.End()
	fn()
}

// Begin opens a step. A step still open is ended first: steps do not nest.
// A name used twice is recorded as "name#2", "name#3", ...
func (s *Session) Begin(name string) {
	if s == nil {
		return
	}
	var snap *checkpoint
	defer func() { s.writeCheckpoint(snap) }()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return
	}
	if st := s.endLocked(); st != nil {
		snap = s.stepEndedLocked(st)
	}
	s.names[name]++
	if n := s.names[name]; n > 1 {
		name += "#" + strconv.Itoa(n)
	}
	now := s.now()
	st := &result.Step{Name: name, HostStart: s.start.Add(time.Duration(now)), HostStartNs: now}
	s.cur = st
	s.energy.Kick()
	s.res.Steps = append(s.res.Steps, st)
	if s.slowKick != nil {
		s.kickFor = append(s.kickFor, name)
		select {
		case s.slowKick <- struct{}{}:
		default:
		}
	}
}

// End closes the open step; without one it does nothing. The Result so
// far, with the step, is written before End returns (see Unfinished).
func (s *Session) End() {
	if s == nil {
		return
	}
	s.mu.Lock()
	var snap *checkpoint
	if st := s.endLocked(); st != nil {
		snap = s.stepEndedLocked(st)
	}
	s.mu.Unlock()
	s.writeCheckpoint(snap)
}

// endLocked closes the open step and returns it; nil without one.
func (s *Session) endLocked() *result.Step {
	st := s.cur
	if st == nil {
		return nil
	}
	now := s.now()
	st.HostEndNs = now
	st.HostEnd = s.start.Add(time.Duration(now))
	s.cur = nil
	s.energy.Kick()
	return st
}

// stepAt names the step open at host time ns ("" between steps).
func (s *Session) stepAtLocked(ns int64) string {
	for i := len(s.res.Steps) - 1; i >= 0; i-- {
		st := s.res.Steps[i]
		if ns >= st.HostStartNs && (st == s.cur || ns < st.HostEndNs) {
			return st.Name
		}
	}
	return ""
}

// Name is the session's name (Config.Name: the test's, by default).
func (s *Session) Name() string { return s.cfg.Name }

// ResultsDir is the folder the session's Result goes in (see
// Config.ResultsDir), where files that go with it belong.
func (s *Session) ResultsDir() string { return s.cfg.resultsDir() }

// Err is why the session ended early, nil while it runs or when it ran to
// Stop.
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.endErr
}

// WriteErr is why Stop could not write the Result or its reports (see
// PERFGATE_REPORT): nil before Stop, and when Stop wrote them or had
// nothing to write. Under a test Stop also fails the test with it; a
// program such as `perfgate record` reads it here.
func (s *Session) WriteErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writeErr
}

// EndUnfinished closes the open step as Stop does a step still open when
// it is called: marked Unfinished, for a step cut short (an interrupt)
// whose figures cover only part of what it was to do. Without an open step
// it does nothing.
func (s *Session) EndUnfinished() {
	if s == nil {
		return
	}
	s.mu.Lock()
	if s.cur != nil {
		s.cur.Unfinished = true
	}
	var snap *checkpoint
	if st := s.endLocked(); st != nil {
		snap = s.stepEndedLocked(st)
	}
	s.mu.Unlock()
	s.writeCheckpoint(snap)
}

// FailStep records that a UI action of the named step failed: line says
// which and why, as the test reports it ("scenario step \"open\": tap text
// \"Feed\": element not found …"). The step keeps its figures, marked
// (Step.ActionFailed), so that they are never recorded as budgets; the
// Result keeps a failing verdict (budget.KindAction), so that no report
// shows the session as passed.
func (s *Session) FailStep(name, line string) {
	if s == nil {
		return
	}
	v := budget.Verdict{Kind: budget.KindAction, Step: name, Status: budget.Fail, From: "scenario", Line: line}
	s.mu.Lock()
	r := s.res
	// The most recent step of the name: a repeat of it is "name#2".
	for i := len(r.Steps) - 1; i >= 0; i-- {
		if st := r.Steps[i]; st.Name == name || metrics.BaseStep(st.Name) == name {
			if st.ActionFailed == "" {
				st.ActionFailed = line
			}
			v.Step = st.Name
			break
		}
	}
	s.mu.Unlock()
	r.RecordVerdicts(v)
}

// Done is closed when the session's collectors have stopped, by Stop or by
// losing the device.
func (s *Session) Done() <-chan struct{} { return s.ctx.Done() }

// cheapLane ticks every Config.Interval: each tick is due an interval after
// the previous one started, and records how late it started (Sample.LateNs).
func (s *Session) cheapLane() {
	defer s.lanes.Done()
	timer := time.NewTimer(0)
	defer timer.Stop()
	due := s.now()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-timer.C:
		}
		began := s.now()
		if err := s.tick(s.ctx, due); err != nil {
			s.mu.Lock()
			if s.endErr == nil {
				s.endErr = err
			}
			s.mu.Unlock()
			s.cancel()
			return
		}
		due = began + int64(s.cfg.Interval)
		timer.Reset(max(0, time.Duration(due-s.now())))
	}
}

// tick runs one cheap-lane round trip, due at host ns due (-1: unscheduled,
// as Stop's last). It returns an error only when the session must end.
func (s *Session) tick(ctx context.Context, due int64) error {
	s.tickMu.Lock()
	defer s.tickMu.Unlock()
	s.mu.Lock()
	plan := s.col.plan(due < 0)
	s.mu.Unlock()

	// send is read before the deadline starts, so a failed call's
	// DurationNs is never shorter than the deadline that ended it.
	send := s.now()
	tctx, cancel := context.WithTimeout(ctx, s.cfg.TickTimeout)
	out, err := s.dev.batch(tctx, plan.cmds)
	recv := s.now()
	cancel()
	if err == nil && len(out) != len(plan.cmds) {
		err = fmt.Errorf("batch of %d commands returned %d results", len(plan.cmds), len(out))
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastSend = send
	if err != nil {
		if ctx.Err() != nil && !errors.Is(tctx.Err(), context.DeadlineExceeded) {
			return nil // Stop cancelled the tick: not a device failure
		}
		s.failing++
		s.lastErr = err
		s.res.Gaps = append(s.res.Gaps, result.Gap{
			Lane: "cheap", HostNs: send, DurationNs: recv - send,
			Step: s.stepAtLocked(send), Error: err.Error(),
		})
		if len(out) > 0 {
			// Part of the batch came back: the device is reachable, and
			// the failed tick is a gap, not a sign it is lost.
			s.lastHeard = recv
		}
		if silent := time.Duration(recv - s.lastHeard); s.failing >= 2 && silent >= s.cfg.GiveUpAfter {
			return fmt.Errorf("perftest: %w: every tick failed for %v, with no answer for %v; last error: %v",
				ErrDeviceLost, time.Duration(recv-s.lastOK).Round(time.Millisecond), silent.Round(time.Millisecond), err)
		}
		return nil
	}
	s.failing = 0
	s.lastOK, s.lastHeard = recv, recv
	s.col.absorb(plan, out, due, send, recv)
	s.polledLocked()
	if s.cfg.OnTick != nil {
		s.cfg.OnTick(s.liveLocked())
	}
	return nil
}

func (s *Session) slowLane() {
	defer s.lanes.Done()
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-timer.C:
		case <-s.slowKick:
			if !timer.Stop() {
				select {
				case <-timer.C:
				default:
				}
			}
		}
		began := time.Now()
		s.slowTick(s.ctx)
		timer.Reset(max(0, s.cfg.SlowInterval-time.Since(began)))
	}
}

func (s *Session) slowTick(ctx context.Context) {
	s.mu.Lock()
	plan := s.col.samples.SlowPlan(len(s.col.pids) > 0)
	// A read that starts after a step began serves that step, whether the
	// step's kick or the timer started it.
	if len(plan.Cmds) == 0 {
		// Nothing to read yet (the app's processes not known): the steps
		// that asked still need a read.
		s.mu.Unlock()
		return
	}
	forSteps := s.kickFor
	s.kickFor = nil
	select {
	case <-s.slowKick:
	default:
	}
	s.mu.Unlock()
	// meminfo can take a second on a busy phone; it has its own deadline.
	send := s.now()
	tctx, cancel := context.WithTimeout(ctx, max(s.cfg.TickTimeout, 5*time.Second))
	out, err := s.dev.batch(tctx, plan.Cmds)
	recv := s.now()
	cancel()
	if err == nil && len(out) != len(plan.Cmds) {
		err = fmt.Errorf("batch of %d commands returned %d results", len(plan.Cmds), len(out))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		if ctx.Err() != nil {
			// Stop cut the read short: the steps it served still need one.
			s.kickFor = append(forSteps, s.kickFor...)
			return
		}
		s.res.Gaps = append(s.res.Gaps, result.Gap{
			Lane: "slow", HostNs: send, DurationNs: recv - send,
			Step: s.stepAtLocked(send), Error: err.Error(),
		})
		return
	}
	s.col.samples.AbsorbSlow(plan, out, send, recv, forSteps)
}

// Stop ends the session: it stops the collectors and polls once more
// (unless the device is gone), and again while frames of the last moments
// may still be drawing (at most Config.Settle); when none of those polls
// got through, it polls frames once more after its other reads of the
// phone. It closes an open step, summarises every step, writes the Result
// (over the one written as the last step ended) and returns it. Under a test, a
// session that ended early fails the test (Errorf) naming the error and
// the partial result's path. Calling Stop again returns the same Result.
func (s *Session) Stop() *result.Result {
	if s == nil {
		return &result.Result{Schema: result.Schema}
	}
	if s.t != nil {
		if h, ok := s.t.(helperT); ok {
			h.Helper()
		}
	}
	s.stopMu.Lock()
	defer s.stopMu.Unlock()
	if !s.stopDone {
		s.stopDone = true
		s.stop()
	}
	return s.final
}

func (s *Session) stop() {
	if s.t != nil {
		if h, ok := s.t.(helperT); ok {
			h.Helper()
		}
	}
	stopNs := s.now()
	s.mu.Lock()
	s.stopping = true
	s.mu.Unlock()
	s.cancel()
	s.lanes.Wait()
	s.mu.Lock()
	ended := s.endErr != nil
	s.mu.Unlock()
	if !ended {
		// A step that began after the slow lane's last read gets one now,
		// beside the last frame polls: it is the one read Stop may wait
		// for whatever the frames do.
		s.mu.Lock()
		pending := len(s.kickFor) > 0 && s.col.samples.SlowLaneNeeded()
		s.mu.Unlock()
		var slow sync.WaitGroup
		if pending {
			slow.Go(func() { s.slowTick(context.Background()) })
		}
		if err := s.settle(stopNs); err != nil {
			s.mu.Lock()
			s.endErr = err
			s.mu.Unlock()
		}
		if s.cfg.has(CollectFrames) {
			slow.Go(func() { s.col.readSkips(context.Background()) })
			slow.Go(func() { s.col.readCauses(context.Background()) })
		}
		slow.Wait()
	}
	s.restoreLooper()
	s.energy.Stop()
	if !ended && s.cfg.has(CollectFrames) {
		s.pollFramesAgain(stopNs)
	}

	// The trace ends after the last poll, so it holds every frame counted.
	s.col.stopTrace(context.Background())
	s.col.heap.Stop(context.Background(), &s.mu, s.res)
	// Crash logcat reads take the lock when they finish.
	s.col.aux.Wait()
	s.mu.Lock()
	s.stopped = true
	if s.cur != nil {
		s.cur.Unfinished = true
		s.endLocked()
	}
	r := s.res
	r.End = time.Now()
	if s.endErr != nil {
		r.Error = s.endErr.Error()
	}
	s.col.finish()
	for _, st := range r.Steps {
		st.CrashExpected = len(st.Crashes) > 0 && s.cfg.crashExpected(st.Name)
	}
	r.Bind()
	crashes := r.CrashVerdicts()
	r.RecordVerdicts(crashes...)
	stacks := s.col.causes.FoldedStacks(r.Steps)
	s.stopped = true
	s.final = r
	pending := s.pending
	s.pending = nil
	s.mu.Unlock()

	// Checks that waited for Stop judge the final Result now, so that the
	// Result written holds their verdicts; they report after the
	// session's own errors.
	var reports []func()
	for _, check := range pending {
		reports = append(reports, check(r))
	}
	r.Unsaved()

	// The writes of the Result as steps ended are done before the final
	// one replaces them.
	s.writers.Wait()
	s.fileMu.Lock()
	if s.ckErr != nil {
		r.Notes = append(r.Notes, fmt.Sprintf("result: the Result could not be written %v: a session killed then would have lost its steps", s.ckErr))
	}
	s.fileMu.Unlock()
	// The stacks go first, so the Result names their file; the Result's
	// own error comes first in what is reported.
	serr := s.cfg.writeStacks(r, stacks)
	werr := errors.Join(s.writeFinal(r), serr)
	var rerr error
	note := ""
	if !s.deferPublish {
		note, rerr = s.publish()
	}
	s.mu.Lock()
	s.writeErr = errors.Join(werr, rerr)
	s.mu.Unlock()
	if s.t != nil {
		if h, ok := s.t.(helperT); ok {
			h.Helper()
		}
		if r.Error != "" {
			s.t.Errorf("perftest: session ended early: %s (%s)", r.Error, partial(r))
		}
		for _, v := range crashes {
			s.t.Errorf("%s; perftest.ExpectCrash(%q) if the test expects it", v.Line, metrics.BaseStep(v.Step))
		}
		if werr != nil {
			s.t.Errorf("%v", werr)
		}
		if rerr != nil {
			s.t.Errorf("%v", rerr)
		}
		if l, ok := s.t.(interface{ Logf(string, ...any) }); ok && note != "" {
			l.Logf("%s", note)
		}
	}
	if b, ok := s.t.(benchT); ok {
		reportBench(b, r)
	}
	for _, report := range reports {
		report()
	}
}

// Publish makes the Result final: it writes it again when checks recorded
// verdicts since Stop wrote it, then runs the reporters (PERFGATE_REPORT,
// PERFGATE_HISTORY) on it, once. Under a test it runs by itself when the
// test ends; a program (NewSession) that checks budgets after Stop calls
// it when it is done, and without that call Stop publishes. It returns
// what could not be written.
func (s *Session) Publish() error {
	if s == nil {
		return nil
	}
	s.Stop()
	note, err := s.publish()
	if note != "" && s.t != nil {
		if l, ok := s.t.(interface{ Logf(string, ...any) }); ok {
			l.Logf("%s", note)
		}
	}
	return err
}

// publish rewrites the Result when it has unsaved verdicts and runs the
// reporters, the first time only; later calls rewrite the Result if needed.
func (s *Session) publish() (note string, err error) {
	s.publishMu.Lock()
	defer s.publishMu.Unlock()
	r := s.final
	if r == nil {
		return "", nil
	}
	if r.Unsaved() && r.Path != "" {
		if werr := s.cfg.rewriteResult(r); werr != nil {
			err = werr
		}
	}
	if s.published {
		return "", err
	}
	s.published = true
	note, rerr := runReporters(s.cfg.Reporters, r)
	return note, errors.Join(err, rerr)
}

// settle polls once, then again every refresh period while frames whose
// vsync came before host time stopNs may still be drawing (see
// collector.framesPending), at most Config.Settle after stopNs but twice
// at least while frames are pending: on a phone whose tick takes longer
// than Settle, the first poll may have dumped its frames before the
// stop's device time (which the clock map places within its round trip),
// and the second starts after the first came back. It returns an error
// only when the session must end.
func (s *Session) settle(stopNs int64) error {
	deadline := stopNs + int64(s.cfg.Settle)
	// The step's last CPU interval ends at this poll: one right after the
	// lanes' last tick would measure /proc/stat's 10 ms counters over a
	// few ms.
	s.mu.Lock()
	gap := time.Duration(s.now() - s.lastSend)
	s.mu.Unlock()
	if s.cfg.has(CollectCPU) && gap < minCPUInterval {
		time.Sleep(minCPUInterval - gap)
	}
	for polls := 1; ; polls++ {
		ctx, cancel := context.WithTimeout(context.Background(), s.cfg.TickTimeout)
		err := s.tick(ctx, -1)
		cancel()
		if err != nil {
			return err
		}
		s.mu.Lock()
		more := s.col.framesPending(stopNs)
		wait := time.Duration(s.col.frames.PeriodNs())
		s.mu.Unlock()
		if !more || polls >= 2 && s.now()+int64(wait) > deadline {
			return nil
		}
		time.Sleep(wait)
	}
}

// pollFramesAgain polls frames once more when none of Stop's polls got
// through (a phone frozen, or too busy to answer, as Stop began): Stop's
// reads since gave the phone time to answer again, and the frames the last
// step drew after the lanes' last poll are still in its buffer unless it
// wrapped meanwhile, which the poll tells (the step then says which of its
// frames were lost). Only frames are read: a CPU or memory read this late
// would stretch the last step's figures over the time the phone froze.
func (s *Session) pollFramesAgain(stopNs int64) {
	s.mu.Lock()
	if s.col.framesReadAfter(stopNs) {
		s.mu.Unlock()
		return
	}
	p := s.col.framesPlan()
	s.mu.Unlock()
	send := s.now()
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.TickTimeout)
	out, err := s.dev.batch(ctx, p.cmds)
	recv := s.now()
	cancel()
	if err == nil && len(out) != len(p.cmds) {
		err = fmt.Errorf("batch of %d commands returned %d results", len(p.cmds), len(out))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.res.Gaps = append(s.res.Gaps, result.Gap{Lane: "cheap", HostNs: send, DurationNs: recv - send,
			Step: s.stepAtLocked(send), Error: "frames polled again at Stop: " + err.Error()})
		return
	}
	s.col.absorbFramesPoll(p, out, send, recv)
}

// minCPUInterval is the shortest time between the lanes' last tick and
// Stop's: two clock ticks of /proc/stat at the usual 100 Hz.
const minCPUInterval = 20 * time.Millisecond

// liveLocked reports the running state for Config.OnTick.
func (s *Session) liveLocked() result.Live {
	l := result.Live{Elapsed: time.Duration(s.now()), Gaps: len(s.res.Gaps), Err: s.endErr}
	if s.cur != nil {
		l.Step = s.cur.Name
		l.Frames, l.FPS, l.Jank = s.col.liveFrames(s.cur)
	}
	l.CPUPct = s.col.samples.LiveCPU()
	if n := len(s.res.Memory); n > 0 {
		l.PSSKB = s.res.Memory[n-1].PSSKB
	}
	return l
}

// partial says where the partial Result of a session that ended early
// went, for its failure message.
func partial(r *result.Result) string {
	if r.Path == "" {
		return "the partial result was not written"
	}
	return "partial result in " + r.Path
}

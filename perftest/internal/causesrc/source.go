// Package causesrc finds out on the phone why an app's frames janked
// (package causes does the attributing): the Looper's slow-message lines
// of the app's main thread (the property package looper sets), the stacks
// sampled from it (package profiling), and the app's ANRs with their
// stack dumps, all read at Stop.
//
//	src := causesrc.New(causesrc.Config{Batch: batch, Package: "com.example.feed", On: true})
//	run := src.Setup(ctx, causesrc.Facts{API: 34, UID: 10234, RefreshHz: 60, PIDs: pids}, note)
//	// the session's ticks: src.StartRecorder(pid), src.PlanLease(add), src.AbsorbLease(…)
//	notes, samples, _ := src.Read(ctx, appPIDs)
//	notes = src.Restore()
//	src.Cleanup(ctx)
//	st.Causes = src.Summarise(st, frames, stepPIDs, notRunning)
package causesrc

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/causes"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/perftest/internal/devcmd"
	"github.com/perfgate/perfgate/perftest/internal/looper"
	"github.com/perfgate/perfgate/perftest/internal/profiling"
	"github.com/perfgate/perfgate/result"
)

// Config is what the source needs of the session's configuration.
type Config struct {
	Batch  devcmd.Batch
	Stream devcmd.Stream // nil: the device cannot stream
	// Package is the app.
	Package string
	// On says the session looks for causes at all (it collects frames,
	// and Config.Causes.Off is not set); the rest is Config.Causes.
	On                 bool
	LooperSlow         time.Duration
	NoLooper, NoStacks bool
	SampleHz           int
	// TickTimeout bounds a tick's round trip; the reads at Stop take at
	// least 10 s.
	TickTimeout time.Duration
}

// Facts are what the session's setup learnt of the phone and the app.
type Facts struct {
	API       int     // the device's API level, 0 unknown
	UID       int     // the app's uid
	RefreshHz float64 // the display's refresh rate
	PIDs      []int   // the app's processes running now
}

// Source finds out why frames janked. Its methods are safe for
// concurrent use; Setup runs before the session's lanes.
type Source struct {
	cfg    Config
	looper *looper.Property
	prof   *profiling.Profiler

	mu  sync.Mutex
	log causeLog
}

// causeLog is what the session's Stop-time reads gave for causes.
type causeLog struct {
	read bool
	// blocks are the app's main-thread Looper lines (dispatch), ends on the
	// device clock; logFrom is the device time of the oldest line the
	// system buffer still held, logWhy why there is no log.
	blocks  []causes.Block
	logFrom int64
	logWhy  string
	anrs    []causes.ANR
	samples []causes.Sample
}

// New is a source that sets and runs nothing before Setup.
func New(cfg Config) *Source {
	return &Source{
		cfg:    cfg,
		looper: looper.New(cfg.Batch, cfg.TickTimeout),
		prof:   profiling.New(cfg.Batch, cfg.Stream, cfg.Package, cfg.SampleHz),
	}
}

// On reports whether the session looks for causes at all.
func (s *Source) On() bool { return s.cfg.On }

// looperAPI is the first API level whose Looper reads the slow-message
// property (and logs "Slow delivery"); simpleperf's Java stacks start
// there too.
const looperAPI = 28

// looperSlowMs is the threshold the session sets: Config.LooperSlow,
// else one refresh period rounded down to whole ms, at least 1.
func (s *Source) looperSlowMs(refreshHz float64) int64 {
	if d := s.cfg.LooperSlow; d > 0 {
		return max(1, d.Milliseconds())
	}
	return max(1, int64(1000/refreshHz))
}

// Setup sets the app's Looper property and starts the profiler on the
// app's running processes; it runs at the end of the session's setup.
// What both need to know of the phone is read in one round trip. It
// returns what the Result says of the run (nil when the session looks
// for no causes).
func (s *Source) Setup(ctx context.Context, f Facts, note devcmd.Note) *result.CauseRun {
	if !s.cfg.On {
		return nil
	}
	run := &result.CauseRun{}
	looperOn, stacks := s.choose(f.API)
	var cmds []string
	if stacks {
		cmds = append(cmds, profiling.SetupCmds()...)
	}
	if looperOn {
		cmds = append(cmds, s.looper.Prepare(f.UID)...)
	}
	var out []adbx.Result
	var err error
	if len(cmds) > 0 {
		out, err = s.cfg.Batch(ctx, cmds)
	}
	if err == nil && len(out) != len(cmds) {
		err = fmt.Errorf("batch of %d commands returned %d results", len(cmds), len(out))
	}
	if looperOn {
		var read []adbx.Result
		if err == nil {
			read = out[len(out)-looper.Reads:]
		}
		s.looper.Set(ctx, read, err, s.looperSlowMs(f.RefreshHz), f.PIDs, note)
		if prop, ms, ok := s.looper.Setting(); ok {
			run.LooperProperty, run.LooperSlowMs = prop, ms
		}
	}
	if stacks {
		var res []adbx.Result
		if err == nil {
			res = out[:len(profiling.SetupCmds())]
		}
		run.StackSource = s.prof.Setup(ctx, res, err, note)
		for _, pid := range f.PIDs {
			s.prof.Start(pid)
		}
	}
	return run
}

// choose says whether the session sets the Looper property and samples
// stacks on a device of API level api, and records why not.
func (s *Source) choose(api int) (looperOn, stacks bool) {
	switch {
	case s.cfg.NoLooper:
		s.looper.Leave("blocks: not collected (Config.Causes.NoLooper)")
	case api > 0 && api < looperAPI:
		s.looper.Leave(fmt.Sprintf("blocks: Looper's slow-message log needs Android 9 (API %d); the device runs API %d", looperAPI, api))
	default:
		looperOn = true
	}
	switch {
	case s.cfg.NoStacks:
		s.prof.Leave("stacks: not collected (Config.Causes.NoStacks)")
	case api > 0 && api < looperAPI:
		s.prof.Leave(fmt.Sprintf("stacks: simpleperf samples Java code from Android 9 (API %d); the device runs API %d", looperAPI, api))
	default:
		stacks = true
	}
	return looperOn, stacks
}

// StartRecorder starts the profiler on the main thread of app process
// pid, once per process.
func (s *Source) StartRecorder(pid int) { s.prof.Start(pid) }

// PlanLease adds the renewal of the Looper property's mark to a tick once
// half of its lease is spent; it returns the command's index, -1 for none.
func (s *Source) PlanLease(add func(string) int) int { return s.looper.PlanLease(add) }

// AbsorbLease takes a tick's clock (uptimeNs, 0 when unread) and the
// outcome of its renewal: out[lease], run as cmds[lease] (lease < 0 when
// the tick renewed nothing).
func (s *Source) AbsorbLease(cmds []string, out []adbx.Result, lease int, uptimeNs int64, note devcmd.Note) {
	s.looper.AbsorbLease(cmds, out, lease, uptimeNs, note)
}

// Read stops the profiler and reads what the causes need, once the lanes
// stopped: the samples, the app's Looper lines and ANRs. pids gives every
// process the session saw the app run, once the log is read. It returns
// the notes to make and how many stacks were sampled; ok is false when
// the session looks for no causes.
func (s *Source) Read(ctx context.Context, pids func() []int) (notes []string, samples int, ok bool) {
	if !s.cfg.On {
		return nil, 0, false
	}
	s.prof.Stop(ctx)
	smp, notes := s.prof.Read(ctx)
	log := s.readCauseLog(ctx, pids)
	notes = append(notes, s.readANRStacks(ctx, log.anrs)...)
	if n := s.prof.FailedNote(); n != "" {
		notes = append(notes, n)
	}
	log.samples = smp
	log.read = true
	s.mu.Lock()
	s.log = log
	s.mu.Unlock()
	return notes, len(smp), true
}

// Restore puts the Looper property back as it was before the session; it
// returns the notes to make.
func (s *Source) Restore() []string { return s.looper.Restore() }

// Cleanup stops any recording Read did not read (a session that ended
// early), removing its file, within ctx.
func (s *Source) Cleanup(ctx context.Context) {
	s.mu.Lock()
	read := s.log.read
	s.mu.Unlock()
	s.prof.Cleanup(ctx, read)
}

// Summarise finds why the step's janky frames janked (see causes.Step);
// nil when the session looks for no causes. frames are the step's frames,
// pids the app's processes its ticks saw, and notRunning why the app
// counts as not running in it ("" when it ran).
func (s *Source) Summarise(st *result.Step, frames []frames.Frame, pids []int, notRunning string) *causes.Step {
	if !s.cfg.On {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return causes.Attribute(causes.Input{
		Start: st.DeviceStartNs, End: st.DeviceEndNs,
		Frames: frames, Summary: st.FrameStats,
		Blocks: s.log.blocks, Samples: s.log.samples, ANRs: s.log.anrs,
		NotMeasured: map[string]string{
			causes.SourceBlocks: s.blocksWhy(st, pids, notRunning),
			causes.SourceStacks: s.prof.Why(pids, s.log.read),
			causes.SourceANRs:   s.causeLogWhy(st, causes.SourceANRs),
		},
	})
}

// blocksWhy says why a step has no blocks, "" when it has them.
func (s *Source) blocksWhy(st *result.Step, pids []int, notRunning string) string {
	if why := s.looper.Why(pids); why != "" {
		return why
	}
	if why := s.causeLogWhy(st, causes.SourceBlocks); why != "" {
		return why
	}
	if notRunning != "" {
		return "blocks: " + notRunning
	}
	return ""
}

// causeLogWhy says why the log read at Stop tells source src nothing of
// the step, "" when it tells all.
func (s *Source) causeLogWhy(st *result.Step, src string) string {
	switch {
	case !s.log.read:
		return src + ": the log was not read (the session ended before Stop)"
	case s.log.logWhy != "":
		return src + ": " + s.log.logWhy
	case s.log.logFrom > st.DeviceStartNs:
		return fmt.Sprintf("%s: the system log no longer reaches back to the step (its oldest line is %v after the step began)", src, time.Duration(s.log.logFrom-st.DeviceStartNs).Round(time.Millisecond))
	}
	return ""
}

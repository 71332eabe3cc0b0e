package perftest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/causes"
	"github.com/perfgate/perfgate/perftest/internal/causesrc"
	"github.com/perfgate/perfgate/result"
)

// CauseOptions control how a session finds out why frames janked (README
// "Why it janked"). The zero value finds what the device allows: frame
// phases from framestats, main-thread blocks from Looper's slow-message
// log, sampled main-thread stacks from simpleperf, ANRs from the log.
type CauseOptions struct {
	// Off finds no cause: the session sets no property and runs no
	// profiler.
	Off bool
	// LooperSlow is the threshold of Looper's slow-message log, which the
	// session turns on for the app's main thread by setting the system
	// property log.looper.<uid>.main.slow (and restores at Stop). Default:
	// one refresh period rounded down to whole milliseconds, under one
	// frame (16 ms at 60 Hz, 8 ms at 120 Hz).
	LooperSlow time.Duration
	// NoLooper leaves the property alone: no blocks are measured.
	NoLooper bool
	// NoStacks runs no profiler: no stacks are sampled.
	NoStacks bool
	// SampleHz is how often the profiler samples the main thread. Default
	// 1000 (every millisecond).
	SampleHz int
}

// WithCauses sets how the session finds out why frames janked.
func WithCauses(o CauseOptions) Option { return func(c *Config) { c.Causes = o } }

// newCauses is the session's source of causes (package causesrc), which
// reaches the phone through s.dev.
func newCauses(s *Session) *causesrc.Source {
	o := s.cfg.Causes
	cfg := causesrc.Config{
		Batch: func(ctx context.Context, cmds []string) ([]adbx.Result, error) {
			return s.dev.batch(ctx, cmds)
		},
		Package:     s.cfg.Package,
		On:          !o.Off && s.cfg.has(CollectFrames),
		LooperSlow:  o.LooperSlow,
		NoLooper:    o.NoLooper,
		NoStacks:    o.NoStacks,
		SampleHz:    o.SampleHz,
		TickTimeout: s.cfg.TickTimeout,
	}
	if st, ok := s.dev.(streamer); ok {
		cfg.Stream = st.stream
	}
	return causesrc.New(cfg)
}

// setupCauses sets the app's Looper property and starts the profiler on
// the app's running processes; it runs at the end of setup.
func (c *collector) setupCauses(ctx context.Context) {
	facts := causesrc.Facts{API: c.s.res.Device.API, UID: c.uid, RefreshHz: c.refreshHz, PIDs: c.pids}
	if run := c.causes.Setup(ctx, facts, c.note); run != nil {
		c.s.res.Causes = run
	}
}

// readCauses stops the profiler and reads what the causes need, once the
// lanes stopped: the samples, the app's Looper lines and ANRs.
func (c *collector) readCauses(ctx context.Context) {
	notes, samples, ok := c.causes.Read(ctx, func() []int {
		c.s.mu.Lock()
		defer c.s.mu.Unlock()
		return c.appPIDsLocked()
	})
	if !ok {
		return
	}
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	for _, n := range notes {
		c.note("%s", n)
	}
	if r := c.s.res.Causes; r != nil {
		r.Samples = samples
	}
}

// summariseCauses finds why the step's janky frames janked (see
// causes.Step), with the session's frames: a block that straddles the
// step's bounds goes with the frame it overlaps most, in either step.
func (c *collector) summariseCauses(st *result.Step) *causes.Step {
	if !c.causes.On() {
		return nil
	}
	notRunning := ""
	if !c.samples.RanDuring(st.HostStartNs, st.HostEndNs) {
		notRunning = c.samples.NotRunningWhy(st.HostStartNs, st.HostEndNs)
	}
	return c.causes.Summarise(st, c.s.res.Frames, c.stepPIDs(st), notRunning)
}

// stepPIDs are the app's processes the ticks of the step saw.
func (c *collector) stepPIDs(st *result.Step) []int {
	var out []int
	ss := c.s.res.Samples
	for i := c.samples.FirstSample(st.HostStartNs); i < len(ss); i++ {
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
	if notes := s.col.causes.Restore(); len(notes) > 0 {
		s.mu.Lock()
		for _, n := range notes {
			s.col.note("%s", n)
		}
		s.mu.Unlock()
	}
	ctx, cancel := context.WithTimeout(context.Background(), max(s.cfg.TickTimeout, 5*time.Second))
	defer cancel()
	s.col.causes.Cleanup(ctx)
}

// writeStacks writes the folded stacks beside the Result, as
// <result>.folded: the Result's own stem with .folded for .json (see
// WriteInDir), and names the file in r.Causes. Nothing is written when
// the Result is not ("-") or there are no stacks.
func (c Config) writeStacks(r *result.Result, data []byte) error {
	if len(data) == 0 || r.Causes == nil || c.ResultFile == "-" {
		return nil
	}
	fail := func(err error) error { return fmt.Errorf("perftest: write folded stacks: %w", err) }
	dir := c.resultsDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(err)
	}
	tmp, err := os.CreateTemp(dir, ".stacks.*")
	if err != nil {
		return fail(err)
	}
	_, werr := tmp.Write(data)
	if err := errors.Join(werr, tmp.Close(), os.Chmod(tmp.Name(), 0o644)); err != nil {
		os.Remove(tmp.Name())
		return fail(err)
	}
	p, err := c.fileStem().Claim(dir, result.Base(c.Name), ".folded", tmp.Name())
	if err != nil {
		os.Remove(tmp.Name())
		return fail(err)
	}
	r.Causes.StacksFile = filepath.Base(p)
	return nil
}

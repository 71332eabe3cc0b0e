package perftest

import (
	"time"

	"github.com/perfgate/perfgate/causes"
	"github.com/perfgate/perfgate/frames"
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

// summariseCauses finds why the step's janky frames janked (see
// causes.Step). frames are the step's frames.
func (c *collector) summariseCauses(st *result.Step, frames []frames.Frame) *causes.Step {
	if !c.causesOn() {
		return nil
	}
	return causes.Attribute(causes.Input{
		Start: st.DeviceStartNs, End: st.DeviceEndNs,
		Frames: frames, Summary: st.FrameStats,
		Blocks: c.causes.blocks, Samples: c.causes.samples, ANRs: c.causes.anrs,
		NotMeasured: map[string]string{causes.SourceBlocks: c.blocksWhy(st), causes.SourceStacks: c.stacksWhy(st), causes.SourceANRs: c.anrsWhy(st)},
	})
}

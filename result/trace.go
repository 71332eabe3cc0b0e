package result

import (
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/trace"
)

// TraceInfo is the session's Perfetto trace (Result.Trace): where it is,
// what it holds, and why there is none when it could not be recorded.
type TraceInfo struct {
	// File is the trace in the results folder, as the session wrote it;
	// empty when there is none (see NotRecorded).
	File      string `json:"file,omitempty"`
	SizeBytes int64  `json:"size_bytes,omitempty"`
	// DeviceFile is where perfetto wrote it on the device. The session
	// removes it once its copy is whole on the host (as many bytes as the
	// device's stat says, synced and renamed into place); when the pull
	// fails or falls short it stays there, and NotRecorded says so and
	// why, for an adb pull of one's own.
	DeviceFile string `json:"device_file,omitempty"`
	// Config is the text config perfetto ran with.
	Config string `json:"config,omitempty"`
	// Sources are what the trace holds ("frametimeline", "sched",
	// "atrace", …; trace.Analysis.Sources).
	Sources []string `json:"sources,omitempty"`
	// StartNs and EndNs are the span the trace covers on the steps' device
	// clock (Result.Clock).
	StartNs int64 `json:"start_ns,omitempty"`
	EndNs   int64 `json:"end_ns,omitempty"`
	// NotRecorded says why there is no trace: no perfetto on the device,
	// Android older than 10, perfetto refused the config, the pull failed
	// (the command, its error, its deadline, and where the trace stays on
	// the phone).
	NotRecorded string `json:"not_recorded,omitempty"`
	// NotMeasured names each part of the analysis the trace cannot give
	// ("frametimeline", "thread_states", "slices") and why.
	NotMeasured map[string]string `json:"not_measured,omitempty"`
	// Rejected counts what the trace held that cannot be data, by reason.
	Rejected map[string]int `json:"rejected,omitempty"`
	// Notes are what else a reader should know: a data source the device
	// lacks, data lost while tracing, what earlier sessions left on the
	// phone and what became of it ("leftover: …").
	Notes []string `json:"notes,omitempty"`
	// Open says how to look at the trace.
	Open string `json:"open,omitempty"`
}

// TraceStep is a step's part of the session's Perfetto trace: Android's
// own FrameTimeline classification of the app's frames whose expected start
// (the vsync they were due for) lies in the step (README "FrameTimeline
// jank").
type TraceStep struct {
	// Frames counts the app's FrameTimeline frames; Janky those with any
	// jank; AppJank those counted as the app's (App Deadline Missed, App
	// Resynced Jitter): the catalogue's jank_frametimeline.
	Frames  int `json:"frames"`
	Janky   int `json:"janky"`
	AppJank int `json:"app_jank"`
	// ByType counts frames per jank type; a frame with two counts twice.
	ByType map[string]int `json:"by_type,omitempty"`
	// JankyFrames are the janky frames, each with its main thread's states
	// and longest slices.
	JankyFrames []TraceFrame `json:"janky_frames,omitempty"`
	// Joined counts the frames matched with a frame perfgate polled from
	// gfxinfo for the same vsync.
	Joined int `json:"joined"`
	// NotMeasured names the parts of the analysis the trace cannot give,
	// and why (see TraceInfo.NotMeasured).
	NotMeasured map[string]string `json:"not_measured,omitempty"`
	// FrameTiming is Macrobenchmark's FrameTimingMetric over the step's
	// frames (the catalogue's frame_overrun_* and frame_cpu_*).
	FrameTiming *FrameTiming `json:"frame_timing,omitempty"`
	// Partial says when the trace covers only part of the step (it ended
	// before the step, at perftest.TraceConfig.MaxDuration); its figures then count
	// only that part and are not the step's. The session as a whole
	// (Result.Whole) counts from the trace's start, which comes before the
	// session clears the frame histories and starts counting frames.
	Partial string `json:"partial,omitempty"`
}

// TraceFrame is a janky FrameTimeline frame of a step (times of the
// embedded frame are on the trace's clock).
type TraceFrame struct {
	trace.JankyFrame
	// AtS is when the frame was due (its expected start), in seconds
	// since the step began.
	AtS float64 `json:"at_s"`
	// DeviceStartNs and DeviceEndNs are the frame's actual span on the
	// steps' device clock (Result.Clock). What else the session saw on
	// that clock joins a frame by overlapping this span, as the main-thread
	// blocks and sampled stacks of the causes work will.
	DeviceStartNs int64 `json:"device_start_ns"`
	DeviceEndNs   int64 `json:"device_end_ns"`
	// Polled is the frame perfgate polled from gfxinfo for the same vsync
	// (IntendedVsync within half a refresh period of the expected start),
	// when there is one.
	Polled *frames.Frame `json:"polled,omitempty"`
}

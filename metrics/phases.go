package metrics

import (
	"encoding/json"
	"math"
	"strconv"
)

// FramePhase names one stage a frame goes through, from the vsync it was
// meant for to the end of its RenderThread work, as the framestats stage
// columns (HandleInputStart … SwapBuffers) divide it.
type FramePhase string

// The phases of a frame, in the order a frame goes through them. Each runs
// from its stage column to the next one's; together they make the frame's
// duration (FrameCompleted − IntendedVsync).
const (
	// PhaseWait is IntendedVsync → HandleInputStart: the frame started late,
	// mostly because the main thread was busy with other messages.
	PhaseWait FramePhase = "wait"
	// PhaseInput is HandleInputStart → AnimationStart: input events.
	PhaseInput FramePhase = "input"
	// PhaseAnimation is AnimationStart → PerformTraversalsStart: animators
	// and Choreographer animation callbacks.
	PhaseAnimation FramePhase = "animation"
	// PhaseLayout is PerformTraversalsStart → DrawStart: measure, layout
	// and the rest of the view traversal (RecyclerView binds here).
	PhaseLayout FramePhase = "layout"
	// PhaseDraw is DrawStart → SyncQueued: the main thread records the
	// frame's display lists (onDraw).
	PhaseDraw FramePhase = "draw"
	// PhaseSync is SyncQueued → IssueDrawCommandsStart: waiting for the
	// RenderThread, syncing the display lists, uploading bitmaps.
	PhaseSync FramePhase = "sync"
	// PhaseCommands is IssueDrawCommandsStart → SwapBuffers: the
	// RenderThread issues the draw commands to the GPU.
	PhaseCommands FramePhase = "commands"
	// PhaseSwap is SwapBuffers → FrameCompleted: swapping the buffer,
	// waiting for a free one and for the frame to be queued for display.
	PhaseSwap FramePhase = "swap"
)

// FramePhaseOrder lists the phases in the order a frame goes through them.
var FramePhaseOrder = [...]FramePhase{PhaseWait, PhaseInput, PhaseAnimation, PhaseLayout, PhaseDraw, PhaseSync, PhaseCommands, PhaseSwap}

// FramePhaseDoc says what each phase is, in the words a report shows.
var FramePhaseDoc = map[FramePhase]string{
	PhaseWait:      "waiting before the frame started (main thread busy before vsync)",
	PhaseInput:     "input handling",
	PhaseAnimation: "animation",
	PhaseLayout:    "measure/layout/traversal",
	PhaseDraw:      "draw (recording display lists)",
	PhaseSync:      "sync/upload",
	PhaseCommands:  "command submission/GPU",
	PhaseSwap:      "swap/present wait",
}

// FramePhases is a frame's time in each phase, in ns, indexed as
// FramePhaseOrder; the phases add up to the frame's duration. In JSON it is
// an object of milliseconds by phase name.
type FramePhases [len(FramePhaseOrder)]int64

// Of returns the time spent in phase p (0 for a name that is no phase).
func (fp FramePhases) Of(p FramePhase) int64 {
	for i, q := range FramePhaseOrder {
		if q == p {
			return fp[i]
		}
	}
	return 0
}

// Total is the sum of the phases: the frame's duration.
func (fp FramePhases) Total() int64 {
	var t int64
	for _, v := range fp {
		t += v
	}
	return t
}

// Dominant is the phase the frame spent longest in; the earlier one on a
// tie.
func (fp FramePhases) Dominant() FramePhase {
	best := 0
	for i, v := range fp {
		if v > fp[best] {
			best = i
		}
	}
	return FramePhaseOrder[best]
}

// MarshalJSON writes {"wait": 1.25, "input": 0.01, …} in milliseconds.
func (fp FramePhases) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, p := range FramePhaseOrder {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, string(p))
		b = append(b, ':')
		b = strconv.AppendFloat(b, math.Round(float64(fp[i])/1e3)/1e3, 'f', -1, 64)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads what MarshalJSON writes; unknown phases are ignored.
func (fp *FramePhases) UnmarshalJSON(b []byte) error {
	var m map[string]float64
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*fp = FramePhases{}
	for i, p := range FramePhaseOrder {
		fp[i] = int64(math.Round(m[string(p)] * 1e6))
	}
	return nil
}

// FramePhasesOf divides a gfxinfo frame into its phases (FramePhase) by its
// stage columns. ok is false when a stage column is missing (0, as for a
// header without it) or the stages are out of order (a row the ring slot
// half overwrote, a sentinel): a number that cannot be real is not data.
func FramePhasesOf(f GfxInfoFrame) (FramePhases, bool) {
	stamps := [...]int64{f.IntendedVsync, f.HandleInputStart, f.AnimationStart, f.PerformTraversalsStart,
		f.DrawStart, f.SyncQueued, f.IssueDrawCommandsStart, f.SwapBuffers, f.FrameCompleted}
	var fp FramePhases
	for i := 1; i < len(stamps); i++ {
		a, b := stamps[i-1], stamps[i]
		if a <= 0 || b <= 0 || a == frameInt64Max || b == frameInt64Max || b < a {
			return FramePhases{}, false
		}
		fp[i-1] = b - a
	}
	return fp, true
}

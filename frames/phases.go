package frames

import (
	"encoding/json"
	"github.com/perfgate/perfgate/android/gfxinfo"
	"math"
	"strconv"
)

// Phase names one stage a frame goes through, from the vsync it was
// meant for to the end of its RenderThread work, as the framestats stage
// columns (HandleInputStart … SwapBuffers) divide it.
type Phase string

// The phases of a frame, in the order a frame goes through them. Each runs
// from its stage column to the next one's; together they make the frame's
// duration (FrameCompleted − IntendedVsync).
const (
	// PhaseWait is IntendedVsync → HandleInputStart: the frame started late,
	// mostly because the main thread was busy with other messages.
	PhaseWait Phase = "wait"
	// PhaseInput is HandleInputStart → AnimationStart: input events.
	PhaseInput Phase = "input"
	// PhaseAnimation is AnimationStart → PerformTraversalsStart: animators
	// and Choreographer animation callbacks.
	PhaseAnimation Phase = "animation"
	// PhaseLayout is PerformTraversalsStart → DrawStart: measure, layout
	// and the rest of the view traversal (RecyclerView binds here).
	PhaseLayout Phase = "layout"
	// PhaseDraw is DrawStart → SyncQueued: the main thread records the
	// frame's display lists (onDraw).
	PhaseDraw Phase = "draw"
	// PhaseSync is SyncQueued → IssueDrawCommandsStart: waiting for the
	// RenderThread, syncing the display lists, uploading bitmaps.
	PhaseSync Phase = "sync"
	// PhaseCommands is IssueDrawCommandsStart → SwapBuffers: the
	// RenderThread issues the draw commands to the GPU.
	PhaseCommands Phase = "commands"
	// PhaseSwap is SwapBuffers → FrameCompleted: swapping the buffer,
	// waiting for a free one and for the frame to be queued for display.
	PhaseSwap Phase = "swap"
)

// PhaseOrder lists the phases in the order a frame goes through them.
var PhaseOrder = [...]Phase{PhaseWait, PhaseInput, PhaseAnimation, PhaseLayout, PhaseDraw, PhaseSync, PhaseCommands, PhaseSwap}

// PhaseDoc says what each phase is, in the words a report shows.
var PhaseDoc = map[Phase]string{
	PhaseWait:      "waiting before the frame started (main thread busy before vsync)",
	PhaseInput:     "input handling",
	PhaseAnimation: "animation",
	PhaseLayout:    "measure/layout/traversal",
	PhaseDraw:      "draw (recording display lists)",
	PhaseSync:      "sync/upload",
	PhaseCommands:  "command submission/GPU",
	PhaseSwap:      "swap/present wait",
}

// Phases is a frame's time in each phase, in ns, indexed as
// PhaseOrder; the phases add up to the frame's duration. In JSON it is
// an object of milliseconds by phase name.
type Phases [len(PhaseOrder)]int64

// Of returns the time spent in phase p (0 for a name that is no phase).
func (fp Phases) Of(p Phase) int64 {
	for i, q := range PhaseOrder {
		if q == p {
			return fp[i]
		}
	}
	return 0
}

// Total is the sum of the phases: the frame's duration.
func (fp Phases) Total() int64 {
	var t int64
	for _, v := range fp {
		t += v
	}
	return t
}

// Dominant is the phase the frame spent longest in; the earlier one on a
// tie.
func (fp Phases) Dominant() Phase {
	best := 0
	for i, v := range fp {
		if v > fp[best] {
			best = i
		}
	}
	return PhaseOrder[best]
}

// MarshalJSON writes {"wait": 1.25, "input": 0.01, …} in milliseconds.
func (fp Phases) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, p := range PhaseOrder {
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
func (fp *Phases) UnmarshalJSON(b []byte) error {
	var m map[string]float64
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*fp = Phases{}
	for i, p := range PhaseOrder {
		fp[i] = int64(math.Round(m[string(p)] * 1e6))
	}
	return nil
}

// PhasesOf divides a gfxinfo frame into its phases (Phase) by its
// stage columns. ok is false when a stage column is missing (0, as for a
// header without it) or the stages are out of order (a row the ring slot
// half overwrote, a sentinel): a number that cannot be real is not data.
func PhasesOf(f gfxinfo.FrameStats) (Phases, bool) {
	stamps := [...]int64{f.IntendedVsync, f.HandleInputStart, f.AnimationStart, f.PerformTraversalsStart,
		f.DrawStart, f.SyncQueued, f.IssueDrawCommandsStart, f.SwapBuffers, f.FrameCompleted}
	var fp Phases
	for i := 1; i < len(stamps); i++ {
		a, b := stamps[i-1], stamps[i]
		if a <= 0 || b <= 0 || a == frameInt64Max || b == frameInt64Max || b < a {
			return Phases{}, false
		}
		fp[i-1] = b - a
	}
	return fp, true
}

package causes

import (
	"cmp"
	"fmt"
	"slices"
	"sort"

	"github.com/perfgate/perfgate/frames"
)

// How a definition sees a frame's lateness: kindFrame (deadline missed)
// by the frame's own time on the main thread, kindInterval (PerfDog,
// Chromium) by the time since the frame before.
const (
	kindFrame = iota
	kindInterval
	kinds
)

// window is the time one frame (at t) had, of one kind: for kindFrame a
// gfxinfo frame's IntendedVsync to the end of its sync with the
// RenderThread (IssueDrawCommandsStart; FrameCompleted when the stages
// do not divide it), the main thread's part of the frame; for
// kindInterval, and for SurfaceFlinger frames, the frame time before it to
// its own.
type window struct{ lo, hi, t int64 }

// windows are the frames' windows of each kind, by lo, and the longest
// window of each kind; rt are the times of the frames that spent longest
// in a RenderThread phase.
type windows struct {
	w      [kinds][]window
	maxLen [kinds]int64
	rt     map[int64]bool
}

// frameWindows makes the windows of the frames of window win.
func frameWindows(fs []frames.Frame, win string) *windows {
	var own []*frames.Frame
	for i := range fs {
		if fs[i].Window == win {
			own = append(own, &fs[i])
		}
	}
	slices.SortStableFunc(own, func(x, y *frames.Frame) int { return cmp.Compare(x.Time(), y.Time()) })
	ws := &windows{rt: map[int64]bool{}}
	add := func(k int, w window) {
		if w.hi > w.lo {
			ws.w[k] = append(ws.w[k], w)
			ws.maxLen[k] = max(ws.maxLen[k], w.hi-w.lo)
		}
	}
	for i, f := range own {
		t := f.Time()
		var since window
		if i > 0 {
			since = window{own[i-1].Time(), t, t}
			add(kindInterval, since)
		}
		switch {
		case f.Source != frames.SourceGfxInfo:
			add(kindFrame, since)
		case f.IssueDrawCommandsStart > t && isDivided(f):
			add(kindFrame, window{t, f.IssueDrawCommandsStart, t})
			ws.rt[t] = onRenderThread(f)
		default:
			add(kindFrame, window{t, f.FrameCompleted, t})
		}
	}
	for k := range ws.w {
		slices.SortStableFunc(ws.w[k], func(x, y window) int { return cmp.Compare(x.lo, y.lo) })
	}
	return ws
}

func isDivided(f *frames.Frame) bool { _, ok := frames.PhasesOf(f.FrameStats); return ok }

// onRenderThread tells that f spent longest in a RenderThread phase
// (sync, commands, swap): a main-thread message did not make it late,
// even its own, which waits for the sync.
func onRenderThread(f *frames.Frame) bool {
	p, ok := frames.PhasesOf(f.FrameStats)
	switch d := p.Dominant(); {
	case !ok:
		return false
	case d == frames.PhaseSync, d == frames.PhaseCommands, d == frames.PhaseSwap:
		return true
	}
	return false
}

// primary is the kind a janky frame counted by janks is explained under:
// its own time when deadline missed counted it, else the time since the
// frame before.
func primary(janks []string) int {
	if slices.Contains(janks, frames.JankDefinitionDeadlineMissed) {
		return kindFrame
	}
	return kindInterval
}

// most is the window of kind k that [lo, hi) overlaps most (the earliest
// on a tie), and by how much; ok false when it overlaps none.
func (ws *windows) most(k int, lo, hi int64) (w window, over int64, ok bool) {
	list := ws.w[k]
	j := sort.Search(len(list), func(i int) bool { return list[i].lo >= hi })
	for i := j - 1; i >= 0 && list[i].lo > lo-ws.maxLen[k]; i-- {
		if o := min(hi, list[i].hi) - max(lo, list[i].lo); o > 0 && o >= over {
			w, over, ok = list[i], o, true
		}
	}
	return w, over, ok
}

// of is the window of kind k of the frame at t, false for none.
func (ws *windows) of(k int, t int64) (window, bool) {
	list := ws.w[k]
	for i := sort.Search(len(list), func(i int) bool { return list[i].lo >= t-ws.maxLen[k] }); i < len(list) && list[i].lo <= t; i++ {
		if list[i].t == t {
			return list[i], true
		}
	}
	return window{}, false
}

// tie is one block tied to a janky frame of the step, with the overlap.
type tie struct {
	block int // index in Input.Blocks
	over  int64
}

// tieBlocks ties each block to the frame it overlaps most, under each
// kind, where that frame is in the step, janky, explained under that kind
// (primary), unless the block ran mostly in a frame late on the
// RenderThread: ties[t]
// are the blocks tied to the janky frame at t. keep are
// the blocks the step shows, in time order: those tied to its janky
// frames, and those tied to none whose frame (the one they overlap most,
// else their start) is in the step.
func (a *attribution) tieBlocks() (ties map[int64][]tie, keep []int) {
	ties = map[int64][]tie{}
	if a.out.NotMeasured[SourceBlocks] != "" {
		return ties, nil
	}
	for i, b := range a.in.Blocks {
		tied, rt := false, false
		home := b.StartNs
		for k := range kinds {
			w, over, ok := a.win.most(k, b.StartNs, b.EndNs)
			if !ok || rt {
				continue
			}
			if k == kindFrame {
				// A frame late on the RenderThread: the message ran in it
				// (its own waits for the sync), and is why no frame janked.
				home, rt = w.t, a.win.rt[w.t]
				if rt {
					continue
				}
			}
			if j := a.janks[w.t]; len(j) > 0 && a.inStep(w.t) && primary(j) == k {
				ties[w.t] = append(ties[w.t], tie{i, over})
				tied = true
			}
		}
		if tied || a.inStep(home) {
			keep = append(keep, i)
		}
	}
	slices.SortStableFunc(keep, func(x, y int) int { return cmp.Compare(a.in.Blocks[x].StartNs, a.in.Blocks[y].StartNs) })
	return ties, keep
}

// frameSpan is the time a janky frame at t had under the kind it is
// explained under (primary); lo = hi = t when the frames do not tell.
func (a *attribution) frameSpan(t int64, janks []string) (lo, hi int64) {
	if w, ok := a.win.of(primary(janks), t); ok {
		return w.lo, w.hi
	}
	return t, t
}

// unexplained says why no block is tied to the janky frame fc, which
// spans [lo, hi).
func (a *attribution) unexplained(fc *Frame, lo, hi int64) string {
	if why := a.out.NotMeasured[SourceBlocks]; why != "" {
		return "blocks not measured (" + why + ")"
	}
	k := primary(fc.Janks)
	if k == kindFrame && a.win.rt[fc.TimeNs] {
		return fmt.Sprintf("its lateness was RenderThread work (%s %.1f ms), not a main-thread message", fc.Phase, float64(fc.Phases.Of(fc.Phase))/1e6)
	}
	if w, ok := a.win.of(k, fc.TimeNs); ok && k == kindInterval && a.win.rt[w.lo] {
		return fmt.Sprintf("the frame before it, at %.3f s, was late on the RenderThread", a.at(w.lo))
	}
	for _, b := range a.in.Blocks {
		if b.StartNs < hi && b.EndNs > lo {
			w, _, _ := a.win.most(k, b.StartNs, b.EndNs)
			return fmt.Sprintf("the slow message overlapping it (%d ms in %s) ran mostly in the frame at %.3f s", b.Ms, b.Where(), a.at(w.t))
		}
	}
	if k == kindInterval {
		return "no main-thread message over the Looper threshold overlapped the time since the frame before"
	}
	return "no main-thread message over the Looper threshold overlapped it"
}

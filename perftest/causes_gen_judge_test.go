package perftest_test

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/causes"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
)

// genTally counts how a session attributed the janky frames of random
// cause workloads, judged against the phone's truth.
type genTally struct {
	Seed   int64
	API    int
	Hz     float64
	Seeds  int
	Pairs  int // janky frames judged, once per definition that counted each
	Right  int // tied to the message that made the frame late
	Reason int // no block, and the frame says why
	// Passed are the Reason frames whose true message Looper logged
	// inside the step: a block could have been tied.
	Passed  int
	Either  int // definitions that blame different messages; tied to one of them
	Wrong   int // tied to a message that did not make it late
	Silent  int // no block and no reason
	Missed  int // janky by a definition (the summary's, or the truth's deadline) and not among the step's frames
	ANRs    int
	ANRWant int // with the truth's own stack
	// ANRWrong have another's stack, ANRNoStack none, ANRMissed are
	// ANRs of the truth no step has.
	ANRWrong, ANRNoStack, ANRMissed int
	LongSteps, LongNoStacks         int
	// Kinds names one example of each kind of failure ("seed 12: …"),
	// KindCount how many there were; Lines are this seed's failures.
	Kinds     map[string]string
	KindCount map[string]int
	Lines     []string
}

func (g *genTally) failures() int {
	return g.Wrong + g.Silent + g.Missed + g.ANRWrong + g.ANRNoStack + g.ANRMissed + g.LongNoStacks
}

// fail counts one failure of kind, with the line that shows it.
func (g *genTally) fail(kind, line string) {
	if g.Kinds == nil {
		g.Kinds, g.KindCount = map[string]string{}, map[string]int{}
	}
	if _, ok := g.Kinds[kind]; !ok {
		g.Kinds[kind] = fmt.Sprintf("seed %d (API %d, %g Hz): %s", g.Seed, g.API, g.Hz, line)
	}
	g.KindCount[kind]++
	if len(g.Lines) < 40 {
		g.Lines = append(g.Lines, kind+": "+line)
	}
}

func (g *genTally) add(o genTally) {
	g.Seeds += max(o.Seeds, 1)
	g.Pairs += o.Pairs
	g.Right += o.Right
	g.Reason += o.Reason
	g.Passed += o.Passed
	g.Either += o.Either
	g.Wrong += o.Wrong
	g.Silent += o.Silent
	g.Missed += o.Missed
	g.ANRs += o.ANRs
	g.ANRWant += o.ANRWant
	g.ANRWrong += o.ANRWrong
	g.ANRNoStack += o.ANRNoStack
	g.ANRMissed += o.ANRMissed
	g.LongSteps += o.LongSteps
	g.LongNoStacks += o.LongNoStacks
	for k, v := range o.Kinds {
		if g.Kinds == nil {
			g.Kinds, g.KindCount = map[string]string{}, map[string]int{}
		}
		if _, ok := g.Kinds[k]; !ok {
			g.Kinds[k] = v
		}
		g.KindCount[k] += o.KindCount[k]
	}
}

func (g genTally) String() string {
	return fmt.Sprintf("%d janky frame×definition: %d right with a block, %d right with a reason (%d of them with their message logged in the step), %d tied to one of two true causes, %d wrong, %d silent, %d missed; "+
		"%d ANRs: %d with their own stack, %d another's, %d none, %d missed; %d steps ≥ 60 s, %d without stacks",
		g.Pairs, g.Right, g.Reason, g.Passed, g.Either, g.Wrong, g.Silent, g.Missed, g.ANRs, g.ANRWant, g.ANRWrong, g.ANRNoStack, g.ANRMissed, g.LongSteps, g.LongNoStacks)
}

// genTruth is the phone's truth, indexed for judging.
type genTruth struct {
	wl     *simdevice.Workload
	frames []simdevice.TruthFrame // by IntendedVsync
	byTime map[int64]int
	blocks []simdevice.TruthBlock
}

// cause is the workload's cause named name, nil for none.
func (tr *genTruth) cause(name string) *simdevice.Cause {
	for i := range tr.wl.Causes {
		if tr.wl.Causes[i].Name == name {
			return &tr.wl.Causes[i]
		}
	}
	return nil
}

// culprit is the frame whose cause made frame f janky under definition
// def: f itself when it missed its deadline; for the definitions that
// judge the interval before a frame (PerfDog, Chromium), the frame before
// it, whose length is that interval. ok is false when the truth has none.
func (tr *genTruth) culprit(f simdevice.TruthFrame, def string) (simdevice.TruthFrame, bool) {
	if def == frames.JankDefinitionDeadlineMissed {
		return f, true
	}
	for i := tr.byTime[f.IntendedVsync] - 1; i >= 0; i-- {
		if tr.frames[i].Pid == f.Pid {
			return tr.frames[i], true
		}
	}
	return simdevice.TruthFrame{}, false
}

// trueBlock is the truth's message that ran the culprit's cause, and
// whether Looper logged it; nil when its cause has no message of the
// main thread (RenderThread work, or no cause).
func (tr *genTruth) trueBlock(c simdevice.TruthFrame) *simdevice.TruthBlock {
	cs := tr.cause(c.Cause)
	if !c.Slow || cs == nil {
		return nil
	}
	for i := range tr.blocks {
		b := &tr.blocks[i]
		if b.FrameVsync == c.IntendedVsync && b.Pid == c.Pid && tr.blockOf(b, cs) {
			return b
		}
	}
	return nil
}

// blockOf reports whether truth block b ran cause cs's work: the cause's
// own message, or the frame's message its work lay in. A cause in sync
// keeps the main thread waiting for the RenderThread inside the frame's
// message, so that message is its block too.
func (tr *genTruth) blockOf(b *simdevice.TruthBlock, cs *simdevice.Cause) bool {
	return b.Cause == cs.Name || (cs.Phase == string(frames.PhaseSync) && b.Handler == "android.view.Choreographer$FrameHandler")
}

// match is the truth block a step's block is, by its message and the time
// Looper logged it; nil when the truth has none.
func (tr *genTruth) match(b causes.Block, slackNs int64) *simdevice.TruthBlock {
	var best *simdevice.TruthBlock
	var bestD int64 = math.MaxInt64
	for i := range tr.blocks {
		t := &tr.blocks[i]
		cb, _, _ := strings.Cut(t.Callback, "@")
		if t.Handler != b.Handler || cb != b.Callback || t.What != b.What || t.LoggedMs != b.Ms {
			continue
		}
		if d := abs64(t.EndNs - b.EndNs); d < bestD {
			best, bestD = t, d
		}
	}
	if bestD > slackNs {
		return nil
	}
	return best
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// genAppFrame is the innermost method of a stack in package pkg's own
// code (a look-alike package is not it).
func genAppFrame(stack []string, pkg string) string {
	for i := len(stack) - 1; i >= 0; i-- {
		if strings.HasPrefix(stack[i], pkg+".") {
			return stack[i]
		}
	}
	return ""
}

// judgeGen judges a session's causes against the phone's truth, adding
// to g (a seed's, with its phone).
func judgeGen(g genTally, r *result.Result, w *simdevice.World) genTally {
	tr := &genTruth{wl: w.Workload(), frames: w.TruthFrames(), byTime: map[int64]int{}, blocks: w.TruthBlocks()}
	sort.SliceStable(tr.frames, func(i, j int) bool { return tr.frames[i].IntendedVsync < tr.frames[j].IntendedVsync })
	for i, f := range tr.frames {
		tr.byTime[f.IntendedVsync] = i
	}
	slack := int64(20e6 + r.Clock.UncertaintyMs*1e6)
	for i := range r.Steps {
		st := r.Steps[i]
		if st.Name == "launch" {
			continue
		}
		if st.Causes == nil {
			g.fail("no causes", st.Name)
			continue
		}
		g.judgeStep(tr, st, slack)
		if st.DeviceEndNs-st.DeviceStartNs >= 60e9 {
			g.LongSteps++
			if why := st.Causes.NotMeasured[causes.SourceStacks]; why != "" || len(st.Causes.TopStacks) == 0 {
				g.LongNoStacks++
				g.fail("a step of 60 s without stacks", fmt.Sprintf("%s: %s", st.Name, why))
			}
		}
	}
	g.judgeANRs(r, w.TruthANRs(), slack)
	return g
}

// judgeStep judges the janky frames of one step.
func (g *genTally) judgeStep(tr *genTruth, st *result.Step, slack int64) {
	c := st.Causes
	reported := map[string]int{}
	for _, fc := range c.Frames {
		for _, def := range fc.Janks {
			reported[def]++
		}
		i, ok := tr.byTime[fc.TimeNs]
		if !ok {
			g.fail("a janky frame the phone never drew", genAt(st, fc.TimeNs))
			continue
		}
		g.judgeFrame(tr, st, fc, tr.frames[i], slack)
	}
	fs := st.FrameStats
	want := map[string]int{frames.JankDefinitionPerfDog: fs.PerfDog.Jank, "perfdog_big": fs.PerfDog.BigJank, "chromium": fs.Chromium.JankCount}
	if fs.DeadlineMissed != nil {
		want[frames.JankDefinitionDeadlineMissed] = *fs.DeadlineMissed
	}
	for def, n := range want {
		if n > reported[def] {
			g.Missed += n - reported[def]
			g.fail("missed "+def, fmt.Sprintf("%s: the summary counts %d, the causes list %d", st.Name, n, reported[def]))
		}
	}
}

// judgeFrame judges one janky frame under each definition that counted it.
func (g *genTally) judgeFrame(tr *genTruth, st *result.Step, fc causes.Frame, f simdevice.TruthFrame, slack int64) {
	c := st.Causes
	var tied *simdevice.TruthBlock
	var b causes.Block
	if fc.Block != nil {
		b = c.Blocks[*fc.Block]
		tied = tr.match(b, slack)
	}
	// The messages the frame's definitions blame.
	var wants []*simdevice.TruthBlock
	for _, def := range fc.Janks {
		if cf, ok := tr.culprit(f, def); ok {
			if tb := tr.trueBlock(cf); tb != nil && !slices.Contains(wants, tb) {
				wants = append(wants, tb)
			}
		}
	}
	for _, def := range fc.Janks {
		g.Pairs++
		cf, ok := tr.culprit(f, def)
		var want *simdevice.TruthBlock
		if ok {
			want = tr.trueBlock(cf)
		}
		line := fmt.Sprintf("%s %s (%.1f ms): truth %s", genAt(st, fc.TimeNs), def, fc.DurationMs, tr.describe(cf, want, st))
		switch {
		case fc.Block == nil && fc.Unexplained != "":
			g.Reason++
			if want != nil && want.LoggedMs > 0 && want.EndNs >= st.DeviceStartNs && want.EndNs < st.DeviceEndNs {
				g.Passed++
			}
		case fc.Block == nil:
			g.Silent++
			g.fail(fmt.Sprintf("silent %s, truth %s", def, tr.kind(cf, want, st)), line)
		case want != nil && tied == want && tr.appFrameOK(b, cf):
			g.Right++
		case tied != nil && slices.Contains(wants, tied):
			g.Either++
		default:
			g.Wrong++
			g.fail(fmt.Sprintf("wrong %s, truth %s, tied to %s", def, tr.kind(cf, want, st), tr.tiedKind(tied, cf, f)),
				fmt.Sprintf("%s; tied to %s %s/%s %d ms at %s (%s)", line, genAt(st, b.StartNs), b.Handler, b.Callback, b.Ms, b.AppFrame, tr.tiedKind(tied, cf, f)))
		}
	}
}

// appFrameOK reports whether a block's app frame, when the stacks gave
// one, is the culprit cause's.
func (tr *genTruth) appFrameOK(b causes.Block, cf simdevice.TruthFrame) bool {
	cs := tr.cause(cf.Cause)
	return b.AppFrame == "" || (cs != nil && b.AppFrame == genAppFrame(cs.Stack, tr.wl.Package))
}

// kind sorts the truth of a janky frame into the kinds failures are
// counted by: the cause's phase, and whether its message was logged and
// in the step.
func (tr *genTruth) kind(cf simdevice.TruthFrame, want *simdevice.TruthBlock, st *result.Step) string {
	cs := tr.cause(cf.Cause)
	switch {
	case cs == nil || !cf.Slow:
		return "no cause (the interval before it was the cadence's)"
	case want == nil:
		return cs.Phase + " (no main-thread message)"
	case want.LoggedMs == 0:
		return cs.Phase + " (message under the threshold, not logged)"
	case want.EndNs < st.DeviceStartNs:
		return cs.Phase + " (message logged in an earlier step)"
	case want.EndNs >= st.DeviceEndNs:
		return cs.Phase + " (message logged after the step)"
	}
	return cs.Phase + " (message logged in the step)"
}

// describe is kind with the cause's name and message.
func (tr *genTruth) describe(cf simdevice.TruthFrame, want *simdevice.TruthBlock, st *result.Step) string {
	s := fmt.Sprintf("%s of the frame at %s: %s", cf.Cause, genAt(st, cf.IntendedVsync), tr.kind(cf, want, st))
	switch {
	case want != nil && want.LoggedMs > 0:
		s += fmt.Sprintf(", %s/%s %d ms logged at %s", want.Handler, want.Callback, want.LoggedMs, genAt(st, want.EndNs))
	case want != nil:
		s += fmt.Sprintf(", %s/%s ran %.1f ms to %s", want.Handler, want.Callback, float64(want.EndNs-want.StartNs)/1e6, genAt(st, want.EndNs))
	}
	return s
}

// tiedKind says what a block wrongly tied to frame f, whose culprit is
// cf, really was.
func (tr *genTruth) tiedKind(tied *simdevice.TruthBlock, cf, f simdevice.TruthFrame) string {
	switch {
	case tied == nil:
		return "a message the truth lacks"
	case tied.Cause == "" && tied.Handler == "android.view.Choreographer$FrameHandler":
		return "a frame's own message without cause"
	case tied.Cause == "":
		return "a launch message"
	case tied.Cause == cf.Cause && tied.FrameVsync != cf.IntendedVsync:
		return "the same cause's message of another frame"
	case tied.FrameVsync == f.IntendedVsync && f.IntendedVsync != cf.IntendedVsync:
		return "the frame's own cause (" + tr.cause(tied.Cause).Phase + "), not the frame's before it"
	case tied.FrameVsync > cf.IntendedVsync:
		return "a later frame's cause (" + tr.cause(tied.Cause).Phase + ")"
	}
	return "an earlier frame's cause (" + tr.cause(tied.Cause).Phase + ")"
}

// judgeANRs finds each of the truth's ANRs among the steps' and compares
// its main thread's stack with the truth's.
func (g *genTally) judgeANRs(r *result.Result, truth []simdevice.TruthANR, slack int64) {
	var got []causes.ANR
	for _, st := range r.Steps {
		if st.Causes != nil {
			got = append(got, st.Causes.ANRs...)
		}
	}
	for _, ta := range truth {
		g.ANRs++
		i := slices.IndexFunc(got, func(a causes.ANR) bool { return a.PID == ta.Pid && abs64(a.TimeNs-ta.TimeNs) <= slack })
		at := fmt.Sprintf("ANR of pid %d at %.3fs (truth: %s)", ta.Pid, float64(ta.TimeNs)/1e9, ta.Stack[len(ta.Stack)-1])
		if i < 0 {
			g.ANRMissed++
			g.fail("ANR missed", at)
			continue
		}
		var stack []string
		for _, f := range got[i].MainStack {
			m, _, _ := strings.Cut(f, "(")
			stack = append(stack, m)
		}
		slices.Reverse(stack)
		switch {
		case len(stack) == 0:
			g.ANRNoStack++
			g.fail("ANR without a stack", at)
		case !slices.Equal(stack, ta.Stack):
			g.ANRWrong++
			g.fail("ANR with another stack", fmt.Sprintf("%s: got %s", at, stack[len(stack)-1]))
		default:
			g.ANRWant++
		}
	}
}

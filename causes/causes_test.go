package causes

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/android/logcat"
	"github.com/perfgate/perfgate/android/surfaceflinger"
	framespkg "github.com/perfgate/perfgate/frames"
)

const ms = int64(1_000_000)

// gfxFrame is a frame at vsync v lasting d ms: a normal frame's stages, and
// extra ms of work at the end of phase p (-1: none).
func gfxFrame(v, dMs int64, p int, extraMs int64) framespkg.Frame {
	base := dMs - extraMs
	st := []int64{1, 2, 5, 20, 40, 43, 80, 100} // percent of base: stage ends
	stamps := make([]int64, len(st))
	for i, pc := range st {
		stamps[i] = v + base*ms*pc/100
		if i >= p && p >= 0 {
			stamps[i] += extraMs * ms
		}
	}
	return framespkg.Frame{Source: framespkg.SourceGfxInfo, Window: "w", FrameStats: gfxinfo.FrameStats{
		IntendedVsync: v, Vsync: v, HandleInputStart: stamps[0], AnimationStart: stamps[1], PerformTraversalsStart: stamps[2],
		DrawStart: stamps[3], SyncQueued: stamps[4], SyncStart: stamps[4], IssueDrawCommandsStart: stamps[5],
		SwapBuffers: stamps[6], FrameCompleted: stamps[7]}}
}

// scene is a step of 30 frames at 60 Hz: frames 10 and 11 late in layout
// (their own Choreographer message ran 40 ms, sampled in Feed.bind), frame
// 20 late waiting for a 70 ms Handler message before it (sampled in
// Cache.decode).
func scene() Input {
	const period = 16_666_667
	start := int64(1000) * ms
	var frames []framespkg.Frame
	var samples []Sample
	v := start
	for i := 0; i < 30; i++ {
		switch i {
		case 10, 11:
			f := gfxFrame(v, 46, 3, 40)
			frames = append(frames, f)
			for t := f.PerformTraversalsStart; t < f.DrawStart; t += ms {
				samples = append(samples, Sample{TimeNs: t, Stack: "Looper.loop;Choreographer.doFrame;com.x.Feed.bind", AppFrame: "com.x.Feed.bind"})
			}
			v += 3 * period
		case 20:
			f := gfxFrame(v, 76, 0, 70)
			frames = append(frames, f)
			for t := v; t < f.HandleInputStart; t += ms {
				samples = append(samples, Sample{TimeNs: t, Stack: "Looper.loop;Handler.handleCallback;com.x.Cache.decode", AppFrame: "com.x.Cache.decode"})
			}
			v += 5 * period
		default:
			frames = append(frames, gfxFrame(v, 6, -1, 0))
			v += period
		}
	}
	sum := framespkg.Summarize(framespkg.SourceGfxInfo, frames, period)
	sum.Window = "w"
	blocks := []Block{
		BlockOf(logcat.LooperSlow{Kind: logcat.LooperDispatch, Millis: 41, Handler: "android.view.Choreographer$FrameHandler", Callback: "android.view.Choreographer$FrameDisplayEventReceiver@1f"}, frames[10].IssueDrawCommandsStart),
		BlockOf(logcat.LooperSlow{Kind: logcat.LooperDispatch, Millis: 41, Handler: "android.view.Choreographer$FrameHandler", Callback: "android.view.Choreographer$FrameDisplayEventReceiver@1f"}, frames[11].IssueDrawCommandsStart),
		BlockOf(logcat.LooperSlow{Kind: logcat.LooperDispatch, Millis: 70, Handler: "android.os.Handler", Callback: "com.x.Cache$1@9a"}, frames[20].HandleInputStart),
		// Outside the step: left out.
		BlockOf(logcat.LooperSlow{Kind: logcat.LooperDispatch, Millis: 500, Handler: "android.app.ActivityThread$H", What: 110}, start-ms),
	}
	return Input{Start: start, End: v, Frames: frames, Summary: sum, Blocks: blocks, Samples: samples,
		ANRs: []ANR{{TimeNs: start + 100*ms, PID: 42, Reason: "Input dispatching timed out"}, {TimeNs: v + ms, PID: 42}}}
}

func TestAttribute(t *testing.T) {
	in := scene()
	c := Attribute(in)
	// The three slow frames, and the frame after the 76 ms one, which
	// PerfDog and Chromium count (a long time since the frame before): the
	// Handler message that made frame 20 late made it late too.
	if len(c.Frames) != 4 || c.NotMeasured != nil {
		t.Fatalf("frames %+v, not measured %v", c.Frames, c.NotMeasured)
	}
	want := []struct {
		phase    framespkg.Phase
		block    int
		handler  string
		appFrame string
	}{
		{framespkg.PhaseLayout, 0, "android.view.Choreographer$FrameHandler", "com.x.Feed.bind"},
		{framespkg.PhaseLayout, 1, "android.view.Choreographer$FrameHandler", "com.x.Feed.bind"},
		{framespkg.PhaseWait, 2, "android.os.Handler", "com.x.Cache.decode"},
	}
	for i, w := range want {
		f := c.Frames[i]
		if f.Phase != w.phase || f.Block == nil || *f.Block != w.block || c.Blocks[*f.Block].Handler != w.handler || f.AppFrame != w.appFrame ||
			f.StackHits != f.StackSamples || f.StackSamples == 0 || len(f.Janks) == 0 || f.Janks[0] != framespkg.JankDefinitionDeadlineMissed {
			t.Errorf("frame %d: %+v (block %v)", i, f, f.Block)
		}
	}
	if len(c.Blocks) != 3 || c.Blocks[2].Callback != "com.x.Cache$1" || c.Blocks[0].Frames != 1 || c.Blocks[1].Frames != 1 || c.Blocks[2].Frames != 2 || c.Blocks[2].AppFrame != "com.x.Cache.decode" {
		t.Errorf("blocks %+v", c.Blocks)
	}
	if len(c.TopBlockers) != 2 || c.TopBlockers[0].TotalMs != 82 || c.TopBlockers[0].Count != 2 || c.TopBlockers[0].Where() != "com.x.Feed.bind" ||
		c.TopBlockers[1].Where() != "com.x.Cache.decode" {
		t.Errorf("top blockers %+v", c.TopBlockers)
	}
	if f := c.Frames[3]; f.Block == nil || *f.Block != 2 || f.AppFrame != "com.x.Cache.decode" || f.Unexplained != "" || f.Phase != framespkg.PhaseCommands || strings.Join(f.Janks, ",") != "perfdog,chromium" {
		t.Errorf("frame after the pause: %+v", f)
	}
	if len(c.TopStacks) != 2 || c.TopStacks[0].AppFrame != "com.x.Feed.bind" || c.TopStacks[0].Samples != 82 || c.TopStacks[1].Samples != 71 {
		t.Errorf("top stacks %+v", c.TopStacks)
	}
	if p, n := c.TopPhase(); p != framespkg.PhaseLayout || n != 2 || c.Phases[framespkg.PhaseWait] != 1 {
		t.Errorf("phases %v", c.Phases)
	}
	if len(c.ANRs) != 1 || c.ANRs[0].AtS != 0.1 {
		t.Errorf("anrs %+v", c.ANRs)
	}
	if b, ok := c.MaxBlock(); !ok || b.Ms != 70 {
		t.Errorf("max block %+v", b)
	}
	if got := c.Line(); got != "2 late in layout; top block 82 ms in com.x.Feed.bind" {
		t.Errorf("Line = %q", got)
	}
	if _, err := json.Marshal(c); err != nil {
		t.Error(err)
	}
}

func TestAttributeWithoutSources(t *testing.T) {
	in := scene()
	in.NotMeasured = map[string]string{SourceBlocks: "blocks: no property", SourceStacks: "", SourceANRs: "anrs: no log"}
	in.Samples = nil
	c := Attribute(in)
	if len(c.Blocks) != 0 || len(c.TopBlockers) != 0 || len(c.ANRs) != 0 || c.Frames[0].Block != nil || c.Frames[0].StackSamples != 0 {
		t.Errorf("causes from sources that were not read: %+v", c)
	}
	if len(c.NotMeasured) != 2 || c.NotMeasured[SourceBlocks] == "" || c.NotMeasured[SourceANRs] == "" {
		t.Errorf("not measured %v", c.NotMeasured)
	}
	// Phases still tell the layout.
	if got := c.Line(); got != "2 late in layout" {
		t.Errorf("Line = %q", got)
	}
	// Frames without stage columns (SurfaceFlinger) have no phases.
	in = scene()
	var pres []int64
	for _, f := range in.Frames {
		pres = append(pres, f.FrameCompleted)
	}
	sf := make([]framespkg.Frame, len(pres))
	for i, p := range pres {
		sf[i] = framespkg.Frame{Source: framespkg.SourceSurfaceFlinger, Window: "w", LatencyFrame: surfaceflinger.LatencyFrame{ActualPresent: p}}
	}
	in.Frames, in.Summary = sf, framespkg.Summarize(framespkg.SourceSurfaceFlinger, sf, 16_666_667)
	in.Summary.Window = "w"
	c = Attribute(in)
	if !strings.Contains(c.NotMeasured[SourcePhases], "surfaceflinger") || c.Phases != nil {
		t.Errorf("phases from SurfaceFlinger frames: %v %v", c.Phases, c.NotMeasured)
	}
	for _, f := range c.Frames {
		if f.Phases != nil {
			t.Errorf("frame %+v has phases", f)
		}
	}
	if (*Step)(nil).Line() != "" {
		t.Error("nil step has a line")
	}
}

func Example() {
	c := Attribute(scene())
	fmt.Println(c.Line())
	for _, b := range c.TopBlockers {
		fmt.Printf("%d × %s: %d ms\n", b.Count, b.Where(), b.TotalMs)
	}
	// Output:
	// 2 late in layout; top block 82 ms in com.x.Feed.bind
	// 2 × com.x.Feed.bind: 82 ms
	// 1 × com.x.Cache.decode: 70 ms
}

// A jank line names the top blocker of the janky frames the step's jank
// counted: a 355 ms launch message that made five frames late by
// PerfDog's definition, none of the four the step's deadline-missed jank
// counted, is not why those janked; the 165 ms of row binding is.
func TestTopBlockerExplainsJank(t *testing.T) {
	bind := func(ms int64) Block {
		return Block{Handler: "android.view.Choreographer$FrameHandler", AppFrame: "com.x.FeedAdapter.onBindViewHolder", Ms: ms, Frames: 1}
	}
	s := &Step{
		JankDefinition: framespkg.JankDefinitionDeadlineMissed,
		Phases:         map[framespkg.Phase]int{framespkg.PhaseLayout: 4},
		Blocks:         []Block{{Handler: "android.app.ActivityThread$H", Ms: 355, Frames: 5}, bind(41), bind(42), bind(41), bind(41)},
	}
	for i := range 5 {
		s.Frames = append(s.Frames, Frame{Janks: []string{framespkg.JankDefinitionPerfDog}, Block: new(0), AppFrame: "com.x.Launch.init", StackHits: 300})
		if i > 0 {
			s.Frames = append(s.Frames, Frame{Janks: []string{framespkg.JankDefinitionDeadlineMissed}, Block: new(i), AppFrame: "com.x.FeedAdapter.onBindViewHolder", StackHits: 30})
		}
	}
	s.TopBlockers = topBlockers(s.Blocks, 5)
	if want := "4 late in layout; top block 165 ms in com.x.FeedAdapter.onBindViewHolder"; s.Line() != want {
		t.Errorf("Line() = %q, want %q", s.Line(), want)
	}
	// Without blocks, the app frame sampled most in those frames.
	for i := range s.Frames {
		s.Frames[i].Block = nil
	}
	if want := "4 late in layout; top stack in com.x.FeedAdapter.onBindViewHolder"; s.Line() != want {
		t.Errorf("without blocks: Line() = %q, want %q", s.Line(), want)
	}
}

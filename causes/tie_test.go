package causes

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/android/logcat"
	framespkg "github.com/perfgate/perfgate/frames"
)

const period = 16_666_667

// steady appends n 6 ms frames a period apart from v and returns the
// next vsync.
func steady(fs []framespkg.Frame, v int64, n int) ([]framespkg.Frame, int64) {
	for range n {
		fs = append(fs, gfxFrame(v, 6, -1, 0))
		v += period
	}
	return fs, v
}

func summarize(fs []framespkg.Frame) framespkg.Summary {
	sum := framespkg.Summarize(framespkg.SourceGfxInfo, fs, period)
	sum.Window = "w"
	return sum
}

// handler is a Handler message of ms milliseconds logged at end.
func handler(ms int64, cb string, end int64) Block {
	return BlockOf(logcat.LooperSlow{Kind: logcat.LooperDispatch, Millis: ms, Handler: "android.os.Handler", Callback: cb + "@1"}, end)
}

// A frame late in its RenderThread commands phase, followed just before
// its end by the next frame's own 34 ms Handler message, four times: the
// message delayed the next frame, never the RenderThread-bound one, which
// says why it has no block.
func TestRenderThreadFrameNotBlamedOnNextMessage(t *testing.T) {
	start := 1000 * ms
	fs, v := steady(nil, start, 10)
	var blocks []Block
	var rt []int64
	for range 4 {
		a := gfxFrame(v, 50, 6, 44) // 44 ms more in commands
		rt = append(rt, v)
		b := gfxFrame(v+3*period, 34, 0, 33) // waits for the message
		fs = append(fs, a, b)
		blocks = append(blocks, handler(34, "com.x.Prefetch$1", b.HandleInputStart))
		if blocks[len(blocks)-1].StartNs >= a.FrameCompleted {
			t.Fatal("the message does not overlap the RenderThread-bound frame")
		}
		fs, v = steady(fs, v+6*period, 10)
	}
	c := Attribute(Input{Start: start, End: v, Frames: fs, Summary: summarize(fs), Blocks: blocks})
	tied := 0
	for _, f := range c.Frames {
		if f.Block != nil {
			tied++
		}
		isRT := false
		for _, r := range rt {
			isRT = isRT || f.TimeNs == r
		}
		if isRT && (f.Block != nil || !strings.Contains(f.Unexplained, "RenderThread work (commands")) {
			t.Errorf("RenderThread-bound frame at %.3f s: block %v, unexplained %q", f.AtS, f.Block, f.Unexplained)
		}
		if (f.Block == nil) == (f.Unexplained == "") {
			t.Errorf("frame at %.3f s: block %v and unexplained %q", f.AtS, f.Block, f.Unexplained)
		}
	}
	frames := 0
	for _, b := range c.Blocks {
		frames += b.Frames
	}
	// Each message is tied to the frame it delayed, never to the frame
	// before.
	if len(c.Blocks) != 4 || tied != 4 || frames != 4 || len(c.Frames) != 8 {
		t.Errorf("%d blocks tied to %d frames; %d of %d janky frames tied: %+v", len(c.Blocks), frames, tied, len(c.Frames), c.Frames)
	}
}

// Eight frames late drawing a chart, each in its own 40 ms Choreographer
// message (which also made the frame after each late, by the time since
// the one before), and 31 TileCache messages (640 ms) while nothing drew: the
// top stacks and the line are the chart's; TileCache's blocked time is
// listed apart, with its stack.
func TestTopStacksExplainJank(t *testing.T) {
	start := 1000 * ms
	var samples []Sample
	var blocks []Block
	v := start
	for i := range 31 {
		d := int64(20 + i%2) // 20 or 21 ms: 640 ms in all
		if i == 30 {
			d = 25
		}
		for s := v; s < v+d*ms; s += ms {
			samples = append(samples, Sample{TimeNs: s, Stack: "Looper.loop;com.x.TileCache.warm", AppFrame: "com.x.TileCache.warm"})
		}
		blocks = append(blocks, handler(d, "com.x.TileCache$1", v+d*ms))
		v += d*ms + 2*ms
	}
	fs, v := steady(nil, v, 5)
	for range 8 {
		f := gfxFrame(v, 46, 4, 40) // 40 ms more drawing
		fs = append(fs, f)
		for s := f.DrawStart; s < f.SyncQueued; s += ms {
			samples = append(samples, Sample{TimeNs: s, Stack: "Looper.loop;Choreographer.doFrame;com.x.ChartView.drawSeries", AppFrame: "com.x.ChartView.drawSeries"})
		}
		blocks = append(blocks, BlockOf(logcat.LooperSlow{Kind: logcat.LooperDispatch, Millis: 42, Handler: "android.view.Choreographer$FrameHandler", Callback: "android.view.Choreographer$FrameDisplayEventReceiver@2"}, f.SyncQueued))
		fs, v = steady(fs, v+3*period, 5)
	}
	c := Attribute(Input{Start: start, End: v, Frames: fs, Summary: summarize(fs), Blocks: blocks, Samples: samples})
	if len(c.TopStacks) != 1 || c.TopStacks[0].AppFrame != "com.x.ChartView.drawSeries" {
		t.Errorf("top stacks %+v", c.TopStacks)
	}
	if len(c.TopBlockers) != 1 || c.TopBlockers[0].Where() != "com.x.ChartView.drawSeries" || c.TopBlockers[0].Frames != 16 {
		t.Errorf("top blockers %+v", c.TopBlockers)
	}
	if len(c.UntiedBlockers) != 1 || c.UntiedBlockers[0].Count != 31 || c.UntiedBlockers[0].TotalMs != 640 || c.UntiedBlockers[0].Where() != "com.x.TileCache.warm" ||
		len(c.UntiedStacks) != 1 || c.UntiedStacks[0].Samples != 640 {
		t.Errorf("untied blockers %+v, stacks %+v", c.UntiedBlockers, c.UntiedStacks)
	}
	if strings.Contains(c.Line(), "TileCache") || !strings.Contains(c.Line(), "ChartView.drawSeries") {
		t.Errorf("Line = %q", c.Line())
	}
	// Without blocks, the line's stack is still the chart's.
	c = Attribute(Input{Start: start, End: v, Frames: fs, Summary: summarize(fs), Blocks: blocks, Samples: samples,
		NotMeasured: map[string]string{SourceBlocks: "blocks: not measured"}})
	if want := "8 late in draw; top stack in com.x.ChartView.drawSeries"; c.Line() != want {
		t.Errorf("without blocks: Line = %q, want %q", c.Line(), want)
	}
}

// A 1200 ms janky frame whose message Looper logged after its step ended:
// the block is the frame's in its step, and the next step neither lists
// it nor counts its samples.
func TestBlockAcrossStepEnd(t *testing.T) {
	start := 1000 * ms
	fs, v := steady(nil, start, 20)
	slow := gfxFrame(v, 1200, 3, 1194) // 1194 ms more in layout
	fs = append(fs, slow)
	var samples []Sample
	for s := slow.PerformTraversalsStart; s < slow.DrawStart; s += ms {
		samples = append(samples, Sample{TimeNs: s, Stack: "Looper.loop;Choreographer.doFrame;com.x.Grid.measure", AppFrame: "com.x.Grid.measure"})
	}
	block := BlockOf(logcat.LooperSlow{Kind: logcat.LooperDispatch, Millis: 1196, Handler: "android.view.Choreographer$FrameHandler", Callback: "android.view.Choreographer$FrameDisplayEventReceiver@3"}, slow.IssueDrawCommandsStart)
	mid := v + 100*ms // the step ends while the frame is drawn
	fs, end := steady(fs, v+72*period, 30)
	sum := func(lo, hi int64) framespkg.Summary {
		var in []framespkg.Frame
		for _, f := range fs {
			if f.Time() >= lo && f.Time() < hi {
				in = append(in, f)
			}
		}
		return summarize(in)
	}
	first := Attribute(Input{Start: start, End: mid, Frames: fs, Summary: sum(start, mid), Blocks: []Block{block}, Samples: samples})
	next := Attribute(Input{Start: mid, End: end, Frames: fs, Summary: sum(mid, end), Blocks: []Block{block}, Samples: samples})
	var f *Frame
	for i := range first.Frames {
		if first.Frames[i].TimeNs == slow.IntendedVsync {
			f = &first.Frames[i]
		}
	}
	if f == nil || f.Block == nil || first.Blocks[*f.Block].Ms != 1196 || first.Blocks[*f.Block].Frames != 1 {
		t.Fatalf("the slow frame: %+v, blocks %+v", f, first.Blocks)
	}
	if want := "1 late in layout; top block 1196 ms in com.x.Grid.measure"; first.Line() != want {
		t.Errorf("first step: Line = %q, want %q", first.Line(), want)
	}
	n := 0
	for _, s := range next.TopStacks {
		n += s.Samples
	}
	for _, s := range next.UntiedStacks {
		n += s.Samples
	}
	if len(next.Blocks) != 0 || n != 0 {
		t.Errorf("next step: blocks %+v, %d samples in its stacks", next.Blocks, n)
	}
}

// Every janky frame has a block or says why not.
func TestUnexplainedSaysWhy(t *testing.T) {
	in := scene()
	in.Blocks = in.Blocks[2:3] // the Handler message only
	c := Attribute(in)
	for _, f := range c.Frames[:2] {
		if f.Block != nil || !strings.Contains(f.Unexplained, "no main-thread message over the Looper threshold") {
			t.Errorf("frame at %.3f s: block %v, unexplained %q", f.AtS, f.Block, f.Unexplained)
		}
	}
	in.NotMeasured = map[string]string{SourceBlocks: "blocks: no property"}
	for _, f := range Attribute(in).Frames {
		if f.Block != nil || f.Unexplained != "blocks not measured (blocks: no property)" {
			t.Errorf("frame at %.3f s: block %v, unexplained %q", f.AtS, f.Block, f.Unexplained)
		}
	}
}

// A frame late syncing with the RenderThread (uploading bitmaps): its own
// Choreographer message, which waits for the sync, is logged as slow, and
// is not why the frame janked, nor why the frame after it did; it is
// blocked time apart.
func TestSyncBoundFrameNotBlamedOnItsOwnMessage(t *testing.T) {
	start := 1000 * ms
	fs, v := steady(nil, start, 10)
	f := gfxFrame(v, 36, 5, 30) // 30 ms more in sync
	fs = append(fs, f)
	fs, v = steady(fs, v+3*period, 10)
	own := BlockOf(logcat.LooperSlow{Kind: logcat.LooperDispatch, Millis: 32, Handler: "android.view.Choreographer$FrameHandler", Callback: "android.view.Choreographer$FrameDisplayEventReceiver@4"}, f.IssueDrawCommandsStart)
	c := Attribute(Input{Start: start, End: v, Frames: fs, Summary: summarize(fs), Blocks: []Block{own}})
	if len(c.Frames) == 0 || c.Frames[0].Block != nil || !strings.Contains(c.Frames[0].Unexplained, "RenderThread work (sync") {
		t.Fatalf("frames %+v", c.Frames)
	}
	// The frame after it, late by the time since it, says so.
	if len(c.Frames) != 2 || c.Frames[1].Block != nil || !strings.Contains(c.Frames[1].Unexplained, "the frame before it, at 0.167 s, was late on the RenderThread") {
		t.Errorf("the frame after: %+v", c.Frames[1:])
	}
	if len(c.TopBlockers) != 0 || len(c.UntiedBlockers) != 1 || c.Line() != "1 late in sync" {
		t.Errorf("top blockers %+v, untied %+v, line %q", c.TopBlockers, c.UntiedBlockers, c.Line())
	}
}

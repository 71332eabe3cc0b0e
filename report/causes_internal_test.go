package report

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/causes"
	"github.com/perfgate/perfgate/result"
)

// Blocked time tied to no janky frame has a place of its own, after the
// janky frames' blockers and stacks, and a janky frame without a block
// says why.
func TestCausesUntiedApart(t *testing.T) {
	tile := causes.Blocker{Handler: "android.os.Handler", Callback: "com.x.TileCache$1", AppFrame: "com.x.TileCache.warm", Count: 31, TotalMs: 640, MaxMs: 25}
	chart := causes.Blocker{Handler: "android.view.Choreographer$FrameHandler", AppFrame: "com.x.ChartView.drawSeries", Count: 8, TotalMs: 336, MaxMs: 42, Frames: 8}
	st := &result.Step{Causes: &causes.Step{
		TopBlockers: []causes.Blocker{chart}, UntiedBlockers: []causes.Blocker{tile},
		TopStacks:    []causes.Stack{{Stack: "Looper.loop;com.x.ChartView.drawSeries", Samples: 320, AppFrame: "com.x.ChartView.drawSeries"}},
		UntiedStacks: []causes.Stack{{Stack: "Looper.loop;com.x.TileCache.warm", Samples: 640, AppFrame: "com.x.TileCache.warm"}},
		Frames:       []causes.Frame{{AtS: 0.5, Janks: []string{"deadline_missed"}, Unexplained: "its lateness was RenderThread work (commands 44.0 ms)"}},
	}}
	h, _ := causesOf(&result.Result{}, st, "s1")
	out := string(h)
	apart := strings.Index(out, "tied to no janky frame")
	if apart < 0 || strings.Index(out, "com.x.TileCache.warm") < apart || strings.Index(out, "com.x.ChartView.drawSeries") > apart {
		t.Errorf("untied blocked time not apart:\n%s", out)
	}
	if !strings.Contains(out, "none: its lateness was RenderThread work") {
		t.Errorf("the frame does not say why it has no block:\n%s", out)
	}
}

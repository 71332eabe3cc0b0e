package assert_test

import (
	"fmt"

	"github.com/perfgate/perfgate/assert"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/result"
)

// printT prints what a check reports, in place of a *testing.T.
type printT struct{}

func (printT) Errorf(format string, args ...any) { fmt.Printf(format+"\n", args...) }
func (printT) FailNow()                          {}

func ExampleMaxJank() {
	// A step as a session summarises it (normally r.Step("scroll") of a
	// Result from perftest).
	step := &result.Step{Name: "scroll", FrameStats: frames.Summary{
		Source: "gfxinfo", Frames: 180, FPS: 58.2, Jank: 5, JankDefinition: frames.JankDefinitionDeadlineMissed},
		JankAtS: []float64{1.84, 2.1, 2.31, 3.02, 3.4}}
	ok := assert.MaxJank(printT{}, step, 3)
	fmt.Println(ok)
	ok = assert.MinFPS(printT{}, step, 55)
	fmt.Println(ok)
	// Output:
	// perf budget exceeded: scroll: jank 5 > 3 (deadline missed; frames at 1.84s 2.10s 2.31s 3.02s 3.40s)
	// false
	// true
}

func ExampleBudget() {
	// testdata/example.budget.json holds jank ≤ 3 and fps ≥ 50 for "scroll".
	r := &result.Result{Steps: []*result.Step{{Name: "scroll", FrameStats: frames.Summary{
		Source: "gfxinfo", Frames: 180, FPS: 48.5, Jank: 2, JankDefinition: frames.JankDefinitionDeadlineMissed}}}}
	ok := assert.Budget(printT{}, r, "example.budget.json")
	fmt.Println(ok)
	// Output:
	// perf budget exceeded: scroll: fps 48.5 < 50 ((n−1)/(t[n−1]−t[0]), gfxinfo)
	// run 'go test . -update' to rewrite testdata/example.budget.json if the change is intended
	// false
}

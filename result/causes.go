package result

import (
	"github.com/perfgate/perfgate/causes"
)

// CauseRun is how the session looked for causes.
type CauseRun struct {
	// LooperProperty is the property set for the app's main Looper and
	// LooperSlowMs the threshold; empty and 0 when none was set.
	LooperProperty string `json:"looper_property,omitempty"`
	LooperSlowMs   int64  `json:"looper_slow_ms,omitempty"`
	// StackSource names the profiler command, empty when none ran.
	StackSource string `json:"stack_source,omitempty"`
	// StacksFile is the file, beside the Result, that holds every sampled
	// main-thread stack of the session folded for flame-graph tools (one
	// "step;outermost;…;innermost count" line per stack).
	StacksFile string `json:"stacks_file,omitempty"`
	// Samples is how many main-thread samples the profiler gave.
	Samples int `json:"samples,omitempty"`
}

// ANRs returns the app's ANRs in the step (see causes.Step).
func (st *Step) ANRs() []causes.ANR {
	if st.Causes == nil {
		return nil
	}
	return st.Causes.ANRs
}

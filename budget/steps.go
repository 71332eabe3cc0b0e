package budget

import (
	"fmt"
	"strings"
)

// CheckSteps refuses a budget of a step that none of steps (the step names
// of the runs checked, "session" for a run of no step) is: a misspelt step
// would be a budget nobody checks. The error names the first such limit,
// or the budget file and line of the first such step, and lists steps.
// Either limits or f may be empty.
func CheckSteps(steps []string, limits []Limit, f *File) error {
	have := map[string]bool{}
	for _, s := range steps {
		have[s] = true
	}
	known := strings.Join(steps, ", ")
	for _, l := range limits {
		if l.Step != "" && !have[l.Step] {
			return fmt.Errorf("%s:%s: no result has step %q (they have: %s)", l.Step, l, l.Step, known)
		}
	}
	if f == nil {
		return nil
	}
	if u := f.UnknownSteps(func(step string) bool { return have[step] }); len(u) > 0 {
		return fmt.Errorf("%s: budgets of step %q, which no result has (they have: %s)", u[0].Where, u[0].Step, known)
	}
	return nil
}

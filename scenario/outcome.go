package scenario

import (
	"fmt"
	"io"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/result"
)

// Outcome is how a run of a scenario file ended: the failing verdicts its
// Result keeps, counted by kind, and whether its Result was written.
type Outcome struct {
	Failed map[budget.Kind]int
	// Error is the Result's: why the session ended early, "" when it did not.
	Error string
	// Unwritten says the Result could not be written.
	Unwritten bool
}

// Outcome writes every failing verdict r holds to w, a line each (crashes
// no step expected, failed actions, broken budgets, refused updates), and
// counts them; werr is the error writing r, if any.
func (f *File) Outcome(w io.Writer, r *result.Result, werr error) Outcome {
	o := Outcome{Failed: map[budget.Kind]int{}, Error: r.Error, Unwritten: werr != nil}
	for _, v := range r.Verdicts {
		if !v.Fails() {
			continue
		}
		o.Failed[v.Kind]++
		line := v.Line
		if v.Kind == budget.KindCrash {
			line += `; "expect_crash": true in the step if the scenario expects it`
		}
		fmt.Fprintln(w, line)
	}
	return o
}

// OK reports whether nothing failed.
func (o Outcome) OK() bool { return len(o.Failed) == 0 && o.Error == "" && !o.Unwritten }

// String sums the outcome up: "2 failed steps, 1 broken budgets", then the
// crashes, refused updates, early end and unwritten Result there were.
func (o Outcome) String() string {
	msg := fmt.Sprintf("%d failed steps, %d broken budgets", o.Failed[budget.KindAction], o.Failed[budget.KindBudget])
	if n := o.Failed[budget.KindCrash]; n > 0 {
		msg += fmt.Sprintf(", %d steps crashed", n)
	}
	if n := o.Failed[budget.KindUpdate]; n > 0 {
		msg += fmt.Sprintf(", %d updates refused", n)
	}
	if o.Error != "" {
		msg += ", session ended early: " + o.Error
	}
	if o.Unwritten {
		msg += ", results not written"
	}
	return msg
}

// Finished counts r's steps that ran to their end.
func Finished(r *result.Result) int {
	done := 0
	for _, st := range r.Steps {
		if !st.Unfinished {
			done++
		}
	}
	return done
}

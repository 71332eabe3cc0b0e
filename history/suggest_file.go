package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/perfgate/perfgate/budget"
)

// DefaultDSN is the history perfgate reads and writes when none is named.
const DefaultDSN = "perf-history.db"

// DSN is the history dsn names, else $PERFGATE_HISTORY
// (resultpkg.EnvHistory, as EnvDSN reads it), else DefaultDSN.
func DSN(dsn string) string {
	if dsn == "" {
		dsn = EnvDSN()
	}
	if dsn == "" {
		dsn = DefaultDSN
	}
	return dsn
}

// FirstRegression is the first change for the worse the digest of trends
// lists with o, if any.
func FirstRegression(trends []Trend, o DigestOptions) (DigestEntry, bool) {
	for _, e := range Digest(trends, o) {
		if e.Change.Regression {
			return e, true
		}
	}
	return DigestEntry{}, false
}

// ErrNoBudget is SuggestBudgets' error when no series gives a budget.
var ErrNoBudget = errors.New("no budget to suggest")

// DeviceModels counts the device models of trends.
func DeviceModels(trends []Trend) int {
	devices := map[string]bool{}
	for _, t := range trends {
		devices[t.Device] = true
	}
	return len(devices)
}

// Budgets is a budget file suggested from a test's history: the
// suggestions it holds and the series left without one.
type Budgets struct {
	Suggestions []Suggestion
	// Skipped says, for each series left without a budget, why.
	Skipped []Skip
	File    *budget.File
}

// SuggestBudgets suggests a golden budget file from trends, the series of
// one test on one device model (Suggest, then BudgetFile). With an error
// it still returns the suggestions and the series skipped.
func SuggestBudgets(trends []Trend, o SuggestOptions) (*Budgets, error) {
	b := &Budgets{}
	b.Suggestions, b.Skipped = Suggest(trends, o)
	f, err := BudgetFile(b.Suggestions)
	switch {
	case err != nil:
		return b, err
	case len(f.Steps) == 0:
		return b, ErrNoBudget
	}
	b.File = f
	return b, nil
}

// mostSkipped is how many series without a budget WriteNotes names one
// by one; the others it counts.
const mostSkipped = 5

// WriteNotes writes what each budget rests on, a line each; the series
// left without one, the first mostSkipped by name and how many runs
// they lack; and last, in capitals, the budgets taken from before a change
// for the worse, which the app as it is now breaks.
func (b *Budgets) WriteNotes(w io.Writer) {
	for _, sg := range b.Suggestions {
		fmt.Fprintln(w, sg.Line())
	}
	if n := len(b.Skipped); n > 0 {
		lack := 0
		for i, sk := range b.Skipped {
			lack = max(lack, sk.Want-sk.Runs)
			if i < mostSkipped {
				fmt.Fprintf(w, "no budget: %s\n", sk)
			}
		}
		if n > mostSkipped {
			fmt.Fprintf(w, "no budget: %d more series of too few runs\n", n-mostSkipped)
		}
		fmt.Fprintf(w, "%d series without a budget, measured in fewer than %d runs at their level: up to %d more runs of the test (go test -count=%d) give them one if each run measures them, as does a lower -min-runs-budget\n",
			n, b.Skipped[0].Want, lack, lack)
	}
	var regressed []string
	for _, sg := range b.Suggestions {
		if c := sg.Regression; c != nil {
			regressed = append(regressed, c.Sentence(sg.Key))
		}
	}
	if len(regressed) > 0 {
		what := "1 budget rests on the runs before a change for the worse, and the app as it is now breaks it"
		if len(regressed) > 1 {
			what = fmt.Sprintf("%d budgets rest on the runs before a change for the worse, and the app as it is now breaks them", len(regressed))
		}
		fmt.Fprintf(w, "WARNING: %s: %s\n", what, strings.Join(regressed, "; "))
	}
}

// WriteJSON writes the budget file as indented JSON.
func (b *Budgets) WriteJSON(w io.Writer) error {
	out, err := json.MarshalIndent(b.File, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(out, '\n'))
	return err
}

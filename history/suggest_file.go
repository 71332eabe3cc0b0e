package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/perfgate/perfgate/budget"
	resultpkg "github.com/perfgate/perfgate/result"
)

// DefaultDSN is the history perfgate reads and writes when none is named.
const DefaultDSN = "perf-history.db"

// DSN is the history dsn names, else $PERFGATE_HISTORY
// (resultpkg.EnvHistory), else DefaultDSN.
func DSN(dsn string) string {
	if dsn == "" {
		dsn = os.Getenv(resultpkg.EnvHistory)
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
	Skipped []string
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

// WriteNotes writes what each budget rests on, and why a series has none,
// a line each.
func (b *Budgets) WriteNotes(w io.Writer) {
	for _, sk := range b.Skipped {
		fmt.Fprintf(w, "no budget: %s\n", sk)
	}
	for _, sg := range b.Suggestions {
		fmt.Fprintln(w, sg.Line())
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

package budget

import (
	"fmt"
	"path/filepath"
)

// Limits are limits given one at a time, as repeated -budget flags are: a
// flag.Value whose Set parses one (ParseLimit) and adds it.
type Limits []Limit

// String lists the limits.
func (l *Limits) String() string { return fmt.Sprint(*l) }

// Set parses s as ParseLimit does and adds it.
func (l *Limits) Set(s string) error {
	v, err := ParseLimit(s)
	if err != nil {
		return err
	}
	*l = append(*l, v)
	return nil
}

// ReadBudgetFileAt is ReadBudgetFile of the path as given, as a command
// line names files: a bare name ("feed.budget.json") is in the working
// folder, not under testdata/ as a test's is.
func ReadBudgetFileAt(path string) (*File, error) {
	if path == filepath.Base(path) {
		path = "." + string(filepath.Separator) + path
	}
	return ReadBudgetFile(path)
}

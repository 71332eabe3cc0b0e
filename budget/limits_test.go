package budget_test

import (
	"flag"
	"io"
	"os"
	"testing"

	"github.com/perfgate/perfgate/budget"
)

func TestLimitsFlag(t *testing.T) {
	var l budget.Limits
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(&l, "budget", "a budget")
	if err := fs.Parse([]string{"-budget", "jank<=3", "-budget", "scroll:fps>=55"}); err != nil {
		t.Fatal(err)
	}
	if len(l) != 2 || l[0].Metric != "jank" || l[1].Step != "scroll" {
		t.Errorf("limits %+v", l)
	}
	if err := fs.Parse([]string{"-budget", "jank"}); err == nil {
		t.Error("-budget jank: no error")
	}
}

func TestReadBudgetFileAt(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.WriteFile("feed.budget.json", []byte(`{"schema": "perfgate.budget/v1", "steps": {"scroll": {"jank": {"max": 3}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := budget.ReadBudgetFileAt("feed.budget.json")
	if err != nil {
		t.Fatal(err)
	}
	if f.Path != "./feed.budget.json" || f.Steps["scroll"]["jank"] == nil {
		t.Errorf("read %s: %+v", f.Path, f.Steps)
	}
}

package report_test

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
)

// Record keeps the comparison's verdicts in the new Results it judged and
// rewrites their files; a Result of an unfinished session is left alone.
func TestComparisonRecord(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	base := runs(rng, 6, 18, 60, 100000)
	next := runs(rng, 3, 27, 60, 100000)
	dir := t.TempDir()
	for i, r := range next {
		if err := r.WriteFile(filepath.Join(dir, fmt.Sprintf("new%d.json", i))); err != nil {
			t.Fatal(err)
		}
	}
	next[2].Unfinished = &result.Unfinished{After: "scroll"}
	c := report.Compare(base, next, report.CompareOptions{})
	if err := c.Record(next); err != nil {
		t.Fatal(err)
	}
	for i, r := range next {
		back, err := result.ReadResult(r.Path)
		if err != nil {
			t.Fatal(err)
		}
		regressions := 0
		for _, v := range back.Verdicts {
			if v.Kind == budget.KindRegression {
				regressions++
			}
		}
		switch {
		case i < 2 && regressions == 0:
			t.Errorf("%s: no regression verdict kept: %+v", r.Path, back.Verdicts)
		case i == 2 && len(back.Verdicts) != 0:
			t.Errorf("%s, unfinished: rewritten with %d verdicts", r.Path, len(back.Verdicts))
		}
	}

	// A Result that cannot be written is an error, naming it.
	next[0].Path = filepath.Join(next[1].Path, "new0.json")
	if err := c.Record(next[:1]); err == nil || !strings.Contains(err.Error(), "new0.json") {
		t.Errorf("Record of a Result under a file: %v", err)
	}
}

package assert_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfgate/perfgate/assert"
	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/result"
)

// A budget file of 20 steps × 11 metrics checked against a run of those
// steps: reading the file and every check.
func BenchmarkBudgetFile(b *testing.B) {
	var steps []*result.Step
	for i := range 20 {
		st := scrollStep()
		st.Name = fmt.Sprintf("step%02d", i)
		steps = append(steps, st)
	}
	r := run("Pixel 7", "14", steps...)
	p := filepath.Join(b.TempDir(), "big.budget.json")
	b.Setenv(budget.EnvUpdate, "1")
	if !assert.Budget(&fakeT{}, r, p) {
		b.Fatal("record failed")
	}
	b.Setenv(budget.EnvUpdate, "")
	st, _ := os.Stat(p)
	b.ReportMetric(float64(st.Size()), "file-B")
	b.ReportAllocs()
	for b.Loop() {
		if !assert.Budget(&fakeT{}, r, p) {
			b.Fatal("budget failed")
		}
	}
}

func BenchmarkCompareValues(b *testing.B) {
	old := []float64{18.1, 18.3, 18.0, 18.4, 18.2, 18.5, 18.2, 18.3, 18.1, 18.4}
	next := []float64{24.8, 24.9, 25.1, 24.7, 24.9, 25.0, 24.8, 24.9, 25.2, 24.9}
	b.ReportAllocs()
	for b.Loop() {
		budget.CompareValues(old, next, metrics.Lower, budget.Gate{})
	}
}

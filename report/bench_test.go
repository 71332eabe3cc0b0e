package report_test

import (
	"io"
	"testing"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
)

// A report is written once per test at the end of a run; these keep that
// cheap next to the session itself (a few ms for a two-step session).
func BenchmarkWriteHTML(b *testing.B) {
	r := loadRecorded(b)
	rs := []*result.Result{r}
	opts := report.Options{Budgets: []budget.Limit{{Metric: "jank", Value: 2}, {Metric: "fps", Value: 50, Min: true}}}
	b.ReportAllocs()
	for b.Loop() {
		if err := report.WriteHTML(io.Discard, rs, opts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteMarkdown(b *testing.B) {
	rs := []*result.Result{loadRecorded(b)}
	b.ReportAllocs()
	for b.Loop() {
		if err := report.WriteMarkdown(io.Discard, rs, report.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompare(b *testing.B) {
	r := loadRecorded(b)
	base := []*result.Result{r, r, r, r, r, r, r, r, r, r}
	b.ReportAllocs()
	for b.Loop() {
		report.Compare(base, base, report.CompareOptions{})
	}
}

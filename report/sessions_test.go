package report_test

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
)

func TestStepSummary(t *testing.T) {
	r := &result.Result{Steps: []*result.Step{{Name: "record", HostStartNs: 1e9, HostEndNs: 3_500_400_000}}}
	summary, _ := report.StepSummary(r, "record", true)
	if !strings.HasPrefix(summary, "2.5s, ") || !strings.HasSuffix(summary, ", 0 gaps, unfinished") {
		t.Errorf("summary %q", summary)
	}
	if n := report.CountUnfinished([]*result.Result{r, {Unfinished: &result.Unfinished{}}}); n != 1 {
		t.Errorf("CountUnfinished = %d, want 1", n)
	}
}

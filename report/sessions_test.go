package report_test

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/report"
)

func TestStepSummary(t *testing.T) {
	r := &perftest.Result{Steps: []*perftest.Step{{Name: "record", HostStartNs: 1e9, HostEndNs: 3_500_400_000}}}
	summary, _ := report.StepSummary(r, "record", true)
	if !strings.HasPrefix(summary, "2.5s, ") || !strings.HasSuffix(summary, ", 0 gaps, unfinished") {
		t.Errorf("summary %q", summary)
	}
	if n := report.CountUnfinished([]*perftest.Result{r, {Unfinished: &perftest.Unfinished{}}}); n != 1 {
		t.Errorf("CountUnfinished = %d, want 1", n)
	}
}

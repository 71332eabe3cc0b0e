package report_test

import (
	"strings"
	"testing"
	"time"

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

// A summary of three runs of one test on one phone heads each with the
// device and its run, in start order, so no two headings read alike.
func TestMarkdownNamesRuns(t *testing.T) {
	var rs []*result.Result
	for _, min := range []int{2, 0, 1} {
		r := loadRecorded(t)
		r.Start = r.Start.Add(time.Duration(min) * time.Minute)
		rs = append(rs, r)
	}
	var b strings.Builder
	if err := report.WriteMarkdown(&b, rs, report.Options{}); err != nil {
		t.Fatal(err)
	}
	var heads []string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "### ") && strings.Contains(l, rs[0].Name) {
			heads = append(heads, l)
		}
	}
	dev := rs[0].Device.Model + " " + rs[0].Device.Serial
	for i, want := range []string{"run 3 of 3", "run 1 of 3", "run 2 of 3"} {
		if i >= len(heads) || !strings.Contains(heads[i], dev) || !strings.Contains(heads[i], want) {
			t.Errorf("heading %d of %q: want %s and %s", i, heads, dev, want)
		}
	}
}

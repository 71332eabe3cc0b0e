package report_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
)

// FuzzReports writes every report of an arbitrary Result: no panic, every
// chart well-formed SVG, and no raw text from the Result breaking out of
// the page.
func FuzzReports(f *testing.F) {
	if b, err := os.ReadFile(recorded); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"schema":"perfgate.result/v1","steps":[{"name":"s","host_end_ns":1000000000,"device_end_ns":1000000000,"frames":{"source":"surfaceflinger","frames":3,"refresh_period_ms":16.7}}],"frames":[{"source":"surfaceflinger","actual_present_ns":1},{"source":"surfaceflinger","actual_present_ns":20000000},{"source":"surfaceflinger","actual_present_ns":900000000}]}`))
	f.Add([]byte(`{"schema":"perfgate.result/v1","name":"<script>","steps":[{"name":"</svg>\n|x|","host_start_ns":5,"host_end_ns":-5,"cpu":{"intervals":1,"app_pct":1e308}}],"samples":[{"host_ns":0,"cpu":{"user":5,"idle":1}},{"host_ns":1,"cpu":{"user":1,"idle":9}}],"traffic_samples":[{"host_ns":1,"rx_bytes":9},{"host_ns":2,"rx_bytes":1}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var r result.Result
		if json.Unmarshal(data, &r) != nil {
			return
		}
		for _, st := range r.Steps {
			if st == nil {
				return
			}
		}
		rs := []*result.Result{&r}
		budgets := []budget.Limit{{Metric: metrics.FPS, Value: 50, Min: true}, {Metric: metrics.FrameTimeP95, Value: 16}, {Metric: metrics.PSSMax, Value: 1}}
		var h, m, b bytes.Buffer
		if err := report.WriteHTML(&h, rs, report.Options{Budgets: budgets}); err != nil {
			t.Fatal(err)
		}
		if err := report.WriteMarkdown(&m, rs, report.Options{Budgets: budgets}); err != nil {
			t.Fatal(err)
		}
		if err := report.WriteBenchstat(&b, rs); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(h.String(), "<script") {
			t.Fatal("text from the Result became markup")
		}
		for _, s := range svgRE.FindAllString(h.String(), -1) {
			if err := xml.Unmarshal([]byte(s), new(svgDoc)); err != nil {
				t.Fatalf("chart is not well-formed: %v\n%.300s", err, s)
			}
			if strings.Contains(s, "NaN") || strings.Contains(s, "Inf") {
				t.Fatalf("chart has a non-finite coordinate: %.300s", s)
			}
		}
		for _, line := range strings.Split(b.String(), "\n") {
			if strings.HasPrefix(line, "Benchmark") && len(strings.Fields(line))%2 != 0 {
				t.Fatalf("benchmark line has an odd number of fields: %q", line)
			}
		}
	})
}

package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
)

// onDevice reads the janky-scroll Result as if it ran on another phone
// whose scroll step missed jank deadlines.
func onDevice(t *testing.T, serial, model string, api, jank int) *result.Result {
	t.Helper()
	r, err := result.ReadResult("testdata/janky-scroll.json")
	if err != nil {
		t.Fatal(err)
	}
	r.Device.Serial, r.Device.Model, r.Device.API = serial, model, api
	st := r.Step("scroll")
	st.FrameStats.Jank = jank
	*st.FrameStats.DeadlineMissed = jank
	return r
}

// The Results of one test on three phones come out side by side per
// step, the worst of each metric marked, each phone judged against its own
// model's budgets from a file with budgets per model.
func TestDevicesSideBySide(t *testing.T) {
	results := []*result.Result{
		onDevice(t, "sim-1", "Pixel 8", 34, 1),
		onDevice(t, "sim-2", "Pixel 4a", 30, 9),
		onDevice(t, "sim-3", "Pixel 7", 33, 3),
	}
	f, err := budget.ParseBudgetFile("feed.budget.json", []byte(`{"schema": "perfgate.budget/v1",
  "steps": {"scroll": {"jank": {"max": 4, "unit": "frames"}}},
  "models": {"Google Pixel 4a": {"steps": {"scroll": {"jank": {"max": 10, "unit": "frames"}}}},
             "Google Pixel 7": {"steps": {"scroll": {"jank": {"max": 2, "unit": "frames"}}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	opts := report.Options{BudgetFile: f}
	var md bytes.Buffer
	if err := report.WriteMarkdown(&md, results, opts); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	for _, want := range []string{
		"## perfgate report: ❌ 1 of 3 sessions failed",
		"### Devices side by side",
		"#### TestJankyScroll · `scroll`\n\n| metric | Google Pixel 8 (API 34) sim-1 | Google Pixel 4a (API 30) sim-2 | Google Pixel 7 (API 33) sim-3 |",
		// Pixel 8: shared budget 4; Pixel 4a: its own 10; Pixel 7: its own 2.
		"| jank (frames) | 1 ✅ | **9** 🔻 ✅ | 3 ❌ |",
		"#### TestJankyScroll · `settle`",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
	// Equal figures mark no device.
	if i := strings.Index(out, "| fps (fps) |"); i < 0 || strings.Contains(out[i:i+strings.Index(out[i:], "\n")], "🔻") {
		t.Errorf("fps is the same on every device, yet a worst one is marked:\n%s", out)
	}
	var html bytes.Buffer
	if err := report.WriteHTML(&html, results, opts); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), "<h2>Devices side by side</h2>") || !strings.Contains(html.String(), `<strong class="fail">9 ▼</strong>`) {
		t.Errorf("HTML lacks the devices table")
	}
	for i, want := range []bool{false, false, true} {
		if got := report.Failed(results[i], opts.BudgetsFor(results[i])); got != want {
			t.Errorf("%s failed %v, want %v", results[i].Device.Model, got, want)
		}
	}

	// One device: no table.
	md.Reset()
	if err := report.WriteMarkdown(&md, results[:1], opts); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "Devices side by side") {
		t.Errorf("a table for one device:\n%s", md.String())
	}
}

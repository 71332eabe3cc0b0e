package assert_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/assert"
	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/result"
)

// perModelFile has budgets shared by every model, and the Pixel 7's own.
const perModelFile = `{
  "schema": "perfgate.budget/v1",
  "steps": {
    "scroll": {"jank": {"max": 3, "unit": "frames", "definition": "deadline missed"}}
  },
  "models": {
    "Google Pixel 7": {
      "steps": {
        "scroll": {"jank": {"max": 6, "unit": "frames", "definition": "deadline missed"}}
      }
    }
  }
}
`

// A run is checked against its model's own budgets; a model without its
// own is checked against the shared ones, and told so.
func TestBudgetsPerModel(t *testing.T) {
	p := writeFile(t, t.TempDir(), "feed.budget.json", perModelFile)
	f := &fakeT{}
	if !assert.Budget(f, run("Pixel 7", "14", scrollStep()), p) || len(f.logs) != 0 {
		t.Errorf("jank 5 on a Pixel 7 (its own budget 6): %q %q", f.errs, f.logs)
	}
	f = &fakeT{}
	if assert.Budget(f, run("Pixel 4a", "11", scrollStep()), p) || !strings.Contains(f.text(), "scroll: jank 5 > 3") {
		t.Errorf("jank 5 on a Pixel 4a (shared budget 3): %q", f.errs)
	}
	if want := `perf budget: "Google Pixel 4a" has no budgets of its own in ` + p + ` (it has Google Pixel 7); checking the budgets every other model shares`; len(f.logs) != 1 || f.logs[0] != want {
		t.Errorf("logs %q\nwant %q", f.logs, want)
	}
	file, err := budget.ReadBudgetFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if ls, own := file.LimitsFor(procfs.DeviceFacts{Manufacturer: "Google", Model: "Pixel 7"}); !own || len(ls) != 1 || ls[0].Value != 6 {
		t.Errorf("Pixel 7 limits %v (own %v)", ls, own)
	}
	if ls, own := file.LimitsFor(procfs.DeviceFacts{Model: "Pixel 4a"}); own || len(ls) != 1 || ls[0].Value != 3 {
		t.Errorf("Pixel 4a limits %v (own %v)", ls, own)
	}

	// Without shared budgets a model of its own is needed.
	only := writeFile(t, t.TempDir(), "only.budget.json", `{"schema": "perfgate.budget/v1", "models": {"Google Pixel 7": {"steps": {"scroll": {"jank": {"max": 6, "unit": "frames"}}}}}}`)
	f = &fakeT{}
	if assert.Budget(f, run("Pixel 4a", "11", scrollStep()), only) {
		t.Error("a model without budgets passed")
	}
	if want := `perf budget: "Google Pixel 4a" has no budgets of its own in ` + only + ` (it has Google Pixel 7); run 'go test . -update' on that device to record them`; f.text() != want {
		t.Errorf("got  %q\nwant %q", f.text(), want)
	}
}

// -update on a file with budgets per model records the model it ran on,
// with the metrics the shared budgets name, and leaves the others alone.
func TestRecordBudgetsPerModel(t *testing.T) {
	p := writeFile(t, t.TempDir(), "feed.budget.json", perModelFile)
	t.Setenv(budget.EnvUpdate, "1")
	f := &fakeT{}
	if !assert.Budget(f, run("Pixel 4a", "11", scrollStep()), p) {
		t.Fatalf("record: %q", f.errs)
	}
	file, err := budget.ReadBudgetFile(p)
	if err != nil {
		t.Fatal(err)
	}
	got := file.Models["Google Pixel 4a"]
	if got == nil || len(got.Steps["scroll"]) != 1 || *got.Steps["scroll"]["jank"].Max != 6 {
		t.Fatalf("Pixel 4a budgets %+v", got)
	}
	if *file.Models["Google Pixel 7"].Steps["scroll"]["jank"].Max != 6 || *file.Steps["scroll"]["jank"].Max != 3 {
		t.Errorf("update touched other budgets")
	}
	if len(f.logs) != 1 || !strings.Contains(f.logs[0], `perf budget recorded: scroll: jank ≤ 6 (`+p+`, model "Google Pixel 4a")`) {
		t.Errorf("logs %q", f.logs)
	}
}

// An old file, without models, reads and updates as before: one set of
// budgets for every device.
func TestOldBudgetFileStaysShared(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "example.budget.json"))
	if err != nil {
		t.Fatal(err)
	}
	p := writeFile(t, t.TempDir(), "feed.budget.json", string(b))
	t.Setenv(budget.EnvUpdate, "1")
	f := &fakeT{}
	assert.Budget(f, run("Pixel 4a", "11", scrollStep()), p)
	file, err := budget.ReadBudgetFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if file.Models != nil || file.Steps["scroll"]["jank"] == nil {
		t.Errorf("old file after update: models %v steps %v", file.Models, file.Steps)
	}
	out, _ := os.ReadFile(p)
	if strings.Contains(string(out), "models") {
		t.Errorf("old file gained models:\n%s", out)
	}
}

// A path with {model} is a file per model.
func TestBudgetFilePerModel(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "feed.Google_Pixel_7.budget.json", `{"schema": "perfgate.budget/v1", "steps": {"scroll": {"jank": {"max": 6, "unit": "frames"}}}}`)
	p := filepath.Join(dir, "feed.{model}.budget.json")
	f := &fakeT{}
	if !assert.Budget(f, run("Pixel 7", "14", scrollStep()), p) {
		t.Errorf("Pixel 7 file: %q", f.errs)
	}
	f = &fakeT{}
	if assert.Budget(f, run("Pixel 4a", "11", scrollStep()), p) || !strings.Contains(f.text(), "feed.Google_Pixel_4a.budget.json does not exist (run 'go test . -update' to record it)") {
		t.Errorf("Pixel 4a without a file: %q", f.errs)
	}
	f = &fakeT{}
	if assert.Budget(f, &result.Result{Device: procfs.DeviceFacts{Serial: "emulator-5554"}, Steps: []*result.Step{scrollStep()}}, p) || !strings.Contains(f.text(), `the run's device (device "emulator-5554") has no model name`) {
		t.Errorf("a device without a model: %q", f.errs)
	}
}

func TestBrokenModels(t *testing.T) {
	for in, want := range map[string]string{
		`{"schema": "perfgate.budget/v1", "models": {"": {"steps": {}}}}`:                                 "empty model name",
		`{"schema": "perfgate.budget/v1", "models": {"Pixel 7": {"budgets": {}}}}`:                        `model "Pixel 7": unknown field "budgets" (want steps)`,
		`{"schema": "perfgate.budget/v1", "models": {"Pixel 7": {"steps": {"s": {"fps": {"max": -1}}}}}}`: `model "Pixel 7", step "s", metric "fps": negative limit`,
		`{"schema": "perfgate.budget/v1", "models": []}`:                                                  `"models": want "{"`,
	} {
		_, err := budget.ParseBudgetFile("b.json", []byte(in))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "b.json:") {
			t.Errorf("%s: %v, want %s", in, err, want)
		}
	}
}

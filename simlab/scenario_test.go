package simlab_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/simlab"
)

// A scenario's simulated phone: smooth-scroll by default, a preset by
// name, a workload file relative to the scenario's folder, noise with
// known keys only.
func TestScenarioPhone(t *testing.T) {
	cfg, err := simlab.ScenarioPhone("", 30, []byte(`{"seed": 7, "run_pct": 5}`), ".")
	if err != nil || cfg.Workload.Name != "smooth-scroll" || cfg.API != 30 || cfg.Noise.Seed != 7 || cfg.Noise.RunPct != 5 {
		t.Fatalf("default: %+v, %v", cfg, err)
	}
	if cfg, err := simlab.ScenarioPhone("janky-scroll", 0, nil, "."); err != nil || cfg.Workload.Name != "janky-scroll" {
		t.Errorf("preset: %v, %v", cfg.Workload, err)
	}
	dir, _ := filepath.Abs("../simdevice")
	if _, err := simlab.ScenarioPhone("testdata/workload.json", 0, nil, dir); err != nil {
		t.Errorf("workload file beside the scenario: %v", err)
	}
	for _, c := range []struct {
		workload, noise, want string
	}{
		{"nope", "", `workload "nope": no such preset (have `},
		{"missing.json", "", "missing.json"},
		{"", `{"sead": 7}`, `noise: json: unknown field "sead"`},
	} {
		var noise []byte
		if c.noise != "" {
			noise = []byte(c.noise)
		}
		if _, err := simlab.ScenarioPhone(c.workload, 0, noise, t.TempDir()); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q, noise %s: %v, want %q", c.workload, c.noise, err, c.want)
		}
	}
}

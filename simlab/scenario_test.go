package simlab_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/simdevice"
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

// A scenario file's simulated phone has its workload's app, and only it:
// a file that measures a package the phone lacks fails to start its
// session, as on a real phone (app not installed), rather than measure
// the workload under that name.
func TestScenarioPhoneLacksOtherPackages(t *testing.T) {
	for _, c := range []struct {
		pkg       string
		installed bool
	}{{simdevice.PresetPackage, true}, {"com.example.missing", false}} {
		p, err := simlab.ServeScenarioPhone("smooth-scroll", 0, nil, ".", c.pkg)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		dev, err := adbx.Open(ctx, adbx.Options{Server: p.Server.Addr})
		if err != nil {
			t.Fatal(err)
		}
		s, err := perftest.NewSession(ctx, dev, perftest.Config{Package: c.pkg, WaitForApp: true, ResultFile: "-"})
		if s != nil {
			s.Stop()
		}
		cancel()
		p.Close()
		want := `perftest: app com.example.missing: adbx app uid: app not installed: com.example.missing (not listed by "pm list packages -U com.example.missing")`
		switch {
		case c.installed && err != nil:
			t.Errorf("%s: %v", c.pkg, err)
		case !c.installed && (!errors.Is(err, adbx.ErrAppNotInstalled) || err.Error() != want):
			t.Errorf("%s: %v\nwant %s", c.pkg, err, want)
		}
	}
}

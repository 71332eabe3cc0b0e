package scenario_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/assert"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/scenario"
	"github.com/perfgate/perfgate/simdevice"
)

// slowBind makes the slow-start app spend its cold start in
// bindApplication, most of it in its Application.onCreate, and start
// 200 ms sooner once compiled.
func slowBind(baseline bool) func(*simdevice.Workload) {
	return func(wl *simdevice.Workload) {
		wl.Startup.ColdMs, wl.Startup.FullyDrawnMs = 1200, 1500
		wl.Startup.Cold = simdevice.ColdStart{
			BindApplicationMs: 520,
			Sections:          []simdevice.StartSection{{Name: "com.example.App.onCreate", Ms: 380}, {Name: "com.example.Db.open", Ms: 60, IOMs: 40}},
			CompiledSavingMs:  200,
			BaselineProfile:   baseline,
		}
	}
}

// A step's compilation mode is applied before its launches and the app's
// state restored after them: compiled in full, the phone's cold start is
// its saving sooner; none and partial without a baseline profile leave it
// as slow, partial with one makes it as fast, and each start names the
// filter it ran under. What the phone refused is noted.
func TestCompilationModes(t *testing.T) {
	t.Parallel()
	const refused = "cmd package compile --reset com.perfgate.demo refused (exit 255)"
	for _, tc := range []struct {
		mode         scenario.Compilation
		baseline     bool
		root         bool
		ms           float64
		filter       string
		note         string
		after, since string // the app's state after the step
	}{
		{scenario.CompileFull, false, false, 1000, "speed", refused, "verify", "cmdline"},
		{scenario.CompileFull, false, true, 1000, "speed", "", "verify", "install"},
		{scenario.CompileNone, false, false, 1200, "verify", refused, "verify", "cmdline"},
		{scenario.CompileNone, false, true, 1200, "verify", "", "verify", "install"},
		{scenario.CompilePartial, false, true, 1200, "speed-profile", "BASELINE_PROFILE_NOT_FOUND", "verify", "install"},
		{scenario.CompilePartial, true, true, 1000, "speed-profile", "", "verify", "install"},
		{scenario.CompileAsIs, true, false, 1200, "verify", "", "verify", "install"},
	} {
		t.Run(fmt.Sprintf("%s-baseline=%v-root=%v", tc.mode, tc.baseline, tc.root), func(t *testing.T) {
			simtest.Bubble(t, func(t *testing.T) {
				p := newPhoneConfig(t, "slow-start", slowBind(tc.baseline), simdevice.Config{Root: tc.root})
				sc := scenario.Start(t, p.dev, p.pkg, perftest.WithResultsDir(t.TempDir()))
				sc.Step("launch", scenario.LaunchWith(scenario.Cold, 2, scenario.StartupOptions{Compilation: tc.mode}))
				r := sc.Stop()
				su := r.Step("launch").Startup
				if su == nil || su.InitialDisplayMs != tc.ms || su.Compilation != string(tc.mode) {
					t.Fatalf("startup %+v, want %v ms", su, tc.ms)
				}
				for _, it := range su.Iterations {
					if it.Compilation != tc.filter {
						t.Errorf("a start ran under %q, want %q", it.Compilation, tc.filter)
					}
				}
				for _, ts := range p.sim.World().Truth().Startups {
					if ts.Compilation != tc.filter || float64(ts.Displayed.Milliseconds()) != tc.ms {
						t.Errorf("the phone started under %q in %v", ts.Compilation, ts.Displayed)
					}
				}
				// The definition a failing line quotes names the mode.
				ft := &fakeT{}
				assert.MaxStartup(ft, r.Step("launch"), 900*time.Millisecond)
				def := "cold start, am start -W TotalTime, median of 2)"
				if tc.mode != scenario.CompileAsIs {
					def = "cold start, am start -W TotalTime, compilation " + string(tc.mode) + ", median of 2)"
				}
				if len(ft.errs) != 1 || !strings.HasSuffix(ft.errs[0], def) {
					t.Errorf("failing line %q, want it to end %q", ft.errs, def)
				}
				notes := strings.Join(su.Notes, "\n")
				if tc.note != "" && !strings.Contains(notes, tc.note) {
					t.Errorf("notes %q lack %q", notes, tc.note)
				}
				if !tc.root && !strings.Contains(notes, "drop_caches needs root") {
					t.Errorf("notes %q do not say the page cache was kept", notes)
				}
				// Left as installed: reset where the shell may, else
				// compiled with the filter it had.
				out := shell(t, p, "dumpsys package "+p.pkg)
				f, why, ok := scenario.ParseDexoptState([]byte(out))
				if !ok || f != tc.after || why != tc.since {
					t.Errorf("after the step the app is %q (%q), want %s (%s): %s", f, why, tc.after, tc.since, out)
				}
			})
		})
	}
}

// shell runs cmd on the phone and returns its output.
func shell(t *testing.T, p *phone, cmd string) string {
	t.Helper()
	r, err := p.dev.Shell(t.Context(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	return string(r.Stdout)
}

// newPhoneConfig is newPhone on the server endpoint with cfg's settings
// (Root, API) besides the workload.
func newPhoneConfig(t *testing.T, preset string, tweak func(*simdevice.Workload), cfg simdevice.Config) *phone {
	t.Helper()
	wl, err := simdevice.Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	tweak(wl)
	cfg.Workload, cfg.RefreshHz = wl, 60
	sim, err := simdevice.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	dev, drop := server.open(t, sim)
	return &phone{sim: sim, dev: dev, drop: drop, pkg: wl.Package}
}

// An app the phone had compiled with speed is compiled with speed again
// after a step that ran it uncompiled: the restore waits out the phone's
// compile (12 s for speed), longer than a device call's default deadline.
func TestCompilationRestoresSpeed(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		p := newPhone(t, server, "slow-start", slowBind(false))
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		if r, err := p.dev.Shell(ctx, "cmd package compile -m speed -f "+p.pkg); err != nil || !strings.Contains(string(r.Stdout), "Success") {
			t.Fatalf("compile: %v %q", err, r.Stdout)
		}
		sc := scenario.Start(t, p.dev, p.pkg, perftest.WithResultsDir(t.TempDir()))
		sc.Step("launch", scenario.LaunchWith(scenario.Cold, 1, scenario.StartupOptions{Compilation: scenario.CompileNone}))
		r := sc.Stop()
		if su := r.Step("launch").Startup; su == nil || su.InitialDisplayMs != 1200 || su.Iterations[0].Compilation != "verify" {
			t.Fatalf("startup %+v, want 1200 ms under verify", su)
		}
		f, why, ok := scenario.ParseDexoptState([]byte(shell(t, p, "dumpsys package "+p.pkg)))
		if !ok || f != "speed" || why != "cmdline" {
			t.Errorf("after the step the app is %q (%q), want speed (cmdline) as before it", f, why)
		}
	})
}

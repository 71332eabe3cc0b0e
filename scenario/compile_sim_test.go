package scenario_test

import (
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
			Sections:          []simdevice.StartSection{{Name: "com.example.App.onCreate", Ms: 380}, {Name: "com.example.Db.open", Ms: 60}},
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
	for _, tc := range []struct {
		mode     scenario.Compilation
		baseline bool
		ms       float64
		filter   string
		note     string
	}{
		{scenario.CompileFull, false, 1000, "speed", ""},
		{scenario.CompileNone, false, 1200, "verify", ""},
		{scenario.CompilePartial, false, 1200, "speed-profile", "BASELINE_PROFILE_NOT_FOUND"},
		{scenario.CompilePartial, true, 1000, "speed-profile", ""},
		{scenario.CompileAsIs, true, 1200, "verify", ""},
	} {
		t.Run(fmt.Sprintf("%s-baseline=%v", tc.mode, tc.baseline), func(t *testing.T) {
			simtest.Bubble(t, func(t *testing.T) {
				p := newPhone(t, server, "slow-start", slowBind(tc.baseline))
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
				if !strings.Contains(notes, "drop_caches needs root") {
					t.Errorf("notes %q do not say the page cache was kept", notes)
				}
				// Left as installed.
				out := shell(t, p, "dumpsys package "+p.pkg)
				f, why, ok := scenario.ParseDexoptState([]byte(out))
				if !ok || f != "verify" || why != "install" {
					t.Errorf("after the step the app is %q (%q), want verify (install): %s", f, why, out)
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

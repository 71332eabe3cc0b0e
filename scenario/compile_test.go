package scenario_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/scenario"
)

// The "Dexopt state" section `dumpsys package <pkg>` ends with before
// Android 14 (PackageDexOptimizer's dump), and what is not one.
func TestParseDexoptState(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in             string
		filter, reason string
		ok             bool
	}{
		{"Packages:\n  Package [com.example] (3c9a1e7):\n\nDexopt state:\n  [com.example]\n    path: /data/app/~~x==/com.example-y==/base.apk\n      arm64: [status=speed-profile] [reason=install-dm]\n", "speed-profile", "install-dm", true},
		{"Dexopt state:\r\n  [com.example]\r\n    path: /data/app/base.apk\r\n      arm: [status=verify] [reason=cmdline]\r\n", "verify", "cmdline", true},
		{"Dexopt state:\n  Unable to find package\n", "", "", false},
		{"arm64: [status=speed] [reason=cmdline]\n", "", "", false}, // no section
		{"Dexopt state:\n  [com.example]\n      arm64: [status=speed; rm -rf /] [reason=cmdline]\n", "", "", false},
	} {
		f, why, ok := scenario.ParseDexoptState([]byte(tc.in))
		if f != tc.filter || why != tc.reason || ok != tc.ok {
			t.Errorf("ParseDexoptState(%q) = %q, %q, %v; want %q, %q, %v", tc.in, f, why, ok, tc.filter, tc.reason, tc.ok)
		}
	}
}

// Whatever the phone prints, a filter read from it is one a shell command
// may carry unquoted.
func FuzzParseDexoptState(f *testing.F) {
	f.Add([]byte("Dexopt state:\n  [p]\n    path: /a.apk\n      arm64: [status=speed] [reason=cmdline]\n"))
	f.Add([]byte("Dexopt state:\n  Unable to find package\n"))
	safe := regexp.MustCompile(`^[a-z-]+$`)
	f.Fuzz(func(t *testing.T, b []byte) {
		filter, reason, ok := scenario.ParseDexoptState(b)
		if ok && (!safe.MatchString(filter) || reason == "") {
			t.Errorf("filter %q reason %q", filter, reason)
		}
	})
}

// A scenario file's launch names its compilation mode; a mode it does not
// know is an error that quotes it.
func TestParseFileCompilation(t *testing.T) {
	t.Parallel()
	sc, err := scenario.ParseFile("s.json", []byte(`{"package": "com.x", "steps": [{"name": "a", "actions": [{"action": "launch", "compilation": "full", "iterations": 2}]}]}`), scenario.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := scenario.LaunchWith(scenario.Cold, 2, scenario.StartupOptions{Compilation: scenario.CompileFull}).String()
	if got := sc.Steps[0].Actions[0].String(); got != want || want != "launch cold ×2 compilation full" {
		t.Errorf("action %q, want %q", got, want)
	}
	_, err = scenario.ParseFile("s.json", []byte(`{"package": "com.x", "steps": [{"name": "a", "actions": [{"action": "launch", "compilation": "speed"}]}]}`), scenario.ParseOptions{})
	if err == nil || !strings.Contains(err.Error(), `compilation "speed": want none, partial or full`) {
		t.Errorf("compilation speed: %v", err)
	}
}

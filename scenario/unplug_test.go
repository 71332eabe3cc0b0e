package scenario_test

import (
	"testing"

	"github.com/perfgate/perfgate/scenario"
)

// "unplug_battery": true in a scenario file unplugs the battery for the
// session it configures; without it the battery is left alone.
func TestParseFileUnplugBattery(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want bool
	}{{`, "unplug_battery": true`, true}, {``, false}} {
		text := `{"package": "com.example.feed"` + tc.key + `, "steps": [{"name": "a", "actions": [{"action": "sleep", "ms": 300}]}]}`
		f, err := scenario.ParseFile("feed.json", []byte(text), scenario.ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Config().Energy.UnplugBattery; got != tc.want || f.UnplugBattery != tc.want {
			t.Errorf("%q: UnplugBattery %v (file %v), want %v", tc.key, got, f.UnplugBattery, tc.want)
		}
	}
}

// "heap_dumps": true in a scenario file dumps the app's heap around the
// session's steps; without it no dump is taken.
func TestParseFileHeapDumps(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want bool
	}{{`, "heap_dumps": true`, true}, {`, "heap_dumps": false`, false}, {``, false}} {
		text := `{"package": "com.example.feed"` + tc.key + `, "steps": [{"name": "a", "actions": [{"action": "sleep", "ms": 300}]}]}`
		f, err := scenario.ParseFile("feed.json", []byte(text), scenario.ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Config().HeapDumps; got != tc.want || f.HeapDumps != tc.want {
			t.Errorf("%q: HeapDumps %v (file %v), want %v", tc.key, got, f.HeapDumps, tc.want)
		}
	}
}

package scenario_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/scenario"
	"github.com/perfgate/perfgate/trace/sections"
)

// sectionsFile is a scenario file whose trace names sections as given.
func sectionsFile(list string) string {
	return `{"package": "com.example.feed",
  "steps": [ { "name": "scroll", "actions": [ { "action": "swipe", "direction": "up" } ] } ],
  "trace": { "sections": ` + list + ` } }`
}

// A scenario file's trace names the sections each step measures, by name
// or as an object; the trace is on. A bad one fails naming the file and
// quoting what is wrong.
func TestParseFileSections(t *testing.T) {
	f, err := scenario.ParseFile("feed.json", []byte(sectionsFile(`["feed:bind", {"name": "JIT %", "main_thread": true}]`)), scenario.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []sections.Spec{{Name: "feed:bind"}, {Name: "JIT %", MainThread: true}}
	if cfg := f.Config(); cfg.Trace == nil || !reflect.DeepEqual(cfg.Trace.Sections, want) {
		t.Fatalf("trace %+v, want sections %+v", cfg.Trace, want)
	}
	for list, quote := range map[string]string{
		`["feed:bind", "feed:bind"]`:      `"feed:bind" given twice`,
		`[""]`:                            "empty section name",
		`["a<b"]`:                         `"a<b"`,
		`[{"name": "x", "thread": "io"}]`: `unknown field "thread"`,
		`[7]`:                             "want a section's name",
	} {
		_, err := scenario.ParseFile("feed.json", []byte(sectionsFile(list)), scenario.ParseOptions{})
		if err == nil || !strings.HasPrefix(err.Error(), "feed.json") || !strings.Contains(err.Error(), quote) {
			t.Errorf("%s: %v, want feed.json … %s", list, err, quote)
		}
	}
}

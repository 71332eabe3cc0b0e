package perftest

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestTraceConfigDefaults(t *testing.T) {
	tc, err := TraceConfig{}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if tc.BufferKB != DefaultTraceBufferKB || tc.MaxDuration != DefaultTraceMaxDuration || !slices.Equal(tc.Categories, DefaultTraceCategories) {
		t.Errorf("defaults %+v", tc)
	}
	for _, bad := range []TraceConfig{
		{BufferKB: 1023}, {BufferKB: 1<<20 + 1}, {MaxDuration: time.Millisecond}, {MaxDuration: 25 * time.Hour},
		{Categories: []string{"gfx", "Gfx"}}, {Categories: []string{"view'"}}, {Categories: []string{""}},
		{Categories: []string{strings.Repeat("a", 33)}}, {Categories: []string{"am", "am"}},
	} {
		if err := bad.Validate(); err == nil || !strings.HasPrefix(err.Error(), "perftest: trace: ") {
			t.Errorf("%+v: %v", bad, err)
		}
	}
	if _, err := (Config{Package: "com.example", Trace: &TraceConfig{BufferKB: 5}}).withDefaults(); err == nil {
		t.Error("Config with a bad trace validates")
	}
}

// With ResultFile "-" the trace goes where TraceFile says, and its
// folder is the session's; a TraceFile that is no trace's name is an
// error quoting it.
func TestTraceFile(t *testing.T) {
	c, err := Config{Package: "com.example", ResultFile: "-", TraceFile: "out/result-2.perfetto-trace"}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if c.resultsDir() != "out" || c.fixedFile() != "out/result-2.json" {
		t.Errorf("results folder %q, files named after %q", c.resultsDir(), c.fixedFile())
	}
	if _, err := (Config{Package: "com.example", ResultFile: "-", TraceFile: "t.json"}).withDefaults(); err == nil || !strings.Contains(err.Error(), `"t.json"`) {
		t.Errorf("TraceFile t.json: %v", err)
	}
}

package sections_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/fixtures"
	"github.com/perfgate/perfgate/trace"
	"github.com/perfgate/perfgate/trace/sections"
)

const nowInAndroid = "perfetto/nowinandroid_pixel7pro_cheetah_android13_frametimeline_ftrace.perfetto-trace"

// pyStats is what testdata/sections.py prints for one spec.
type pyStats struct {
	Count int   `json:"count"`
	First int64 `json:"first"`
	Min   int64 `json:"min"`
	Max   int64 `json:"max"`
	Sum   int64 `json:"sum"`
}

// On the real Android 13 trace of Now in Android, the sections perfgate
// measures equal those testdata/sections.py computes with a protobuf walk
// of its own: for exact names and patterns, any thread and the main
// thread alone, async sections ("Sync", begun and ended on two threads),
// over the whole trace and over a window cut through it.
func TestFixtureMatchesIndependentReading(t *testing.T) {
	path := fixtures.Path(t, nowInAndroid)
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: the independent reading of the trace needs it")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var c sections.Collector
	a, err := trace.Analyze(f, trace.Options{Package: "com.google.samples.apps.nowinandroid.demo", Marker: c.Marker})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.AppPIDs) != 1 || a.TraceClock != trace.Boottime {
		t.Fatalf("app pids %v, trace clock %v: the script reads one process on boottime", a.AppPIDs, a.TraceClock)
	}
	ss, unended := sections.Slices(&c, a.AppPIDs, func(ns int64) (int64, bool) { v, err := a.Convert(ns, trace.Boottime); return v, err == nil })
	if len(ss) < 1000 || c.Malformed != 0 {
		t.Fatalf("%d sections, %d unended, %d malformed markers", len(ss), unended, c.Malformed)
	}
	specs := []string{"Recomposer:recompose", "Compose:recompose", "AndroidOwner:measureAndLayout",
		"Compose:%", "main:Compose:%", "%asFtsEntity", "main:PopulatedNewsResource_asFtsEntity",
		"compose:lazylist:prefetch:%", "fire-%", "%:%:%", "Sync", "%", "main:%", "no such section"}
	third := (a.End - a.Start) / 3
	for _, w := range [][2]int64{{a.Start, a.End + 1}, {a.Start + third, a.End - third}} {
		args := append([]string{"testdata/sections.py", path, strconv.Itoa(int(a.AppPIDs[0])), strconv.FormatInt(w[0], 10), strconv.FormatInt(w[1], 10)}, specs...)
		var out bytes.Buffer
		cmd := exec.Command(py, args...)
		cmd.Stdout, cmd.Stderr = &out, os.Stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("python3 %s: %v", strings.Join(args, " "), err)
		}
		var want map[string]pyStats
		if err := json.Unmarshal(out.Bytes(), &want); err != nil {
			t.Fatalf("sections.py printed %q: %v", out.String(), err)
		}
		for _, s := range specs {
			name, main := strings.CutPrefix(s, "main:")
			got := sections.Measure(ss, sections.Spec{Name: name, MainThread: main}, w[0], w[1])
			wt := want[s]
			if got.Count != wt.Count || got.Count > 0 && (got.FirstNs != wt.First || got.MinNs != wt.Min || got.MaxNs != wt.Max || got.SumNs != wt.Sum) {
				t.Errorf("%s in [%d, %d): perfgate %+v, sections.py %+v", s, w[0], w[1], got, wt)
			}
			// Room's entity conversion runs off the main thread only;
			// WorkManager's Sync is async, on no thread.
			none := s == "no such section" || s == "main:PopulatedNewsResource_asFtsEntity"
			if w[0] == a.Start && none != (got.Count == 0) {
				t.Errorf("%s: %d sections in the whole trace", s, got.Count)
			}
		}
	}
}

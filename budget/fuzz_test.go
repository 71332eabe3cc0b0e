package budget_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/internal/excerpt"
	"github.com/perfgate/perfgate/metrics"
)

// The budget file parser never panics, its errors quote a bounded excerpt
// of the file however long its lines, and what it accepts survives a
// rewrite: the entries it read are the entries it reads back.
func FuzzParseBudgetFile(f *testing.F) {
	f.Add([]byte(`{"schema": "perfgate.budget/v1", "steps": {"scroll": {"jank": {"max": 3, "unit": "frames"}, "fps": {"min": 50, "unit": "fps"}}}}`))
	f.Add([]byte(`{"schema":"perfgate.budget/v1","steps":{"s":{"fps":{"min":1,"unit":"fps","baseline":{"values":[1,2],"device":"d","android":"14","api":34,"recorded":"2026-01-01T00:00:00Z"}}}}}`))
	f.Add([]byte(`{"schema":"perfgate.budget/v1","steps":{"":{}}}`))
	f.Add([]byte("{\n\"steps\": {\"a\": {\"jank\": {\"max\": -1}}}}"))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"schema":"perfgate.budget/v1","steps":{"s":{"jank":{"max":3},"jank":{"max":300}}}}`))
	f.Add([]byte(`{"schema":"perfgate.budget/v1","steps":{},"models":{"Google Pixel 7":{"steps":{"scroll":{"jank":{"max":6}}}}}}`))
	f.Add([]byte(`{"schema":"perfgate.budget/v1","steps":{"s":{"jank":{"max":3,"unit":"` + strings.Repeat("u", 3000) + `","min":1}}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := budget.ParseBudgetFile("fuzz.json", b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.json:") {
				t.Fatalf("error does not name the file and line: %v", err)
			}
			if cerr := excerpt.Check(err.Error()); cerr != nil {
				t.Fatalf("%v, for %d bytes of input", cerr, len(b))
			}
			return
		}
		for step, es := range file.Steps {
			for m, e := range es {
				if !metrics.Name(m).Known() || e.Line < 1 {
					t.Fatalf("accepted %s/%s: %+v", step, m, e)
				}
			}
		}
	})
}

func FuzzParseLimit(f *testing.F) {
	for _, s := range []string{"jank<=3", "scroll:fps>=55", "frame_time_p95 <= 16.7", "a:b:c<1", ":x<1", "jank=3", "x<=NaN", "x>=1e309", "<=", "x<=-0", strings.Repeat("s", 5000) + ":x<=" + strings.Repeat("9", 5000) + "z",
		strings.Repeat("\xff", 500) + "<=1", "jank<=" + strings.Repeat("\xff", 500), "s" + strings.Repeat("\xfe", 300) + ":fps>=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := budget.ParseLimit(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "perf budget ") {
				t.Fatalf("error %q does not name the layer", err)
			}
			// At most excerpt.Max bytes of the spec quoted, however it
			// is made (invalid UTF-8 quotes four bytes a byte).
			if cerr := excerpt.Check(err.Error()); cerr != nil {
				t.Fatalf("%v, for a %d-byte spec", cerr, len(s))
			}
			return
		}
		if !b.Metric.Known() || math.IsNaN(b.Value) || math.IsInf(b.Value, 0) {
			t.Fatalf("%q parsed to an unusable budget %+v", s, b)
		}
		// What a budget prints parses back to the same budget.
		spec := string(b.Metric) + "<=" + strconvG(b.Value)
		if b.Min {
			spec = string(b.Metric) + ">=" + strconvG(b.Value)
		}
		if b.Step != "" {
			spec = b.Step + ":" + spec
		}
		back, err := budget.ParseLimit(spec)
		if err != nil || back != b {
			t.Fatalf("%q → %+v → %q → %+v, %v", s, b, spec, back, err)
		}
	})
}

func strconvG(v float64) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A bad budget spec quotes a bounded excerpt of itself, however long.
func TestParseLimitLongSpec(t *testing.T) {
	long := strings.Repeat("9", 1<<20)
	for _, spec := range []string{"jank<=" + long + "x", "jank" + long, long + " x<=1", ":" + long + "<=1"} {
		_, err := budget.ParseLimit(spec)
		if err == nil || len(err.Error()) > 1000 || !strings.Contains(err.Error(), "bytes)") {
			t.Errorf("%d-byte error: %.300v", len(fmt.Sprint(err)), err)
		}
	}
}

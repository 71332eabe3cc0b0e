package assert_test

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/assert"
)

// The budget file parser never panics, its errors quote a bounded excerpt
// of the file however long its lines, and what it accepts survives a
// rewrite: the entries it read are the entries it reads back.
func FuzzParseBudgetFile(f *testing.F) {
	f.Add([]byte(goodFile))
	f.Add([]byte(`{"schema":"perfgate.budget/v1","steps":{"s":{"fps":{"min":1,"unit":"fps","baseline":{"values":[1,2],"device":"d","android":"14","api":34,"recorded":"2026-01-01T00:00:00Z"}}}}}`))
	f.Add([]byte(`{"schema":"perfgate.budget/v1","steps":{"":{}}}`))
	f.Add([]byte("{\n\"steps\": {\"a\": {\"jank\": {\"max\": -1}}}}"))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"schema":"perfgate.budget/v1","steps":{"s":{"jank":{"max":3},"jank":{"max":300}}}}`))
	f.Add([]byte(`{"schema":"perfgate.budget/v1","steps":{"s":{"jank":{"max":3,"unit":"` + strings.Repeat("u", 3000) + `","min":1}}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := assert.ParseBudgetFile("fuzz.json", b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.json:") {
				t.Fatalf("error does not name the file and line: %v", err)
			}
			if len(err.Error()) > 2000 {
				t.Fatalf("a %d-byte error for %d bytes of input", len(err.Error()), len(b))
			}
			return
		}
		for step, es := range file.Steps {
			for m, e := range es {
				if !assert.KnownMetric(m) || e.Line < 1 {
					t.Fatalf("accepted %s/%s: %+v", step, m, e)
				}
			}
		}
	})
}

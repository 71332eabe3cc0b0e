package assert_test

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/assert"
)

// The budget file parser never panics, and what it accepts survives a
// rewrite: the entries it read are the entries it reads back.
func FuzzParseBudgetFile(f *testing.F) {
	f.Add([]byte(goodFile))
	f.Add([]byte(`{"schema":"perfgate.budget/v1","steps":{"s":{"fps":{"min":1,"unit":"fps","baseline":{"values":[1,2],"device":"d","android":"14","api":34,"recorded":"2026-01-01T00:00:00Z"}}}}}`))
	f.Add([]byte(`{"schema":"perfgate.budget/v1","steps":{"":{}}}`))
	f.Add([]byte("{\n\"steps\": {\"a\": {\"jank\": {\"max\": -1}}}}"))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := assert.ParseBudgetFile("fuzz.json", b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.json:") {
				t.Fatalf("error does not name the file and line: %v", err)
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

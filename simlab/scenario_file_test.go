package simlab_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/simlab"
)

// A bad "simulated" value is quoted in a bounded excerpt, however long
// its line (package scenario's tests cover the rest of the file).
func TestParseScenarioFileLongValues(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("x", 1<<20)
	for _, text := range []string{
		`{"package": "com.x", "simulated": {"workload": "` + huge + `"}, "steps": []}`,
		`{"package": "com.x", "simulated": {"workload": "smooth-scroll", "noise": {"` + huge + `": 1}}, "steps": []}`,
	} {
		_, err := simlab.ParseScenarioFile("feed.json", []byte(text))
		if err == nil || len(err.Error()) > 1000 || !strings.Contains(err.Error(), "bytes)") || !strings.HasPrefix(err.Error(), "feed.json") {
			t.Errorf("%d-byte error: %.300v", len(fmt.Sprint(err)), err)
		}
	}
}

package perftest

import (
	"path/filepath"
	"testing"

	"github.com/perfgate/perfgate/internal/testenv"
)

// PERFGATE_RESULTS=try/res names one folder at the module root, as
// PERFGATE_HISTORY names one file there: `go test ./example_test/` runs in
// example_test/, and its Results go to ./try/res, not
// ./example_test/try/res. A Config's own folder is taken as given.
func TestResultsDirFromModuleRoot(t *testing.T) {
	mod := testenv.InModulePackage(t) // where go test runs the package's tests
	t.Setenv("PERFGATE_RESULTS", "try/res")
	if got, want := (Config{}).resultsDir(), filepath.Join(mod, "try", "res"); got != want {
		t.Errorf("PERFGATE_RESULTS=try/res: Results in %s, want %s", got, want)
	}
	if got := (Config{ResultsDir: "mine"}).resultsDir(); got != "mine" {
		t.Errorf("Config.ResultsDir mine: Results in %s", got)
	}
}

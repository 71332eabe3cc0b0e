package envpath

import (
	"path/filepath"
	"testing"

	"github.com/perfgate/perfgate/internal/testenv"
)

// A relative path in a variable is taken from the module root, wherever
// below it the process runs; an absolute one is taken as given; outside a
// module, the working directory.
func TestDirFromModuleRoot(t *testing.T) {
	mod := testenv.InModulePackage(t) // where go test runs the package's tests
	for v, want := range map[string]string{"try/res": filepath.Join(mod, "try", "res"), " /abs/res ": "/abs/res", "": ""} {
		t.Setenv("PERFGATE_TEST_DIR", v)
		if got := Dir("PERFGATE_TEST_DIR"); got != want {
			t.Errorf("PERFGATE_TEST_DIR=%q reads as %q, want %q", v, got, want)
		}
	}
	if got := FromModule("res", string(filepath.Separator)); got != filepath.Join(string(filepath.Separator), "res") {
		t.Errorf("outside a module: %s", got)
	}
}

package history

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfgate/perfgate/internal/testenv"
	resultpkg "github.com/perfgate/perfgate/result"
)

// A relative PERFGATE_HISTORY names one file at the module root, whichever
// package's folder `go test` runs a session in, and the same file perfgate
// history reads from anywhere in the module; a -history flag, an absolute
// path and a PostgreSQL DSN are taken as given.
func TestEnvHistoryFromModuleRoot(t *testing.T) {
	mod := testenv.InModulePackage(t) // where go test runs the package's tests
	pkg := filepath.Join(mod, "example_test")
	t.Setenv(resultpkg.EnvHistory, "perf-history.db")
	t.Setenv(EnvCommit, "c1")
	if err := AddFromEnv(context.Background(), result("TestFeed", "Pixel 7", t0, scrollStep("scroll", 18, 5))); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(mod, "perf-history.db")
	if _, err := os.Stat(want); err != nil {
		t.Errorf("the session's history: %v", err)
	}
	if _, err := os.Stat(filepath.Join(pkg, "perf-history.db")); err == nil {
		t.Errorf("the session wrote a history in its package's folder")
	}
	if got := DSN(""); got != want {
		t.Errorf("DSN(\"\") = %s, want %s", got, want)
	}
	for _, dsn := range []string{"flag.db", "/abs/h.db", "postgres://u@h/db", "file:h.db?mode=ro"} {
		if dsn == "flag.db" {
			if got := DSN(dsn); got != dsn {
				t.Errorf("DSN(%q) = %q", dsn, got)
			}
			continue
		}
		t.Setenv(resultpkg.EnvHistory, dsn)
		if got := EnvDSN(); got != dsn {
			t.Errorf("PERFGATE_HISTORY=%s reads as %s", dsn, got)
		}
	}
	// Outside a module, the working directory.
	if got := moduleRelative("h.db", string(filepath.Separator)); got != filepath.Join(string(filepath.Separator), "h.db") {
		t.Errorf("outside a module: %s", got)
	}
}

package history

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/perfgate/perfgate/internal/envpath"
	resultpkg "github.com/perfgate/perfgate/result"
)

// EnvDSN is $PERFGATE_HISTORY (resultpkg.EnvHistory), "" when unset. A
// relative SQLite file name in it is taken from the root of the Go module
// the working directory is in (the nearest folder above it holding
// go.mod), else from the working directory: `go test ./...` runs each
// package's tests in the package's folder, so PERFGATE_HISTORY=h.db would
// otherwise be a file per package, and not the h.db perfgate history
// reads at the module root. Every session's Reporter and every perfgate
// command reads the variable so, as they read PERFGATE_RESULTS and
// PERFGATE_REPORT; a -history flag is a path as given.
func EnvDSN() string {
	dsn := strings.TrimSpace(os.Getenv(resultpkg.EnvHistory))
	wd, err := os.Getwd()
	if dsn == "" || err != nil {
		return dsn
	}
	return moduleRelative(dsn, wd)
}

// moduleRelative is dsn with a relative SQLite path in it taken from the
// module root above wd (ModuleRoot); a PostgreSQL DSN, an absolute path
// and a file: URI are left as they are.
func moduleRelative(dsn, wd string) string {
	if isPostgres(dsn) || strings.HasPrefix(dsn, "file:") {
		return dsn
	}
	prefix := ""
	path := dsn
	if p, ok := strings.CutPrefix(dsn, "sqlite:"); ok {
		prefix, path = "sqlite:", p
	}
	if filepath.IsAbs(path) || path == "" {
		return dsn
	}
	return prefix + envpath.FromModule(path, wd)
}

// ModuleRoot is the nearest folder at or above dir that holds a go.mod,
// else dir.
func ModuleRoot(dir string) string { return envpath.ModuleRoot(dir) }

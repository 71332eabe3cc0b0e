// Package envpath reads the folders and files perfgate's environment
// variables name (PERFGATE_RESULTS, PERFGATE_REPORT, PERFGATE_HISTORY) as
// one place per module: `go test ./...` runs each package's tests in the
// package's folder, so a relative path would otherwise be a folder per
// package, and not the one the perfgate commands read at the module root.
package envpath

import (
	"os"
	"path/filepath"
	"strings"
)

// Dir is the path the environment variable name holds, "" when unset or
// blank. A relative path is taken from the root of the Go module the
// working directory is in (FromModule).
func Dir(name string) string {
	p := strings.TrimSpace(os.Getenv(name))
	wd, err := os.Getwd()
	if p == "" || err != nil {
		return p
	}
	return FromModule(p, wd)
}

// FromModule is path taken from the module root above wd (ModuleRoot)
// when it is relative, else path as it is.
func FromModule(path, wd string) string {
	if filepath.IsAbs(path) || path == "" {
		return path
	}
	return filepath.Join(ModuleRoot(wd), path)
}

// ModuleRoot is the nearest folder at or above dir that holds a go.mod,
// else dir.
func ModuleRoot(dir string) string {
	for d := dir; ; {
		if st, err := os.Stat(filepath.Join(d, "go.mod")); err == nil && !st.IsDir() {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return dir
		}
		d = up
	}
}

package testenv

import (
	"os"
	"path/filepath"
)

// ModuleTB is the part of testing.TB InModulePackage uses.
type ModuleTB interface {
	Helper()
	TempDir() string
	Chdir(dir string)
	Fatalf(format string, args ...any)
}

// InModulePackage makes a Go module in a temporary folder and runs the
// test in its package folder example_test/, where `go test` runs that
// package's tests; it returns the module's root.
func InModulePackage(t ModuleTB) string {
	t.Helper()
	mod := t.TempDir()
	pkg := filepath.Join(mod, "example_test")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatalf("%v", err)
	}
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/app\n"), 0o644); err != nil {
		t.Fatalf("%v", err)
	}
	t.Chdir(pkg)
	return mod
}

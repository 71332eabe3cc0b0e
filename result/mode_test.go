package result_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/perfgate/perfgate/result"
)

// A Result written at a path of the caller's (`perfgate record -out`) has
// mode 0644, as the Results of a results folder have, not the 0600 of the
// temporary file it is written through.
func TestWriteFileMode(t *testing.T) {
	for _, write := range []struct {
		name string
		do   func(r *result.Result, dir string) (string, error)
	}{
		{"WriteFile", func(r *result.Result, dir string) (string, error) {
			p := filepath.Join(dir, "out.json")
			return p, r.WriteFile(p)
		}},
		{"WriteInDir", func(r *result.Result, dir string) (string, error) {
			err := r.WriteInDir(dir, "TestMode")
			return r.Path, err
		}},
	} {
		t.Run(write.name, func(t *testing.T) {
			r := &result.Result{Name: "TestMode"}
			p, err := write.do(r, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o644 {
				t.Errorf("%s: mode %v, want -rw-r--r--", p, fi.Mode().Perm())
			}
		})
	}
}

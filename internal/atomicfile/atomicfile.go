// Package atomicfile writes files so that a reader never sees half of one:
// a temporary file in the same folder, then a rename.
package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
)

// Write writes b to path through a temporary file beside it and a rename,
// with mode 0644. On error nothing is left behind.
func Write(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(b)
	werr = errors.Join(werr, tmp.Sync(), tmp.Close())
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}

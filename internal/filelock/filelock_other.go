//go:build !unix

package filelock

import (
	"errors"
	"io/fs"
	"os"
)

const staleHint = " (remove the file if that process is gone)"

// try takes the lock once by creating the file exclusively, which never
// follows a link; held reports that it exists.
func try(path string) (unlock func(), held bool, err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	f.Write(stamp())
	f.Close()
	return func() { os.Remove(path) }, false, nil
}

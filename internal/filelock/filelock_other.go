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

// Hold does nothing here: this system has no advisory locks to mark a file
// as in use.
func Hold(path string) (release func(), err error) { return func() {}, nil }

// Held is always false here (see Hold).
func Held(path string) bool { return false }

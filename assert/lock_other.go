//go:build !unix

package assert

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// lockFile creates path exclusively, retrying for up to a minute while
// another process holds it, and returns the function that removes it.
func lockFile(path string) (func(), error) {
	deadline := time.Now().Add(time.Minute)
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) || time.Now().After(deadline) {
			return nil, fmt.Errorf("%w (remove %s if no test is running)", err, path)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

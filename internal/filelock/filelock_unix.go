//go:build unix

package filelock

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

const staleHint = ""

// try takes the lock once: an exclusive flock on the file, which the
// system drops when its holder dies. held reports another holder; neither
// unlock nor held means the file changed under us and try should run again.
func try(path string) (unlock func(), held bool, err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0o644)
	if errors.Is(err, syscall.ELOOP) {
		return nil, false, fmt.Errorf("is a symbolic link; a lock file is never followed (remove it)")
	}
	if err != nil {
		return nil, false, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("is not a regular file (%v); remove it", fi.Mode().Type())
	}
	if err != nil {
		f.Close()
		return nil, false, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, true, nil
		}
		return nil, false, err
	}
	// The last holder removes the file on release: what we locked may no
	// longer be the file at path.
	if now, err := os.Lstat(path); err != nil || !os.SameFile(fi, now) {
		f.Close()
		return nil, false, nil
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt(stamp(), 0)
	}
	return func() {
		os.Remove(path) // before unlocking: a waiter then sees it gone
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, false, nil
}

// Hold takes a shared lock on the file path for as long as this process
// lives (or until release), marking it as in use by a running process;
// Held in another process (or on another open file here) then reports it.
func Hold(path string) (release func(), err error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// Held reports whether a running process holds the file path (see Hold).
// A file that cannot be opened is not held.
func Held(path string) bool {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	return errors.Is(err, syscall.EWOULDBLOCK)
}

// Package filelock serialises processes over a lock file, waiting a bounded
// time for it. The lock file holds who took it (pid, host, program, time),
// so a process that gives up can say who holds the lock. It is never
// followed through a symbolic link, and it is removed when released, so
// nothing stays beside the file it guards.
package filelock

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/perfgate/perfgate/internal/excerpt"
)

// ErrTimeout is wrapped by the error of a Lock that gave up waiting.
var ErrTimeout = errors.New("lock still held")

// EnvTimeout names the variable that changes how long perfgate waits for a
// lock (a Go duration such as "2m"); DefaultTimeout is the wait without it.
const (
	EnvTimeout     = "PERFGATE_LOCK_TIMEOUT"
	DefaultTimeout = 30 * time.Second
)

// Timeout is how long to wait for a lock: $PERFGATE_LOCK_TIMEOUT, else
// DefaultTimeout. A value that is not a positive duration is an error
// naming the variable.
func Timeout() (time.Duration, error) {
	v := os.Getenv(EnvTimeout)
	if v == "" {
		return DefaultTimeout, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s=%s: want a positive duration such as 30s or 2m", EnvTimeout, excerpt.Quote(v))
	}
	return d, nil
}

// Lock takes the lock file path, creating it, waiting at most timeout
// while another process (or another Lock of this one) holds it. The
// returned function releases it and removes the file.
func Lock(path string, timeout time.Duration) (unlock func(), err error) {
	deadline := time.Now().Add(timeout)
	wait := time.Millisecond
	for {
		unlock, held, err := try(path)
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if unlock != nil {
			return unlock, nil
		}
		if !held {
			continue // the last holder removed the file as we took it: again
		}
		if time.Now().After(deadline) {
			who := holder(path)
			if who == "" {
				who = "another process"
			}
			return nil, fmt.Errorf("lock %s: %w by %s after waiting %v%s", path, ErrTimeout, who, timeout, staleHint)
		}
		time.Sleep(wait)
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// stamp is what a lock file says about its holder.
func stamp() []byte {
	host, _ := os.Hostname()
	prog := filepath.Base(os.Args[0])
	return fmt.Appendf(nil, "pid %d on %s (%s) since %s\n", os.Getpid(), host, prog, time.Now().Format(time.RFC3339))
}

// holder reads who holds the lock, at most one bounded line.
func holder(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 200))
	line, _, _ := strings.Cut(string(b), "\n")
	return excerpt.Text(strings.TrimSpace(line))
}

package tracing

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/perfgate/perfgate/result"
)

// The pull's deadline: pullFloor, plus the file's size at pullRate, the
// rate of a slow adb link over Wi-Fi (USB 2 moves 20–40 MiB/s), so that a
// 1 GiB trace gets 19 min 4 s.
const (
	pullFloor = 2 * time.Minute
	pullRate  = 1 << 20 // bytes per second
)

// pullDeadline is how long pulling a file of size bytes may take.
func pullDeadline(size int64) time.Duration {
	size = min(max(size, 0), 1<<40) // a size past 1 TiB is no trace's
	return pullFloor + time.Duration(size/pullRate)*time.Second + time.Duration(size%pullRate)*time.Second/pullRate
}

// pullWhole copies the device file remote into dir under the stem st (nil:
// a stem of its own, base or base.2 …, as Results are named) with
// extension ext, with deadline dl, and returns its path once the copy is
// whole: as long as the device's stat said (size; a negative size is
// unknown and not compared), written to disk (fsync) and renamed into
// place. On error nothing is left in dir.
func (r *Recorder) pullWhole(ctx context.Context, remote string, size int64, dl time.Duration, dir, base, ext string, st *result.Stem) (string, error) {
	cmd := "adb pull " + remote
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("%s: %w", cmd, err)
	}
	tmp, err := os.CreateTemp(dir, "."+base+".*"+ext)
	if err != nil {
		return "", fmt.Errorf("%s: %w", cmd, err)
	}
	pctx, cancel := context.WithTimeout(ctx, dl)
	perr := r.env.Pull(pctx, remote, tmp)
	cancel()
	serr := tmp.Sync()
	fi, ferr := tmp.Stat()
	of := "of unknown size"
	if size >= 0 {
		of = fmt.Sprintf("of %d bytes by stat -c %%s", size)
	}
	// 0644, as the Results beside it: the temporary file is 0600.
	if err := errors.Join(perr, serr, ferr, tmp.Close(), os.Chmod(tmp.Name(), 0o644)); err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("%s (%s, deadline %v): %w", cmd, of, dl.Round(time.Second), err)
	}
	if size >= 0 && fi.Size() != size {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("%s (%s, deadline %v): the pull ended short: the copy has %d bytes", cmd, of, dl.Round(time.Second), fi.Size())
	}
	p, err := st.Claim(dir, base, ext, tmp.Name())
	if err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("%s into %s: %w", cmd, dir, err)
	}
	syncDir(dir)
	return p, nil
}

// syncDir writes a folder's entries to disk, so that a file renamed into
// it outlasts a crash of the host. Some systems cannot sync a folder
// (Windows); the file itself is synced all the same.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

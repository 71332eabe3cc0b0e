package adbx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/perfgate/perfgate/internal/adbwire"
)

// The sync service (adb's SYNC.TXT): after "sync:", each message is a
// 4-byte id, a little-endian uint32, and for most ids that many bytes.

func checkRemotePath(p string) error {
	switch {
	case p == "":
		return errors.New("empty remote path")
	case len(p) > adbwire.MaxSyncPath:
		return fmt.Errorf("remote path of %d bytes is longer than %d", len(p), adbwire.MaxSyncPath)
	case strings.IndexByte(p, 0) >= 0:
		return fmt.Errorf("remote path %q holds a NUL byte", p)
	}
	return nil
}

func (c *conn) syncSend(id string, arg uint32, data []byte) error {
	if _, err := c.nc.Write(adbwire.AppendSync(make([]byte, 0, 8+len(data)), id, arg, data)); err != nil {
		return c.err(err)
	}
	return nil
}

func (c *conn) syncHeader() (id string, arg uint32, err error) {
	id, arg, err = adbwire.ReadSyncHeader(c.nc)
	if err != nil {
		return "", 0, c.err(err)
	}
	return id, arg, nil
}

// syncFail reads a FAIL message of n bytes into an error, marking missing
// files with fs.ErrNotExist and refusals with fs.ErrPermission.
func (c *conn) syncFail(n uint32) error {
	if n > adbwire.MaxSyncData {
		return fmt.Errorf("sync: FAIL message of %d bytes", n)
	}
	msg := make([]byte, n)
	if _, err := io.ReadFull(c.nc, msg); err != nil {
		return c.err(err)
	}
	var kind error
	switch {
	case strings.Contains(string(msg), "No such file"), strings.Contains(string(msg), "does not exist"):
		kind = fs.ErrNotExist
	case strings.Contains(string(msg), "ermission denied"), strings.Contains(string(msg), "Read-only"):
		kind = fs.ErrPermission
	}
	if kind != nil {
		return fmt.Errorf("device says %q: %w", msg, kind)
	}
	return fmt.Errorf("device says %q", msg)
}

// Push writes r to remotePath on the device with mode's permission bits
// and the modification time mtime (zero: now), as `adb push` does.
func (d *Device) Push(ctx context.Context, r io.Reader, remotePath string, mode fs.FileMode, mtime time.Time) error {
	if err := checkRemotePath(remotePath); err != nil {
		return fmt.Errorf("adbx push %s: %w", d.serial, err)
	}
	ctx, cancel := deadline(ctx, d.timeout)
	defer cancel()
	if err := d.push(ctx, r, remotePath, mode, mtime); err != nil {
		return fmt.Errorf("adbx push %s %q: %w", d.serial, remotePath, err)
	}
	return nil
}

func (d *Device) push(ctx context.Context, r io.Reader, remotePath string, mode fs.FileMode, mtime time.Time) error {
	c, err := d.service(ctx, "sync:")
	if err != nil {
		return err
	}
	defer c.Close()
	spec := fmt.Sprintf("%s,%d", remotePath, adbwire.UnixMode(mode.Perm()))
	if err := c.syncSend("SEND", uint32(len(spec)), []byte(spec)); err != nil {
		return err
	}
	buf := make([]byte, adbwire.MaxSyncData)
	for {
		n, rerr := io.ReadFull(r, buf)
		if n > 0 {
			if err := c.syncSend("DATA", uint32(n), buf[:n]); err != nil {
				return err
			}
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			return fmt.Errorf("read local data: %w", rerr)
		}
	}
	if mtime.IsZero() {
		mtime = time.Now()
	}
	if err := c.syncSend("DONE", uint32(mtime.Unix()), nil); err != nil {
		return err
	}
	id, n, err := c.syncHeader()
	if err != nil {
		return err
	}
	switch id {
	case "OKAY":
		return c.syncSend("QUIT", 0, nil)
	case "FAIL":
		return c.syncFail(n)
	}
	return fmt.Errorf("sync: reply %q to DONE, want OKAY or FAIL", id)
}

// Pull copies the device file remotePath into w, as `adb pull` does. A
// missing file gives an error wrapping fs.ErrNotExist.
func (d *Device) Pull(ctx context.Context, remotePath string, w io.Writer) error {
	if err := checkRemotePath(remotePath); err != nil {
		return fmt.Errorf("adbx pull %s: %w", d.serial, err)
	}
	ctx, cancel := deadline(ctx, d.timeout)
	defer cancel()
	if err := d.pull(ctx, remotePath, w); err != nil {
		return fmt.Errorf("adbx pull %s %q: %w", d.serial, remotePath, err)
	}
	return nil
}

func (d *Device) pull(ctx context.Context, remotePath string, w io.Writer) error {
	c, err := d.service(ctx, "sync:")
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.syncSend("RECV", uint32(len(remotePath)), []byte(remotePath)); err != nil {
		return err
	}
	for {
		id, n, err := c.syncHeader()
		if err != nil {
			return err
		}
		switch id {
		case "DATA":
			if n > adbwire.MaxSyncData {
				return fmt.Errorf("sync: DATA chunk of %d bytes exceeds %d", n, adbwire.MaxSyncData)
			}
			if _, err := io.CopyN(w, c.nc, int64(n)); err != nil {
				return c.err(err)
			}
		case "DONE":
			return c.syncSend("QUIT", 0, nil)
		case "FAIL":
			return c.syncFail(n)
		default:
			return fmt.Errorf("sync: unexpected reply %q to RECV", id)
		}
	}
}

package adbtest

import (
	"context"
	"io"
	"io/fs"
	"net"
	"time"

	"github.com/perfgate/perfgate/adbx"
)

// Device is what the loopback adb endpoints serve. *simdevice.Device
// implements it; a test may serve any other implementation.
type Device interface {
	// Serial is the serial number the host-protocol server lists.
	Serial() string
	// Product returns ro.product.name, ro.product.model and
	// ro.product.device, as the adbd banner and `adb devices -l` show them.
	Product() (name, model, device string)
	// Features lists the adbd features the device advertises in its banner,
	// e.g. "shell_v2", "cmd", "stat_v2".
	Features() []string
	// Shell runs a command line as `/system/bin/sh -c` would on the device
	// and returns its exit status. stdin may be nil. ctx ends when the stream
	// that asked for the command closes; Shell must return soon after.
	Shell(ctx context.Context, cmd string, stdin io.Reader, stdout, stderr io.Writer) int
	// Stat, ReadDir, Open and Create back the sync: service (push, pull,
	// stat, list). Errors matching fs.ErrNotExist and fs.ErrPermission
	// reach the client as ENOENT and EACCES. Create is called once a push
	// has fully arrived, because adb sends the mtime last.
	Stat(path string) (fs.FileInfo, error)
	ReadDir(path string) ([]fs.FileInfo, error)
	Open(path string) (io.ReadCloser, error)
	Create(path string, mode fs.FileMode, mtime time.Time) (io.WriteCloser, error)
	// DialTCP connects to a TCP port on the device, as `adb forward
	// tcp:X tcp:<port>` and the tcp:<port> service do.
	DialTCP(ctx context.Context, port int) (net.Conn, error)
}

// openTimeout bounds opening a device an endpoint serves. The endpoints
// run in the test's own process, so it is only reached when something is
// stuck.
const openTimeout = time.Minute

// openAdbx opens serial through the adb server at addr, dialled with dial
// (TCP when nil).
func openAdbx(addr, serial string, dial func(ctx context.Context, network, addr string) (net.Conn, error)) (*adbx.Device, error) {
	ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	return adbx.Open(ctx, adbx.Options{Server: addr, Serial: serial, Dial: dial})
}

package adbx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
)

// Sentinel errors callers branch on with errors.Is.
var (
	// ErrNoDevice means no device is attached, or the one asked for is not.
	ErrNoDevice = errors.New("no device")
	// ErrManyDevices means several devices are attached and none was chosen
	// (set Options.Serial or ANDROID_SERIAL).
	ErrManyDevices = errors.New("more than one device")
	// ErrDeviceGone means the device or the adb server went away during a
	// call: the connection hit end of file or was reset before the reply
	// was complete.
	ErrDeviceGone = errors.New("device gone")
	// ErrAppNotInstalled means the package is not installed on the device.
	ErrAppNotInstalled = errors.New("app not installed")
	// ErrTimeout means a call hit its deadline. Errors that wrap it also
	// wrap context.DeadlineExceeded.
	ErrTimeout = errors.New("timeout")
)

// AdbError is a FAIL reply from the adb server or the device, e.g.
// "device 'x' not found" or "closed".
type AdbError struct {
	Request string // the request that failed, e.g. "host:transport:emulator-5554"
	Message string // the server's reason, verbatim
}

// Error quotes the request and the server's reason.
func (e *AdbError) Error() string {
	return fmt.Sprintf("adb refused %q: %q", e.Request, e.Message)
}

// classify turns an I/O error of a call into one callers can branch on:
// the ctx's end becomes ErrTimeout (or ctx.Err()), a dropped connection
// ErrDeviceGone. It keeps the original error in the chain.
func classify(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if cerr := ctx.Err(); cerr != nil {
		if errors.Is(cerr, context.DeadlineExceeded) {
			if errors.Is(err, ErrTimeout) {
				return err
			}
			return fmt.Errorf("%w: %w", ErrTimeout, context.DeadlineExceeded)
		}
		if errors.Is(err, cerr) {
			return err
		}
		return cerr
	}
	if errors.Is(err, ErrDeviceGone) || errors.Is(err, ErrTimeout) {
		return err
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("%w (connection dropped: %w)", ErrDeviceGone, err)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("%w: %w", ErrTimeout, context.DeadlineExceeded)
	}
	return err
}

package perftest

import (
	"context"
	"errors"
	"io"
	"regexp"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/procfs"
)

// device is what a session needs from a phone. *adbx.Device is adapted to it
// in adbx.go; tests use scripted fakes.
type device interface {
	serial() string
	// facts reads the device's facts (one round trip), with notes on the
	// facts that came from a fallback or whose sources disagree.
	facts(ctx context.Context) (procfs.DeviceFacts, []string, error)
	// appUID returns the app's uid; an error wrapping adbx.ErrAppNotInstalled
	// when the package is unknown.
	appUID(ctx context.Context, pkg string) (int, error)
	// appProcesses lists the names of the app's processes now running
	// (the package itself and "pkg:remote"-style ones).
	appProcesses(ctx context.Context, pkg string) ([]string, []int, error)
	// batch runs cmds in ONE round trip and returns each one's result.
	batch(ctx context.Context, cmds []string) ([]adbx.Result, error)
}

// puller is a device whose files can be copied off it (adb pull), which
// recording a trace needs.
type puller interface {
	pull(ctx context.Context, remote string, w io.Writer) error
}

func pullOf(dev device) func(context.Context, string, io.Writer) error {
	if p, ok := dev.(puller); ok {
		return p.pull
	}
	return nil
}

// streamer is a device that can hand a command's output over as it is
// printed (adb's shell service), for outputs too large to hold whole. A
// command that fails reads as an error from the reader (*adbx.ExitError
// with its stderr).
type streamer interface {
	stream(ctx context.Context, cmd string) (io.ReadCloser, error)
}

// Errors callers branch on. A package not installed on the device gives an
// error wrapping adbx.ErrAppNotInstalled.
var (
	// ErrAppNotRunning: the app has no process and Config.WaitForApp is off.
	ErrAppNotRunning = errors.New("app not running")
	// ErrDeviceLost: every tick failed for Config.GiveUpAfter.
	ErrDeviceLost = errors.New("device unreachable")
)

// processName is an app process name: the package, or "pkg:suffix".
var processName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+(:[A-Za-z0-9_.]+)?$`)

// shellQuote quotes s for the device's POSIX shell.
func shellQuote(s string) string { return adbx.Quote(s) }

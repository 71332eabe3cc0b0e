package perftest

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/dumpsys"
	"github.com/perfgate/perfgate/android/procfs"
)

// adbxAdaptor gives a session what it needs from an *adbx.Device.
type adbxAdaptor struct{ d *adbx.Device }

func wrapAdbx(d *adbx.Device) device {
	if d == nil {
		return nilDevice{}
	}
	return adbxAdaptor{d}
}

func (a adbxAdaptor) serial() string { return a.d.Serial() }

func (a adbxAdaptor) batch(ctx context.Context, cmds []string) ([]adbx.Result, error) {
	return a.d.Batch(ctx, cmds)
}

// pull copies a device file through adb's sync service (see puller).
func (a adbxAdaptor) pull(ctx context.Context, remote string, w io.Writer) error {
	return a.d.Pull(ctx, remote, w)
}

// stream runs cmd and reads its output as it comes (see streamer).
func (a adbxAdaptor) stream(ctx context.Context, cmd string) (io.ReadCloser, error) {
	return a.d.Stream(ctx, cmd)
}

func (a adbxAdaptor) facts(ctx context.Context) (procfs.DeviceFacts, []string, error) {
	return a.d.Facts(ctx)
}

func (a adbxAdaptor) appUID(ctx context.Context, pkg string) (int, error) {
	return a.d.AppUID(ctx, pkg)
}

func (a adbxAdaptor) appProcesses(ctx context.Context, pkg string) ([]string, []int, error) {
	ps, err := a.d.AppProcesses(ctx, pkg)
	if err != nil {
		return nil, nil, err
	}
	var names []string
	var pids []int
	for _, p := range ps {
		if !containsString(names, p.Name) {
			names = append(names, p.Name)
		}
		pids = append(pids, p.PID)
	}
	if len(pids) == 0 {
		// Some builds and shells list no foreign processes in ps; pidof
		// still finds the main one.
		cmd := "pidof " + shellQuote(pkg)
		out, err := a.batch(ctx, []string{cmd})
		if err != nil {
			return nil, nil, err
		}
		// pidof exits 1 when no process has the name; a shell without
		// pidof finds none either.
		if out[0].ExitCode == 0 {
			if pids, err = dumpsys.ParsePidof(out[0].Stdout); err != nil {
				return nil, nil, fmt.Errorf("perftest: %w", err)
			}
		}
		if len(pids) > 0 {
			names = []string{pkg}
		}
	}
	return names, pids, nil
}

func containsString(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// nilDevice fails every call, so a nil *adbx.Device gives a clear error.
type nilDevice struct{}

var errNilDevice = errors.New("no device (nil *adbx.Device)")

func (nilDevice) serial() string { return "" }
func (nilDevice) facts(context.Context) (procfs.DeviceFacts, []string, error) {
	return procfs.DeviceFacts{}, nil, errNilDevice
}
func (nilDevice) appUID(context.Context, string) (int, error)            { return 0, errNilDevice }
func (nilDevice) batch(context.Context, []string) ([]adbx.Result, error) { return nil, errNilDevice }
func (nilDevice) appProcesses(context.Context, string) ([]string, []int, error) {
	return nil, nil, errNilDevice
}

package adbx

import (
	"context"
	"fmt"
	"os"
)

// List returns the devices an adb server lists (`adb devices -l`), in every
// state. server is "host:port"; "" resolves as Options.Server does
// ($ADB_SERVER_SOCKET, else $ANDROID_ADB_SERVER_ADDRESS and
// $ANDROID_ADB_SERVER_PORT, else DefaultServer). A device pool reads it on each
// of its servers.
func List(ctx context.Context, server string) ([]DeviceInfo, error) {
	addr, err := serverAddr(server, os.Getenv)
	if err != nil {
		return nil, fmt.Errorf("adbx list: %w", err)
	}
	ctx, cancel := deadline(ctx, DefaultTimeout)
	defer cancel()
	out, err := hostQuery(ctx, nil, addr, "host:devices-l")
	if err != nil {
		return nil, fmt.Errorf("adbx list %s: %w", addr, err)
	}
	return parseDevices(out), nil
}

// EnvServer is the adb server adb itself would use, from the environment
// as adb reads it: $ADB_SERVER_SOCKET ("tcp:host:port"), else
// $ANDROID_ADB_SERVER_ADDRESS and $ANDROID_ADB_SERVER_PORT, else
// DefaultServer. A variable that names no server is an error quoting it.
func EnvServer() (string, error) { return serverAddr("", os.Getenv) }

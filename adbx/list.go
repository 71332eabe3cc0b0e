package adbx

import (
	"context"
	"fmt"
	"os"
)

// List returns the devices an adb server lists (`adb devices -l`), in every
// state. server is "host:port"; "" resolves as Options.Server does
// ($ADB_SERVER_SOCKET, else DefaultServer). A device pool reads it on each
// of its servers.
func List(ctx context.Context, server string) ([]DeviceInfo, error) {
	addr, err := serverAddr(server, os.Getenv("ADB_SERVER_SOCKET"))
	if err != nil {
		return nil, fmt.Errorf("adbx list: %w", err)
	}
	ctx, cancel := deadline(ctx, DefaultTimeout)
	defer cancel()
	out, err := hostQuery(ctx, addr, "host:devices-l")
	if err != nil {
		return nil, fmt.Errorf("adbx list %s: %w", addr, err)
	}
	return parseDevices(out), nil
}

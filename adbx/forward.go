package adbx

import (
	"context"
	"fmt"
	"strconv"
)

// Forward asks the adb server to forward a free local TCP port on the
// server's host to remotePort on the device (`adb forward tcp:0
// tcp:<remotePort>`) and returns the local port. Remove it with
// RemoveForward.
func (d *Device) Forward(ctx context.Context, remotePort int) (localPort int, err error) {
	if remotePort <= 0 || remotePort > 65535 {
		return 0, fmt.Errorf("adbx forward %s: remote port %d out of range 1..65535", d.serial, remotePort)
	}
	ctx, cancel := deadline(ctx, d.timeout)
	defer cancel()
	req := "forward:tcp:0;tcp:" + strconv.Itoa(remotePort)
	c, err := d.hostRequest(ctx, req)
	if err != nil {
		return 0, fmt.Errorf("adbx forward %s tcp:%d: %w", d.serial, remotePort, err)
	}
	defer c.Close()
	s, err := c.readString()
	if err != nil {
		return 0, fmt.Errorf("adbx forward %s tcp:%d: read local port: %w", d.serial, remotePort, err)
	}
	p, err := strconv.Atoi(s)
	if err != nil || p <= 0 || p > 65535 {
		return 0, fmt.Errorf("adbx forward %s tcp:%d: server answered %q, want a port", d.serial, remotePort, s)
	}
	return p, nil
}

// RemoveForward removes the forward of localPort (`adb forward --remove
// tcp:<localPort>`).
func (d *Device) RemoveForward(ctx context.Context, localPort int) error {
	if localPort <= 0 || localPort > 65535 {
		return fmt.Errorf("adbx remove forward %s: local port %d out of range 1..65535", d.serial, localPort)
	}
	ctx, cancel := deadline(ctx, d.timeout)
	defer cancel()
	c, err := d.hostRequest(ctx, "killforward:tcp:"+strconv.Itoa(localPort))
	if err != nil {
		return fmt.Errorf("adbx remove forward %s tcp:%d: %w", d.serial, localPort, err)
	}
	return c.Close()
}

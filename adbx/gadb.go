package adbx

import (
	"fmt"
	"net"
	"strconv"

	"github.com/electricbubble/gadb"
)

// Gadb returns the device as a gadb.Device, the type
// github.com/electricbubble/guia2 drives UI automation through. gadb calls
// take no context and use gadb's own read timeout, so use it only to hand
// the device to such libraries; perfgate's own calls go through Device.
// A device opened with Options.Dial (an in-memory server) has none.
func (d *Device) Gadb() (gadb.Device, error) {
	if d.dial != nil {
		// gadb dials the server over TCP itself.
		return gadb.Device{}, fmt.Errorf("adbx gadb: server %s is reached through Options.Dial, which gadb cannot use", d.server)
	}
	host, portStr, err := net.SplitHostPort(d.server)
	if err != nil {
		return gadb.Device{}, fmt.Errorf("adbx gadb: server %q: %w", d.server, err)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return gadb.Device{}, fmt.Errorf("adbx gadb: server %q: bad port", d.server)
	}
	client, err := gadb.NewClientWith(host, port)
	if err != nil {
		return gadb.Device{}, fmt.Errorf("adbx gadb: connect %s: %w", d.server, err)
	}
	devs, err := client.DeviceList()
	if err != nil {
		return gadb.Device{}, fmt.Errorf("adbx gadb: list devices on %s: %w", d.server, err)
	}
	for _, g := range devs {
		if g.Serial() == d.serial {
			return g, nil
		}
	}
	return gadb.Device{}, fmt.Errorf("adbx gadb: %w: %s not listed by %s", ErrDeviceGone, d.serial, d.server)
}

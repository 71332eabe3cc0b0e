package simlab

import (
	"errors"
	"fmt"

	"github.com/perfgate/perfgate/adbx"
)

// LabOf is the lab `perfgate simdevice` serves: count phones spread over
// the models (Spread), or the phones of the lab file; errors name the
// flags.
func LabOf(count int, file string) (Lab, error) {
	switch {
	case count != 0 && file != "":
		return Lab{}, errors.New("--count and --lab: give one")
	case file != "":
		lab, err := Read(file)
		if err != nil {
			return Lab{}, fmt.Errorf("--lab: %w", err)
		}
		return lab, nil
	case count < 0 || count > 64:
		return Lab{}, fmt.Errorf("--count %d: want 1 to 64", count)
	}
	return Spread(count), nil
}

// ServeStock serves lab with the user's stock adb server
// (adbx.EnvServer's) for its ServerADB phones: joined to it through
// ConnectStock with connect, else left for the user to join with adb
// connect, the server listing each under the address it joined.
func ServeStock(lab Lab, connect bool) (*Running, error) {
	addr, err := adbx.EnvServer()
	if err != nil {
		return nil, err
	}
	opt := Options{ADB: addr, Connect: ConnectStock}
	if !connect {
		opt.Connect = func(addr string) (string, error) { return addr, nil }
	}
	return Serve(lab, opt)
}

// DisconnectStock takes the lab's ServerADB phones off the stock adb
// server (DisconnectStock), as far as it can.
func (r *Running) DisconnectStock() {
	for _, p := range r.Phones {
		if p.Config.Server == ServerADB {
			_ = DisconnectStock(p.Serial)
		}
	}
}

package simlab

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/simdevice"
)

// A Running lab: its phones, and the servers that list them.
type Running struct {
	Phones []*Served

	goSrv   *adbtest.Server
	adbAddr string
	once    sync.Once
	err     error
}

// A Served phone: the simulated device, and where adb finds it.
type Served struct {
	Config
	Dev *simdevice.Device
	// Server is the adb server ("host:port") that lists the phone, and
	// Serial the serial it lists it under: the phone's own serial on the
	// pure-Go server, the address `adb connect` joined on the stock one.
	Server string
	Serial string

	goSrv *adbtest.Server
	adbd  *adbtest.Adbd
}

// Unplug takes the phone away as a pulled cable or a crashed phone does:
// its connections are cut without a goodbye and its server stops listing
// it online. The simulation itself goes on until the lab closes.
func (s *Served) Unplug() {
	if s.goSrv != nil {
		s.goSrv.Remove(s.Dev.Serial())
	}
	if s.adbd != nil {
		s.adbd.Close()
	}
}

// String describes the phone in a line: "sim-2: Pixel 4a, API 30, 60 Hz,
// speed 0.6, janky-scroll on adbd 127.0.0.1:40123", where "adb server
// host:port" is the pure-Go server that lists it and "adbd host:port" the
// endpoint the stock one joins.
func (s *Served) String() string {
	where := "adb server " + s.Server
	if s.Config.Server == ServerADB {
		where = "adbd " + s.Serial
	}
	return fmt.Sprintf("%s: %s, API %d, %s, speed %g, %s on %s", s.Dev.Serial(), s.Device.Model, s.Dev.Config().API,
		hz(s.Dev.World().RefreshPeriod()), s.Speed, s.Device.Workload.Name, where)
}

// hz formats a refresh period as a rate.
func hz(period time.Duration) string {
	if period <= 0 {
		return "? Hz"
	}
	return fmt.Sprintf("%.0f Hz", float64(time.Second)/float64(period))
}

// Options say how Serve reaches the stock adb server.
type Options struct {
	// ADB is the stock adb server ("host:port") that joins the phones
	// served with ServerADB; Connect joins one ("adb connect addr") and
	// returns the serial it lists it under. Both are needed only when the
	// lab has such phones.
	ADB     string
	Connect func(addr string) (serial string, err error)
}

// Serve builds every phone of the lab and serves it: the ServerGo ones
// from one pure-Go adb server, the ServerADB ones as adbd endpoints that
// opt.Connect joins to the stock server. On error nothing is left running.
func Serve(lab Lab, opt Options) (*Running, error) {
	cfgs, err := lab.Configs()
	if err != nil {
		return nil, fmt.Errorf("simlab: %w", err)
	}
	r := &Running{}
	for _, c := range cfgs {
		if c.Server == ServerADB && (opt.ADB == "" || opt.Connect == nil) {
			return nil, fmt.Errorf("simlab: %s is for the stock adb server, and none was given", c.Device.Serial)
		}
	}
	for _, c := range cfgs {
		dev, err := simdevice.New(c.Device)
		if err != nil {
			r.Close()
			return nil, fmt.Errorf("simlab: %s: %w", c.Device.Serial, err)
		}
		_, model, _ := dev.Product()
		c.Device.Model = model
		s := &Served{Config: c, Dev: dev}
		r.Phones = append(r.Phones, s)
		switch c.Server {
		case ServerGo:
			if r.goSrv == nil {
				r.goSrv = adbtest.NewServer()
			}
			r.goSrv.Add(dev)
			s.goSrv, s.Server, s.Serial = r.goSrv, r.goSrv.Addr, dev.Serial()
		case ServerADB:
			s.adbd = adbtest.NewAdbd(dev)
			serial, err := opt.Connect(s.adbd.Addr)
			if err != nil {
				r.Close()
				return nil, fmt.Errorf("simlab: %s: adb connect %s: %w", c.Device.Serial, s.adbd.Addr, err)
			}
			s.Server, s.Serial = opt.ADB, serial
			r.adbAddr = opt.ADB
		}
	}
	return r, nil
}

// Servers lists the adb servers of the lab's phones, the pure-Go one
// first: what devicepool.Config.Servers takes.
func (r *Running) Servers() []string {
	var out []string
	for _, p := range r.Phones {
		if !slices.Contains(out, p.Server) {
			out = append(out, p.Server)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int {
		switch {
		case r.goSrv != nil && a == r.goSrv.Addr:
			return -1
		case r.goSrv != nil && b == r.goSrv.Addr:
			return 1
		}
		return 0
	})
	return out
}

// Phone returns the phone a server lists under serial, or nil.
func (r *Running) Phone(server, serial string) *Served {
	for _, p := range r.Phones {
		if p.Server == server && p.Serial == serial {
			return p
		}
	}
	return nil
}

// Close stops every endpoint and phone; a phone's error (a truth file cut
// short) is returned.
func (r *Running) Close() error {
	r.once.Do(func() {
		for _, p := range r.Phones {
			if p.adbd != nil {
				p.adbd.Close()
			}
		}
		if r.goSrv != nil {
			r.goSrv.Close()
		}
		var errs []error
		for _, p := range r.Phones {
			errs = append(errs, p.Dev.Close())
		}
		r.err = errors.Join(errs...)
	})
	return r.err
}

// TB is the part of testing.TB Start uses.
type TB interface {
	adbtest.TB
	Errorf(format string, args ...any)
}

// Start serves the lab for a test: ServerADB phones join a stock adb server
// of the test's own (adbtest.StartADB, which skips the test where adb is
// missing), and everything stops when the test ends.
func Start(t TB, lab Lab) *Running {
	t.Helper()
	var opt Options
	cfgs, err := lab.Configs()
	if err != nil {
		t.Fatalf("simlab: %v", err)
	}
	if slices.ContainsFunc(cfgs, func(c Config) bool { return c.Server == ServerADB }) {
		a := adbtest.StartADB(t)
		opt.ADB = a.Addr()
		opt.Connect = func(addr string) (string, error) { return a.Connect(addr), nil }
	}
	r, err := Serve(lab, opt)
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Errorf("simlab: %v", err)
		}
	})
	return r
}

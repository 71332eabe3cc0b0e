package scenario_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/simdevice"
)

// endpoint serves a device to adbx: the pure-Go host-protocol server, or
// the stock adb server joined to a device-protocol listener.
type endpoint struct {
	name  string
	serve func(t *testing.T, dev adbtest.Device) (adbx.Options, func())
}

var endpoints = []endpoint{
	{"server", func(t *testing.T, dev adbtest.Device) (adbx.Options, func()) {
		srv := adbtest.NewServer(dev)
		t.Cleanup(srv.Close)
		return adbx.Options{Server: srv.Addr, Serial: dev.Serial()}, func() { srv.Remove(dev.Serial()) }
	}},
	{"adb", func(t *testing.T, dev adbtest.Device) (adbx.Options, func()) {
		a := adbtest.StartADB(t)
		d := adbtest.NewAdbd(dev)
		t.Cleanup(d.Close)
		serial := a.Connect(d.Addr)
		return adbx.Options{Server: fmt.Sprintf("127.0.0.1:%d", a.Port), Serial: serial}, d.DropConnections
	}},
}

// phone is a simulated phone served on an endpoint.
type phone struct {
	sim  *simdevice.Device
	dev  *adbx.Device
	drop func()
	pkg  string
}

// newPhone starts a simulated phone running preset (its app not launched)
// and opens it through ep.
func newPhone(t *testing.T, ep endpoint, preset string, tweak func(*simdevice.Workload)) *phone {
	t.Helper()
	wl, err := simdevice.Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	if tweak != nil {
		tweak(wl)
	}
	sim, err := simdevice.New(simdevice.Config{Workload: wl, RefreshHz: 60})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	opt, drop := ep.serve(t, sim)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	dev, err := adbx.Open(ctx, opt)
	if err != nil {
		t.Fatalf("open %s: %v", ep.name, err)
	}
	return &phone{sim: sim, dev: dev, drop: drop, pkg: wl.Package}
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// fakeT records what a scenario reports.
type fakeT struct {
	errs    []string
	failNow bool
}

func (f *fakeT) Errorf(format string, args ...any) {
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}
func (f *fakeT) FailNow() { f.failNow = true }
func (f *fakeT) Helper()  {}

func openWith(t *testing.T, opt adbx.Options) *adbx.Device {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	d, err := adbx.Open(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// newPhoneTB is newPhone on the pure-Go server, for benchmarks.
func newPhoneTB(tb testing.TB, preset string) *phone {
	tb.Helper()
	wl, err := simdevice.Preset(preset)
	if err != nil {
		tb.Fatal(err)
	}
	sim, err := simdevice.New(simdevice.Config{Workload: wl})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { sim.Close() })
	srv := adbtest.NewServer(sim)
	tb.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	dev, err := adbx.Open(ctx, adbx.Options{Server: srv.Addr})
	if err != nil {
		tb.Fatal(err)
	}
	return &phone{sim: sim, dev: dev, pkg: wl.Package}
}

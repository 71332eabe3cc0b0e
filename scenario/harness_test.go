package scenario_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/simdevice"
)

// endpoint serves a device to adbx: the pure-Go host-protocol server, or
// the stock adb server joined to a device-protocol listener.
type endpoint struct {
	name string
	// open serves dev and returns it opened, and a function that makes the
	// device vanish mid-call.
	open func(t *testing.T, dev adbtest.Device) (*adbx.Device, func())
}

var (
	// server is adbtest's host-protocol server over in-memory pipes,
	// uiautomator2's forward included, so a test in a testing/synctest
	// bubble runs on the bubble's clock.
	server = endpoint{"server", func(t *testing.T, dev adbtest.Device) (*adbx.Device, func()) {
		srv := adbtest.NewPipeServer(dev)
		t.Cleanup(srv.Close)
		return srv.Open(dev.Serial()), func() { srv.Remove(dev.Serial()) }
	}}
	// stock is the stock adb server, on the wall clock: a test of the
	// real timing.
	stock = endpoint{"adb", func(t *testing.T, dev adbtest.Device) (*adbx.Device, func()) {
		d, adbd := adbtest.StartADB(t).Serve(t, dev)
		return d, adbd.DropConnections
	}}
	endpoints = []endpoint{server, stock}
)

// run runs a test of the endpoint: through the pure-Go server in a
// testing/synctest bubble, on its fake clock; through the stock adb
// server, which talks TCP to a process, on the wall clock.
func (ep endpoint) run(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	if ep.name == server.name {
		simtest.Bubble(t, f)
		return
	}
	f(t)
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
	dev, drop := ep.open(t, sim)
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
	srv := adbtest.NewPipeServer(sim)
	tb.Cleanup(srv.Close)
	return &phone{sim: sim, dev: srv.Open(""), pkg: wl.Package}
}

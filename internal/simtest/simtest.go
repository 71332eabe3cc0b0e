// Package simtest starts the simulated phone for the tests of the packages
// that measure it (perftest, assert, report, cmd/perfgate): a
// simdevice.Device served by adbtest's pure-Go adb server, and its app
// launched and drawing, as a test on a phone would find it.
//
//	dev, srv := simtest.Serve(t, simdevice.Config{Workload: wl})
//	d := srv.Open(dev.Serial())
//	simtest.Launch(t, d, dev)
package simtest

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/simdevice"
)

// TB is the part of testing.TB these helpers use.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// Serve builds a simulated phone from cfg and serves it from a pure-Go adb
// server; both close when the test ends.
func Serve(t TB, cfg simdevice.Config) (*simdevice.Device, *adbtest.Server) {
	t.Helper()
	dev, err := simdevice.New(cfg)
	if err != nil {
		t.Fatalf("simdevice.New: %v", err)
	}
	t.Cleanup(func() { dev.Close() })
	srv := adbtest.NewServer(dev)
	t.Cleanup(srv.Close)
	return dev, srv
}

// ServePipe is Serve over in-memory pipes (adbtest.NewPipeServer), for a
// test in a testing/synctest bubble: the phone, the server and whatever the
// test runs against them then keep the bubble's clock. Call it inside the
// bubble.
func ServePipe(t TB, cfg simdevice.Config) (*simdevice.Device, *adbtest.Server) {
	t.Helper()
	dev, err := simdevice.New(cfg)
	if err != nil {
		t.Fatalf("simdevice.New: %v", err)
	}
	t.Cleanup(func() { dev.Close() })
	srv := adbtest.NewPipeServer(dev)
	t.Cleanup(srv.Close)
	return dev, srv
}

// bubbleWall bounds a bubble's time on the host: far above what a bubble
// takes on a 2-core machine running two suites at once with the race
// detector (2 minutes was seen exceeded there), below go test's 10-minute
// default timeout, so that a stuck bubble is named before the binary is
// killed.
const bubbleWall = 5 * time.Minute

// Bubble runs f in a testing/synctest bubble (synctest.Test), on a fake
// clock that moves only when every goroutine of the test waits. A
// goroutine blocked on anything else (a socket, a process, a lock held
// across a wait) stops that clock for good, and the test would hang to
// -timeout: after bubbleWall on the host Bubble ends the test binary
// instead, with every goroutine's stack, so the one that holds the clock
// can be found.
func Bubble(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	stuck := time.AfterFunc(bubbleWall, func() {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		panic(fmt.Sprintf("simtest: %s: the bubble's clock has not moved its test to the end in %v on the host; a goroutine blocked outside the bubble's reach (network I/O, a process, a mutex) holds it:\n%s", t.Name(), bubbleWall, buf))
	})
	defer stuck.Stop()
	synctest.Test(t, f)
}

// FakeClock runs a recording once in a Bubble and reports its problems as
// errors. run reports whether its session recorded a host too busy for the
// phone (frames lost past the phone's buffer, ticks that did not get
// through): on the fake clock no host stalls, so that is an error too,
// not a reason to run again.
func FakeClock(t *testing.T, run func(t *testing.T) (problems []string, stalled bool)) {
	t.Helper()
	Bubble(t, func(t *testing.T) {
		problems, stalled := run(t)
		Errors(t, problems)
		if stalled {
			t.Error("the session recorded a stalled host on the fake clock")
		}
	})
}

// quickColdMs is the cold start QuickStart gives a workload.
const quickColdMs = 50

// QuickStart makes a workload's cold start 50 ms, for tests that do not
// measure the launch: the presets take 650 ms (slow-start 2.5 s) from am
// start to Displayed, as apps do, and a test of frames or CPU would
// otherwise spend that long waiting before its first step. Warm and hot
// starts, and the time to fully drawn, are the workload's own.
func QuickStart(wl *simdevice.Workload) *simdevice.Workload {
	wl.Startup.ColdMs = min(wl.Startup.ColdMs, quickColdMs)
	return wl
}

// drawing is how many frames the app has rendered when Launch returns.
const drawing = 5

// Launch starts the phone's app the way a test would, with monkey through
// d, and waits until it has rendered a few frames. Only a launch that
// fails, or an app that draws nothing for 30 s, fails the test: a busy
// machine only makes the wait longer.
func Launch(t TB, d *adbx.Device, dev *simdevice.Device) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pkg := dev.World().Package()
	r, err := d.Shell(ctx, "monkey -p "+adbx.Quote(pkg)+" -c android.intent.category.LAUNCHER 1")
	if err == nil {
		err = r.Err("monkey")
	}
	if err != nil {
		t.Fatalf("launching %s: %v", pkg, err)
	}
	for len(dev.World().TruthFrames()) < drawing {
		if ctx.Err() != nil {
			t.Fatalf("%s rendered %d frames in the 30 s after its launch", pkg, len(dev.World().TruthFrames()))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// WallClock reports the problems of a run on the wall clock, through the
// stock adb server: a test of the real timing, run once. When busy says
// the session recorded that the host was too busy for the phone (what
// says how: frames lost past its buffer, ticks that did not get through),
// the truth cannot be compared on this host and the test is skipped,
// naming the problems. The simulated phone's truth is compared without
// that allowance in a bubble (Bubble, ServePipe), where the host cannot
// stall.
func WallClock(t WallT, what string, problems []string, busy bool) {
	t.Helper()
	if busy && len(problems) > 0 {
		t.Skipf("%s, and the session recorded it; the truth cannot be compared on a host this busy (%s)", what, strings.Join(problems, "; "))
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// WallT is what WallClock needs of a test.
type WallT interface {
	Helper()
	Error(args ...any)
	Skipf(format string, args ...any)
}

// Errors reports each of problems as an error of t.
func Errors(t interface {
	Helper()
	Error(args ...any)
}, problems []string) {
	t.Helper()
	for _, p := range problems {
		t.Error(p)
	}
}

package scenario_test

import (
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/internal/simtest"
)

// pipeEndpoint serves the phone from adbtest's host-protocol server over
// in-memory pipes, uiautomator2's forward included, so a test in a
// testing/synctest bubble runs on the bubble's clock.
var pipeEndpoint = endpoint{"pipe", func(t *testing.T, dev adbtest.Device) (*adbx.Device, func()) {
	srv := adbtest.NewPipeServer(dev)
	t.Cleanup(srv.Close)
	return srv.Open(dev.Serial()), func() { srv.Remove(dev.Serial()) }
}}

// TestActionsFakeClock is TestActions through in-memory pipes on the
// bubble's clock: one run, no retry, and the same in every run.
func TestActionsFakeClock(t *testing.T) {
	simtest.Bubble(t, func(t *testing.T) {
		start := time.Now()
		problems, stalled := actionsRun(t, pipeEndpoint)
		for _, p := range problems {
			t.Error(p)
		}
		if stalled {
			t.Error("frames lost on the fake clock")
		}
		t.Logf("%v of simulated time", time.Since(start))
	})
}

package perftest

import (
	"slices"
	"testing"
	"time"

	"github.com/perfgate/perfgate/result"
)

// The Choreographer lines are placed through the session's /proc/uptime
// clock map: a tick's quick round trip read 998.995 s at host 99 s, and
// the log's batch took 12 s on a busy host (sent at 96 s, answered at
// 108 s, the device reading 1000 s). Joined, device − host is 900 s within
// 5 ms, where the batch's midpoint alone (102 s) would say 898 s and place
// every line 2 s late. Only the lines of the pids the app ran under count.
func TestSkipsJoinTheClockMap(t *testing.T) {
	c := bareCollector(SourceGfxInfo)
	const s = int64(1e9)
	c.s.res.App.PIDs = []int{4200}
	c.s.res.Samples = []result.Sample{{HostNs: 80 * s, PIDs: []int{4242}}, {HostNs: 99 * s, PIDs: []int{4242}}, {HostNs: 101 * s}}
	c.clockProc.Observe("/proc/uptime", 99*s, 99*s, 998_995_000_000, 10_000_000)
	if off := c.uptimeOffset(96*s, 108*s, 1000*s); off != 900*s {
		t.Errorf("offset %v, want 900s", time.Duration(off))
	}
	if pids := c.appPIDsLocked(); !slices.Contains(pids, 4200) || !slices.Contains(pids, 4242) || slices.Contains(pids, 999) {
		t.Errorf("app pids %v, want 4200 and 4242", pids)
	}
}

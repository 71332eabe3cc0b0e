package perftest

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/result"
)

// The Choreographer lines are the app's alone, placed on the host clock
// through the session's /proc/uptime clock map; a step older than the log's
// oldest line has no SM, since the log no longer shows its stalls.
func TestPlaceSkips(t *testing.T) {
	c := bareCollector(SourceGfxInfo)
	c.refreshHz = 60
	const s = int64(1e9)
	c.s.res.Samples = []result.Sample{{HostNs: 80 * s, PIDs: []int{4242}}, {HostNs: 99 * s, PIDs: []int{4242}}, {HostNs: 101 * s, PIDs: []int{4242}}}
	cmds := choreographerCmds(33)
	skip := " I Choreographer: Skipped %s frames!  The application may be doing too much work on its main thread."
	line := func(epoch, pid, n string) string {
		return "  " + epoch + "  " + pid + "  " + pid + strings.Replace(skip, "%s", n, 1)
	}
	out := []adbx.Result{
		{Stdout: []byte("1000.00 500.00\n")},
		{Stdout: []byte("1700000000.000000000 2023-11-14 22:13:20\n")},
		{Stdout: []byte(strings.Join([]string{
			"--------- beginning of main",
			line("1699999998.200", "4242", "40"),
			line("1699999998.900", "4242", "35"), // the same second: 75 skipped
			line("1699999998.950", "999", "50"),  // another app's
			line("1699999999.500", "4242", "31"),
		}, "\n") + "\n")},
		{Stdout: []byte("--------- beginning of main\n  1699999990.000  1  1 I init: start\n")},
	}
	// A tick's quick round trip read /proc/uptime at 998.995 s at host
	// 99 s: device − host = 900 s within 5 ms. The log's batch took 12 s on
	// a busy host: its midpoint alone (102 s, where the device read 1000 s)
	// would place every line 2 s late.
	c.clockProc.observe("/proc/uptime", 99*s, 99*s, 998_995_000_000, 10_000_000)
	var spread time.Duration
	c.smooth, spread = c.placeSkips(cmds, out, 96*s, 108*s)
	c.smooth.read = true
	if spread != 0 {
		t.Errorf("spread %v without a second /proc/uptime read", spread)
	}
	if c.smooth.why != "" || len(c.smooth.lines) != 3 || c.smooth.fromNs != 90*s {
		t.Fatalf("placed %+v", c.smooth)
	}
	if at := c.smooth.lines[0].hostNs; at != 98*s+200_000_000 {
		t.Errorf("first line at host %d ns, want 98.2 s", at)
	}
	st := &result.Step{Name: "scroll", HostStartNs: 95 * s, HostEndNs: 100 * s}
	sm := c.smoothness(st)
	if sm == nil || sm.Skipped != 106 || sm.MinSM != 0 || sm.RefreshHz != 60 {
		t.Errorf("smoothness %+v, want 106 skipped and a second of max(0, 60 − 75) = 0", sm)
	}
	calm := &result.Step{Name: "calm", HostStartNs: 99_600_000_000, HostEndNs: 101 * s}
	if sm := c.smoothness(calm); sm == nil || sm.Skipped != 0 || sm.MinSM != 60 {
		t.Errorf("a step without skips: %+v, want SM 60", sm)
	}
	old := &result.Step{Name: "launch", HostStartNs: 85 * s, HostEndNs: 96 * s}
	if sm := c.smoothness(old); sm != nil || !strings.Contains(c.smoothWhy(old), "the log no longer reaches back to the step (its oldest line is 5s after the step began)") {
		t.Errorf("a step older than the log: %+v, %q", sm, c.smoothWhy(old))
	}
	// date answered 0.4 s after the first /proc/uptime read, 1000.00 s:
	// the second, 1000.40 s, brackets it, and the lines are placed from
	// the midpoint, off by at most the spread, 0.2 s.
	bracket := slices.Clone(out)
	bracket[1] = adbx.Result{Stdout: []byte("1700000000.000000000 2023-11-14 22:13:20\n1000.40 500.10\n")}
	l, spread := c.placeSkips(cmds, bracket, 96*s, 108*s)
	if spread != 200*time.Millisecond || len(l.lines) != 3 || l.lines[0].hostNs != 98*s+400_000_000 {
		t.Errorf("bracketed: spread %v, first line at %v; want 200ms and 98.4 s", spread, l.lines)
	}
	// A device that cannot give the log's times has no SM.
	out[0] = adbx.Result{ExitCode: 1, Stderr: []byte("cat: /proc/uptime: Permission denied")}
	if l, _ := c.placeSkips(cmds, out, 100*s, 100*s); !strings.Contains(l.why, "/proc/uptime") {
		t.Errorf("no device clock: %+v", l)
	}
	if got := metrics.SMGT.Def(); got.Family != metrics.FamilyChoreographer || !got.Floor() {
		t.Errorf("catalogue entry %+v", got)
	}
}

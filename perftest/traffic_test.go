package perftest

import (
	"math"
	"testing"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/result"
)

// A traffic rate divides by the device's clock read beside the counters
// where both reads have it. Here the first read's round trip was long on
// a busy host: its host stamp (the midpoint) lies 0.5 s after the device
// read, so host stamps 1 s apart hold 1.5 s of the device's time. The
// device's counters moved 300000 / 75000 bytes in those 1.5 s: 200000 /
// 50000 B/s, where the host's stamps would say 300000 / 75000.
func TestTrafficRateOnTheDeviceClock(t *testing.T) {
	const s = int64(1e9)
	for _, tc := range []struct {
		name       string
		up0, up1   int64
		clock      string
		rxPS, txPS float64
	}{
		{"uptime", 100 * s, 101*s + s/2, "/proc/uptime", 200_000, 50_000},
		// dumpsys netstats runs in the slow lane, with no clock read.
		{"host", 0, 0, "host", 300_000, 75_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := bareCollector(SourceGfxInfo)
			c.traffic = trafficUIDStat
			const cmd = "cat /proc/uid_stat/10123/tcp_rcv /proc/uid_stat/10123/tcp_snd"
			c.absorbTraffic(adbx.Result{Stdout: []byte("1000\n500\n")}, cmd, 1*s, tc.up0)
			c.absorbTraffic(adbx.Result{Stdout: []byte("301000\n75500\n")}, cmd, 2*s, tc.up1)
			st := &result.Step{Name: "scroll", HostStartNs: 1*s + s/10, HostEndNs: 2*s - s/10}
			tr := c.trafficStats(st)
			if tr == nil {
				t.Fatalf("no traffic: %q", st.NotMeasured)
			}
			if tr.RxBytes != 300_000 || tr.TxBytes != 75_000 || tr.Clock != tc.clock ||
				tr.RxBytesPerS != tc.rxPS || tr.TxBytesPerS != tc.txPS {
				t.Errorf("traffic %+v, want %.0f / %.0f B/s on the %s clock", *tr, tc.rxPS, tc.txPS, tc.clock)
			}
		})
	}
}

// Without /proc/stat an app's CPU is set against wall time × cores: the
// device's between the /proc/uptime reads of two ticks, not the host's
// between their round trips, which a busy host can stretch or shrink.
// Host stamps 1 s apart hold 1.5 s of the device's time, in which the app
// ran 60 ticks of a 4-core phone's 100 Hz clock: 10 %, not 15 %.
func TestAppCPUOnTheDeviceClock(t *testing.T) {
	const s = int64(1e9)
	for _, tc := range []struct {
		name     string
		up0, up1 int64
		pct      float64
		source   string
	}{
		{"uptime", 100 * s, 101*s + s/2, 10, "/proc/<pid>/stat over wall time on the device's /proc/uptime (/proc/stat unreadable)"},
		{"no uptime", 0, 0, 15, "/proc/<pid>/stat over wall time, on the host's clock where a tick had no /proc/uptime (/proc/stat unreadable)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := bareCollector(SourceGfxInfo)
			c.cpuOK = false
			c.s.res.Device.Cores, c.s.res.Device.ClockTicks = 4, 100
			proc := func(ticks uint64) []procfs.PidStat {
				return []procfs.PidStat{{PID: 4242, Comm: "com.x.y", UTime: ticks, STime: 10, StartTime: 500}}
			}
			c.s.res.Samples = []result.Sample{
				{HostNs: 1 * s, UptimeNs: tc.up0, PIDs: []int{4242}, Procs: proc(100)},
				{HostNs: 2 * s, UptimeNs: tc.up1, PIDs: []int{4242}, Procs: proc(160)},
			}
			st := &result.Step{Name: "scroll", HostStartNs: 1*s + s/10, HostEndNs: 2*s - s/10}
			got := c.cpuStats(st)
			if got.Intervals != 1 || math.Abs(got.Mean-tc.pct) > 1e-9 || got.Source != tc.source {
				t.Errorf("cpu %+v, want %.0f %% from %q", got, tc.pct, tc.source)
			}
		})
	}
}

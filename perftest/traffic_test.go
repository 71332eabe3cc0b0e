package perftest

import (
	"testing"

	"github.com/perfgate/perfgate/adbx"
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

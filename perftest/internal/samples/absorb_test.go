package samples

import (
	"bytes"
	"testing"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest/internal/readlog"
	"github.com/perfgate/perfgate/result"
)

func TestSplitBefore(t *testing.T) {
	in := "Name:\ta\nPid:\t1\nName:\tb\nPid:\t2\n"
	parts := splitBefore([]byte(in), "Name:")
	if len(parts) != 2 || string(parts[0]) != "Name:\ta\nPid:\t1\n" || string(parts[1]) != "Name:\tb\nPid:\t2\n" {
		t.Errorf("splitBefore = %q", parts)
	}
	if got := splitBefore([]byte("junk\n"), "Name:"); len(got) != 0 {
		t.Errorf("no prefix: %q", got)
	}
}

func FuzzSplitBefore(f *testing.F) {
	f.Add([]byte("Name:\ta\nPid:\t1\nName:\tb\n"))
	f.Add([]byte("x\nName:"))
	f.Fuzz(func(t *testing.T, b []byte) {
		parts := splitBefore(b, "Name:")
		joined := bytes.Join(parts, nil)
		if !bytes.HasSuffix(b, joined) {
			t.Errorf("parts %q are not a suffix of %q", parts, b)
		}
		for _, p := range parts {
			if !bytes.HasPrefix(p, []byte("Name:")) {
				t.Errorf("part %q does not start with the prefix", p)
			}
		}
	})
}

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
			src := New(Config{Package: "com.x.y"}, Env{Result: &result.Result{}, Note: func(string, ...any) {}, Log: &readlog.Log{}})
			src.Use(Found{Traffic: TrafficUIDStat})
			const cmd = "cat /proc/uid_stat/10123/tcp_rcv /proc/uid_stat/10123/tcp_snd"
			src.absorbTraffic(adbx.Result{Stdout: []byte("1000\n500\n")}, cmd, 1*s, tc.up0)
			src.absorbTraffic(adbx.Result{Stdout: []byte("301000\n75500\n")}, cmd, 2*s, tc.up1)
			st := &result.Step{Name: "scroll", HostStartNs: 1*s + s/10, HostEndNs: 2*s - s/10}
			why := map[metrics.Family]string{}
			tr := src.trafficStats(st, why)
			if tr == nil {
				t.Fatalf("no traffic: %v", why)
			}
			if tr.RxBytes != 300_000 || tr.TxBytes != 75_000 || tr.Clock != tc.clock ||
				tr.RxBytesPerS != tc.rxPS || tr.TxBytesPerS != tc.txPS {
				t.Errorf("traffic %+v, want %.0f / %.0f B/s on the %s clock", *tr, tc.rxPS, tc.txPS, tc.clock)
			}
		})
	}
}

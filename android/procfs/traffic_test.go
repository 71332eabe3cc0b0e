package procfs

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/internal/fixtures"
)

func TestParseTrafficQtaguid(t *testing.T) {
	tests := []struct {
		file   string
		uid    int
		total  TrafficCounters
		ifaces map[string]TrafficCounters
		nUIDs  int
	}{
		{
			// Sums of the tag 0x0 rows of sets 0 and 1, lo and the 0xffffff04… tag left out.
			file: "traffic/blog2017_xt_qtaguid_stats_grep_uid.txt", uid: 10229, nUIDs: 1,
			total: TrafficCounters{406819520, 558166, 36042946, 448888},
			ifaces: map[string]TrafficCounters{
				"tun0":  {1627251 + 341358394, 1728 + 381688, 123455 + 21708316, 1525 + 286335},
				"wlan0": {387926 + 63445949, 4640 + 170110, 506630 + 13704545, 4639 + 156389},
			},
		},
		{
			file: "traffic/lxgblog2019_xt_qtaguid_stats_header_and_uid_rows.txt", uid: 10027, nUIDs: 1,
			total: TrafficCounters{490491, 2486, 1271031, 4096},
			ifaces: map[string]TrafficCounters{
				"rmnet_data0": {451662, 2320, 1193948, 3888},
				"wlan0":       {38829, 166, 77083, 208},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			got, err := ParseTrafficQtaguid(fixtures.Read(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.nUIDs {
				t.Fatalf("%d uids, want %d", len(got), tc.nUIDs)
			}
			u := got[tc.uid]
			if u == nil || u.Total != tc.total {
				t.Fatalf("uid %d = %+v, want total %+v", tc.uid, u, tc.total)
			}
			if len(u.ByIface) != len(tc.ifaces) {
				t.Errorf("ifaces = %v, want %v", u.ByIface, tc.ifaces)
			}
			for k, v := range tc.ifaces {
				if u.ByIface[k] != v {
					t.Errorf("%s = %+v, want %+v", k, u.ByIface[k], v)
				}
			}
		})
	}
	for name, in := range map[string]string{
		"empty":       "",
		"header only": "idx iface acct_tag_hex uid_tag_int cnt_set rx_bytes rx_packets tx_bytes tx_packets\n",
		"short":       "2 wlan0 0x0 10027 1 5\n",
		"bad uid":     "2 wlan0 0x0 u 1 1 2 3 4\n",
		"bad counter": "2 wlan0 0x0 10027 1 1 x 3 4\n",
		"bad tag":     "2 wlan0 zero 10027 1 1 2 3 4\n",
	} {
		t.Run(name, func(t *testing.T) {
			var pe *devtext.ParseError
			if _, err := ParseTrafficQtaguid([]byte(in)); !errors.As(err, &pe) {
				t.Fatalf("err = %v, want *ParseError", err)
			}
		})
	}
}

func TestParseTrafficUIDStat(t *testing.T) {
	for _, tc := range []struct {
		file string
		want uint64
	}{
		{"traffic/blog2017_uid_stat_10096_tcp_rcv.txt", 597160},
		{"traffic/blog2017_uid_stat_10096_tcp_snd.txt", 11120},
	} {
		got, err := ParseTrafficUIDStat(fixtures.Read(t, tc.file))
		if err != nil || got != tc.want {
			t.Errorf("%s = %d, %v; want %d", tc.file, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "12 34", "-5", "cat: /proc/uid_stat/1/tcp_rcv: No such file or directory"} {
		var pe *devtext.ParseError
		if _, err := ParseTrafficUIDStat([]byte(bad)); !errors.As(err, &pe) {
			t.Errorf("%q: err = %v, want *ParseError", bad, err)
		}
	}
}

// No /proc/<pid>/net/dev capture from a device exists in the corpus; this is
// the kernel's layout (net/core/net-procfs.c) with values chosen by hand.
const trafficNetDevSample = `Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:    1200      12    0    0    0     0          0         0     1200      12    0    0    0     0       0          0
 wlan0: 5000000    4000    0    0    0     0          0         0   300000    2500    0    0    0     0       0          0
rmnet_data0:100 1 0 0 0 0 0 0 200 2 0 0 0 0 0 0
`

func TestParseTrafficNetDev(t *testing.T) {
	got, err := ParseTrafficNetDev([]byte(strings.ReplaceAll(trafficNetDevSample, "\n", "\r\n")))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]TrafficCounters{
		"lo":          {1200, 12, 1200, 12},
		"wlan0":       {5000000, 4000, 300000, 2500},
		"rmnet_data0": {100, 1, 200, 2},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %+v, want %+v", k, got[k], v)
		}
	}
	if tot := TrafficNetDevTotal(got); tot != (TrafficCounters{5000100, 4001, 300200, 2502}) {
		t.Errorf("total without lo = %+v", tot)
	}
	for name, in := range map[string]string{
		"empty":    "",
		"no colon": "wlan0 1 2 3 4 5 6 7 8 9 10\n",
		"short":    "wlan0: 1 2 3\n",
		"bad":      "wlan0: 1 x 0 0 0 0 0 0 2 3 0 0 0 0 0 0\n",
	} {
		var pe *devtext.ParseError
		if _, err := ParseTrafficNetDev([]byte(in)); !errors.As(err, &pe) {
			t.Errorf("%s: err = %v, want *ParseError", name, err)
		}
	}
}

func TestTrafficDeltaAndRate(t *testing.T) {
	before := TrafficCounters{1000, 10, 500, 5}
	after := TrafficCounters{4000, 40, 2500, 25}
	d, err := TrafficDelta(before, after)
	if err != nil || d != (TrafficCounters{3000, 30, 2000, 20}) {
		t.Fatalf("delta = %+v, %v", d, err)
	}
	r, err := TrafficRateOf(d, 2*time.Second)
	if err != nil || r != (TrafficRate{1500, 15, 1000, 10}) {
		t.Errorf("rate = %+v, %v", r, err)
	}
	if _, err := TrafficRateOf(d, 0); err == nil {
		t.Error("zero elapsed: no error")
	}
	for _, a := range []TrafficCounters{{999, 10, 500, 5}, {1000, 9, 500, 5}, {1000, 10, 499, 5}, {1000, 10, 500, 4}} {
		if _, err := TrafficDelta(before, a); !errors.Is(err, ErrTrafficCounterReset) {
			t.Errorf("%+v: err = %v, want reset", a, err)
		}
	}
	if z, err := TrafficDelta(before, before); err != nil || z != (TrafficCounters{}) {
		t.Errorf("no change: %+v, %v", z, err)
	}
}

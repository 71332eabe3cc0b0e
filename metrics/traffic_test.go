package metrics

import (
	"errors"
	"strings"
	"testing"
	"time"

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
			var pe *ParseError
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
		var pe *ParseError
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
		var pe *ParseError
		if _, err := ParseTrafficNetDev([]byte(in)); !errors.As(err, &pe) {
			t.Errorf("%s: err = %v, want *ParseError", name, err)
		}
	}
}

func TestParseTrafficNetstatsBPF(t *testing.T) {
	ns, err := ParseTrafficNetstats(fixtures.Read(t, "traffic/xiaomi_pad6_api34_dumpsys_netstats.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ns.AppUIDStats) != 39 {
		t.Errorf("%d uids in mAppUidStatsMap, want 39", len(ns.AppUIDStats))
	}
	for uid, want := range map[int]TrafficCounters{
		10305: {559866767, 457879, 17806124, 50299},
		10307: {1512943404, 1238688, 97190792, 208990},
		0:     {0, 0, 1035904, 25495},
		10163: {3015, 53, 3355, 53},
	} {
		if ns.AppUIDStats[uid] != want {
			t.Errorf("uid %d = %+v, want %+v", uid, ns.AppUIDStats[uid], want)
		}
	}
	// Xt stats: the nine buckets of the three wifi/vpn idents, summed by hand.
	if !ns.HasXtHistory || ns.XtHistory != (TrafficCounters{2975673500, 2439573, 195541617, 439577}) {
		t.Errorf("Xt history = %+v (%v)", ns.XtHistory, ns.HasXtHistory)
	}
	if len(ns.UIDHistory) != 0 {
		t.Errorf("UID history %v, want none (no UID stats section)", ns.UIDHistory)
	}
}

// A `dumpsys netstats detail` UID section as older releases print it, values
// chosen by hand (no pre-10 capture exists in the corpus).
const trafficNetstatsDetailSample = `UID stats:
  Pending bytes: 0
  Complete history:
  ident=[{type=WIFI, subType=COMBINED, networkId="x", metered=false}] uid=10229 set=DEFAULT tag=0x0
    NetworkStatsHistory: bucketDuration=7200
      st=1500000000 rb=100 rp=2 tb=50 tp=1 op=0
      st=1500007200 rb=200 rp=3 tb=70 tp=2 op=0
  ident=[{type=WIFI, subType=COMBINED, networkId="x", metered=false}] uid=10229 set=FOREGROUND tag=0x0
    NetworkStatsHistory: bucketDuration=7200
      st=1500000000 rb=1000 rp=10 tb=500 tp=5 op=0
  ident=[{type=WIFI, subType=COMBINED, networkId="x", metered=false}] uid=10229 set=DEFAULT tag=0xffffff04
    NetworkStatsHistory: bucketDuration=7200
      st=1500000000 rb=9999 rp=99 tb=9999 tp=99 op=0
  ident=[{type=MOBILE, subId=1, metered=true}] uid=1000 set=DEFAULT tag=0x0
    NetworkStatsHistory: bucketDuration=7200
      st=1500000000 rb=5 rp=1 tb=6 tp=1 op=0
`

func TestParseTrafficNetstatsDetail(t *testing.T) {
	ns, err := ParseTrafficNetstats([]byte(trafficNetstatsDetailSample))
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]TrafficCounters{10229: {1300, 15, 620, 8}, 1000: {5, 1, 6, 1}}
	if len(ns.UIDHistory) != 2 || ns.UIDHistory[10229] != want[10229] || ns.UIDHistory[1000] != want[1000] {
		t.Errorf("UID history = %v, want %v", ns.UIDHistory, want)
	}
}

func TestParseTrafficNetstatsErrors(t *testing.T) {
	_, err := ParseTrafficNetstats(fixtures.Read(t, "traffic/sectrollz_dumpsys_netstats_permission_denial.txt"))
	if !errors.Is(err, ErrTrafficPermissionDenied) || !strings.Contains(err.Error(), "uid=10318") {
		t.Errorf("err = %v, want permission denied quoting the line", err)
	}
	for name, in := range map[string]string{
		"empty":       "",
		"bad app row": "BPF map content:\n  mAppUidStatsMap:\n    uid rxBytes rxPackets txBytes txPackets\n    10 1 2 3\n",
		"bad number":  "BPF map content:\n  mAppUidStatsMap:\n    10 1 2 3 x\n",
		"bad bucket":  "Xt stats:\n  ident=[] uid=-1 set=ALL tag=0x0\n      st=1 rb=x rp=1 tb=1 tp=1 op=0\n",
		"bad uid":     "UID stats:\n  ident=[] uid=ten set=ALL tag=0x0\n",
	} {
		var pe *ParseError
		if _, err := ParseTrafficNetstats([]byte(in)); !errors.As(err, &pe) {
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

func FuzzParseTraffic(f *testing.F) {
	memFuzzAddFixtures(f,
		"traffic/blog2017_xt_qtaguid_stats_grep_uid.txt", "traffic/lxgblog2019_xt_qtaguid_stats_header_and_uid_rows.txt",
		"traffic/sectrollz_dumpsys_netstats_permission_denial.txt", "traffic/blog2017_uid_stat_10096_tcp_rcv.txt")
	f.Add([]byte(trafficNetDevSample))
	f.Add([]byte(trafficNetstatsDetailSample))
	f.Add([]byte("BPF map content:\n  mAppUidStatsMap:\n    uid rxBytes rxPackets txBytes txPackets\n    10166 40908 122 23049 117\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if m, err := ParseTrafficQtaguid(b); err == nil {
			for _, u := range m {
				if _, lo := u.ByIface["lo"]; lo {
					t.Fatal("lo counted")
				}
			}
		}
		_, _ = ParseTrafficUIDStat(b)
		_, _ = ParseTrafficNetDev(b)
		_, _ = ParseTrafficNetstats(b)
	})
}

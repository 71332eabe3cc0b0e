package dumpsys

import (
	"errors"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/internal/fixtures"
)

// No /proc/<pid>/net/dev capture from a device exists in the corpus; this is
// the kernel's layout (net/core/net-procfs.c) with values chosen by hand.
const trafficNetDevSample = `Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:    1200      12    0    0    0     0          0         0     1200      12    0    0    0     0       0          0
 wlan0: 5000000    4000    0    0    0     0          0         0   300000    2500    0    0    0     0       0          0
rmnet_data0:100 1 0 0 0 0 0 0 200 2 0 0 0 0 0 0
`

func TestParseTrafficNetstatsBPF(t *testing.T) {
	ns, err := ParseNetstats(fixtures.Read(t, "traffic/xiaomi_pad6_api34_dumpsys_netstats.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ns.AppUIDStats) != 39 {
		t.Errorf("%d uids in mAppUidStatsMap, want 39", len(ns.AppUIDStats))
	}
	for uid, want := range map[int]procfs.TrafficCounters{
		10305: {RxBytes: 559866767, RxPackets: 457879, TxBytes: 17806124, TxPackets: 50299},
		10307: {RxBytes: 1512943404, RxPackets: 1238688, TxBytes: 97190792, TxPackets: 208990},
		0:     {RxBytes: 0, RxPackets: 0, TxBytes: 1035904, TxPackets: 25495},
		10163: {RxBytes: 3015, RxPackets: 53, TxBytes: 3355, TxPackets: 53},
	} {
		if ns.AppUIDStats[uid] != want {
			t.Errorf("uid %d = %+v, want %+v", uid, ns.AppUIDStats[uid], want)
		}
	}
	// Xt stats: the nine buckets of the three wifi/vpn idents, summed by hand.
	if !ns.HasXtHistory || ns.XtHistory != (procfs.TrafficCounters{RxBytes: 2975673500, RxPackets: 2439573, TxBytes: 195541617, TxPackets: 439577}) {
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
	ns, err := ParseNetstats([]byte(trafficNetstatsDetailSample))
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]procfs.TrafficCounters{10229: {RxBytes: 1300, RxPackets: 15, TxBytes: 620, TxPackets: 8}, 1000: {RxBytes: 5, RxPackets: 1, TxBytes: 6, TxPackets: 1}}
	if len(ns.UIDHistory) != 2 || ns.UIDHistory[10229] != want[10229] || ns.UIDHistory[1000] != want[1000] {
		t.Errorf("UID history = %v, want %v", ns.UIDHistory, want)
	}
}

func TestParseTrafficNetstatsErrors(t *testing.T) {
	_, err := ParseNetstats(fixtures.Read(t, "traffic/sectrollz_dumpsys_netstats_permission_denial.txt"))
	if !errors.Is(err, procfs.ErrTrafficPermissionDenied) || !strings.Contains(err.Error(), "uid=10318") {
		t.Errorf("err = %v, want permission denied quoting the line", err)
	}
	for name, in := range map[string]string{
		"empty":       "",
		"bad app row": "BPF map content:\n  mAppUidStatsMap:\n    uid rxBytes rxPackets txBytes txPackets\n    10 1 2 3\n",
		"bad number":  "BPF map content:\n  mAppUidStatsMap:\n    10 1 2 3 x\n",
		"bad bucket":  "Xt stats:\n  ident=[] uid=-1 set=ALL tag=0x0\n      st=1 rb=x rp=1 tb=1 tp=1 op=0\n",
		"bad uid":     "UID stats:\n  ident=[] uid=ten set=ALL tag=0x0\n",
	} {
		var pe *devtext.ParseError
		if _, err := ParseNetstats([]byte(in)); !errors.As(err, &pe) {
			t.Errorf("%s: err = %v, want *ParseError", name, err)
		}
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
		if m, err := procfs.ParseTrafficQtaguid(b); err == nil {
			for _, u := range m {
				if _, lo := u.ByIface["lo"]; lo {
					t.Fatal("lo counted")
				}
			}
		}
		_, _ = procfs.ParseTrafficUIDStat(b)
		_, _ = procfs.ParseTrafficNetDev(b)
		_, _ = ParseNetstats(b)
	})
}

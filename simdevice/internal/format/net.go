package format

import (
	"fmt"
	"io"
	"strings"
)

// packets estimates a packet count from bytes (1200-byte average).
func packets(b int64) int64 { return (b + 1199) / 1200 }

// UIDTraffic is the bytes one UID received and sent since boot.
type UIDTraffic struct {
	UID    int
	Rx, Tx int64
}

// NetDev is /proc/net/dev with wlan0 carrying rx and tx bytes (and
// /proc/<pid>/net/dev, which shows the same device-wide counters: it is per
// network namespace, not per app).
func NetDev(rx, tx int64) string {
	var b strings.Builder
	b.WriteString("Inter-|   Receive                                                |  Transmit\n")
	b.WriteString(" face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n")
	row := func(name string, rx, tx int64) {
		fmt.Fprintf(&b, "%6s: %7d %7d    0    0    0     0          0         0 %8d %7d    0    0    0     0       0          0\n",
			name, rx, packets(rx), tx, packets(tx))
	}
	row("lo", 107_299_744, 107_299_744)
	row("dummy0", 0, 18_334)
	row("wlan0", rx, tx)
	row("rmnet_data0", 0, 0)
	return b.String()
}

// XtQtaguid is /proc/net/xt_qtaguid/stats (API ≤ 28, lxgblog2019 capture
// layout) over uids, sorted by UID: per UID tag 0x0 rows for counter sets 0
// (background) and 1 (foreground), plus one tagged row of the app that
// parsers must not add to the totals. The app's traffic is all foreground;
// a third of every other UID's is background.
func XtQtaguid(uids []UIDTraffic, appUID int) string {
	var b strings.Builder
	b.WriteString("idx iface acct_tag_hex uid_tag_int cnt_set rx_bytes rx_packets tx_bytes tx_packets rx_tcp_bytes rx_tcp_packets rx_udp_bytes rx_udp_packets rx_other_bytes rx_other_packets tx_tcp_bytes tx_tcp_packets tx_udp_bytes tx_udp_packets tx_other_bytes tx_other_packets\n")
	idx := 2
	row := func(tag string, uid, set int, rx, tx int64) {
		fmt.Fprintf(&b, "%d wlan0 %s %d %d %d %d %d %d %d %d 0 0 0 0 %d %d 0 0 0 0\n",
			idx, tag, uid, set, rx, packets(rx), tx, packets(tx), rx, packets(rx), tx, packets(tx))
		idx++
	}
	for _, t := range uids {
		if t.UID == appUID {
			row("0x0", t.UID, 0, 0, 0)
			row("0x0", t.UID, 1, t.Rx, t.Tx)
			row("0xffffff0400000000", t.UID, 1, t.Rx/4, t.Tx/4)
			continue
		}
		row("0x0", t.UID, 0, t.Rx/3, t.Tx/3)
		row("0x0", t.UID, 1, t.Rx-t.Rx/3, t.Tx-t.Tx/3)
	}
	return b.String()
}

// Netstats is `dumpsys netstats [detail]` of a phone on one Wi-Fi network.
type Netstats struct {
	API    int
	Detail bool  // detail or --full: the per-UID history
	Start  int64 // wall time of the current history bucket, s
	// Rx and Tx are the device's bytes on wlan0; UIDs each UID's, sorted
	// by UID.
	Rx, Tx int64
	UIDs   []UIDTraffic
	AppUID int // the UID in the foreground counter set
}

// WriteNetstats writes n (API ≥ 29, xiaomi_pad6 capture layout): the eBPF
// mAppUidStatsMap per UID, and with Detail the "UID stats:" history. API 28
// prints its pre-eBPF form without the map.
func WriteNetstats(w io.Writer, n Netstats) {
	var b strings.Builder
	ident := "ident=[{type=1, ratType=COMBINED, wifiNetworkKey=\"perfgate\"wpa2-psk, metered=false, defaultNetwork=true, oemManaged=OEM_NONE, subId=-1, transports={1}}]"
	if n.API < 31 {
		ident = "ident=[{type=WIFI, subType=COMBINED, networkId=\"perfgate\", metered=false, defaultNetwork=true}]"
	}
	b.WriteString("Active interfaces:\n")
	fmt.Fprintf(&b, "  iface=wlan0 %s\n", ident)
	b.WriteString("Active UID interfaces:\n")
	fmt.Fprintf(&b, "  iface=wlan0 %s\n", ident)
	st, rx, tx := n.Start, n.Rx, n.Tx
	b.WriteString("Dev stats:\n  Pending bytes: 0\n  History since boot:\n")
	fmt.Fprintf(&b, "  %s uid=-1 set=ALL tag=0x0\n    NetworkStatsHistory: bucketDuration=3600\n      st=%d rb=%d rp=%d tb=%d tp=%d op=0\n", ident, st, rx, packets(rx), tx, packets(tx))
	b.WriteString("Xt stats:\n  Pending bytes: 0\n  History since boot:\n")
	fmt.Fprintf(&b, "  %s uid=-1 set=ALL tag=0x0\n    NetworkStatsHistory: bucketDuration=3600\n      st=%d rb=%d rp=%d tb=%d tp=%d op=0\n", ident, st, rx, packets(rx), tx, packets(tx))
	if n.Detail {
		b.WriteString("UID stats:\n  Pending bytes: 0\n  Complete history:\n")
		for _, t := range n.UIDs {
			fmt.Fprintf(&b, "  %s uid=%d set=DEFAULT tag=0x0\n    NetworkStatsHistory: bucketDuration=7200\n      st=%d rb=%d rp=%d tb=%d tp=%d op=0\n",
				ident, t.UID, st, t.Rx, packets(t.Rx), t.Tx, packets(t.Tx))
		}
	}
	if n.API >= 29 {
		b.WriteString("\nBPF map status:\n  mCookieTagMap: OK\n  mUidCounterSetMap: OK\n  mAppUidStatsMap: OK\n  mStatsMapA: OK\n  mStatsMapB: OK\n  mIfaceStatsMap: OK\n")
		b.WriteString("\nBPF map content:\n  mUidCounterSetMap:\n")
		fmt.Fprintf(&b, "    uid=%d set=1\n", n.AppUID)
		b.WriteString("  mAppUidStatsMap:\n    uid rxBytes rxPackets txBytes txPackets\n")
		for _, t := range n.UIDs {
			fmt.Fprintf(&b, "    %d %d %d %d %d\n", t.UID, t.Rx, packets(t.Rx), t.Tx, packets(t.Tx))
		}
		b.WriteString("  mIfaceStatsMap:\n    ifaceIndex ifaceName rxBytes rxPackets txBytes txPackets\n")
		fmt.Fprintf(&b, "    10 wlan0 %d %d %d %d\n", rx, packets(rx), tx, packets(tx))
	}
	io.WriteString(w, b.String())
}

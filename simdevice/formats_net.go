package simdevice

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// packets estimates a packet count from bytes (1200-byte average).
func packets(b int64) int64 { return (b + 1199) / 1200 }

func (w *World) uidsSorted() []int {
	var uids []int
	for u := range w.traffic {
		uids = append(uids, u)
	}
	slices.Sort(uids)
	return uids
}

// deviceBytes sums every UID's traffic: what the wlan0 interface carried.
func (w *World) deviceBytes() (rx, tx int64) {
	for _, t := range w.traffic {
		rx += int64(t.rx)
		tx += int64(t.tx)
	}
	return rx, tx
}

// netDevLocked is /proc/net/dev (and /proc/<pid>/net/dev, which shows the
// same device-wide counters: it is per network namespace, not per app).
func (w *World) netDevLocked() string {
	rx, tx := w.deviceBytes()
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

// xtQtaguidLocked is /proc/net/xt_qtaguid/stats (API ≤ 28, lxgblog2019
// capture layout): per UID tag 0x0 rows for counter sets 0 (background)
// and 1 (foreground), plus one tagged row of the app that parsers must not
// add to the totals.
func (w *World) xtQtaguidLocked() string {
	var b strings.Builder
	b.WriteString("idx iface acct_tag_hex uid_tag_int cnt_set rx_bytes rx_packets tx_bytes tx_packets rx_tcp_bytes rx_tcp_packets rx_udp_bytes rx_udp_packets rx_other_bytes rx_other_packets tx_tcp_bytes tx_tcp_packets tx_udp_bytes tx_udp_packets tx_other_bytes tx_other_packets\n")
	idx := 2
	row := func(tag string, uid, set int, rx, tx int64) {
		fmt.Fprintf(&b, "%d wlan0 %s %d %d %d %d %d %d %d %d 0 0 0 0 %d %d 0 0 0 0\n",
			idx, tag, uid, set, rx, packets(rx), tx, packets(tx), rx, packets(rx), tx, packets(tx))
		idx++
	}
	for _, uid := range w.uidsSorted() {
		t := w.traffic[uid]
		rx, tx := int64(t.rx), int64(t.tx)
		if uid == w.wl.UID {
			// The app's traffic is all foreground (counter set 1).
			row("0x0", uid, 0, 0, 0)
			row("0x0", uid, 1, rx, tx)
			row("0xffffff0400000000", uid, 1, rx/4, tx/4)
			continue
		}
		row("0x0", uid, 0, rx/3, tx/3)
		row("0x0", uid, 1, rx-rx/3, tx-tx/3)
	}
	return b.String()
}

// dumpsysNetstats is `dumpsys netstats [detail]` (API ≥ 29, xiaomi_pad6
// capture layout): the eBPF mAppUidStatsMap per UID, and with detail the
// "UID stats:" history. API 28 prints its pre-eBPF form without the map.
func (w *World) dumpsysNetstats(args []string, stdout io.Writer) int {
	detail := slices.Contains(args, "detail") || slices.Contains(args, "--full")
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	var b strings.Builder
	ident := "ident=[{type=1, ratType=COMBINED, wifiNetworkKey=\"perfgate\"wpa2-psk, metered=false, defaultNetwork=true, oemManaged=OEM_NONE, subId=-1, transports={1}}]"
	if w.cfg.API < 31 {
		ident = "ident=[{type=WIFI, subType=COMBINED, networkId=\"perfgate\", metered=false, defaultNetwork=true}]"
	}
	b.WriteString("Active interfaces:\n")
	fmt.Fprintf(&b, "  iface=wlan0 %s\n", ident)
	b.WriteString("Active UID interfaces:\n")
	fmt.Fprintf(&b, "  iface=wlan0 %s\n", ident)
	// History buckets are an hour long and start at whole hours of wall time.
	st := w.bootWall.Unix() + w.now/1e9
	st -= st % 3600
	rx, tx := w.deviceBytes()
	b.WriteString("Dev stats:\n  Pending bytes: 0\n  History since boot:\n")
	fmt.Fprintf(&b, "  %s uid=-1 set=ALL tag=0x0\n    NetworkStatsHistory: bucketDuration=3600\n      st=%d rb=%d rp=%d tb=%d tp=%d op=0\n", ident, st, rx, packets(rx), tx, packets(tx))
	b.WriteString("Xt stats:\n  Pending bytes: 0\n  History since boot:\n")
	fmt.Fprintf(&b, "  %s uid=-1 set=ALL tag=0x0\n    NetworkStatsHistory: bucketDuration=3600\n      st=%d rb=%d rp=%d tb=%d tp=%d op=0\n", ident, st, rx, packets(rx), tx, packets(tx))
	if detail {
		b.WriteString("UID stats:\n  Pending bytes: 0\n  Complete history:\n")
		for _, uid := range w.uidsSorted() {
			t := w.traffic[uid]
			r, x := int64(t.rx), int64(t.tx)
			fmt.Fprintf(&b, "  %s uid=%d set=DEFAULT tag=0x0\n    NetworkStatsHistory: bucketDuration=7200\n      st=%d rb=%d rp=%d tb=%d tp=%d op=0\n",
				ident, uid, st, r, packets(r), x, packets(x))
		}
	}
	if w.cfg.API >= 29 {
		b.WriteString("\nBPF map status:\n  mCookieTagMap: OK\n  mUidCounterSetMap: OK\n  mAppUidStatsMap: OK\n  mStatsMapA: OK\n  mStatsMapB: OK\n  mIfaceStatsMap: OK\n")
		b.WriteString("\nBPF map content:\n  mUidCounterSetMap:\n")
		fmt.Fprintf(&b, "    uid=%d set=1\n", w.wl.UID)
		b.WriteString("  mAppUidStatsMap:\n    uid rxBytes rxPackets txBytes txPackets\n")
		for _, uid := range w.uidsSorted() {
			t := w.traffic[uid]
			r, x := int64(t.rx), int64(t.tx)
			fmt.Fprintf(&b, "    %d %d %d %d %d\n", uid, r, packets(r), x, packets(x))
		}
		b.WriteString("  mIfaceStatsMap:\n    ifaceIndex ifaceName rxBytes rxPackets txBytes txPackets\n")
		fmt.Fprintf(&b, "    10 wlan0 %d %d %d %d\n", rx, packets(rx), tx, packets(tx))
	}
	io.WriteString(stdout, b.String())
	return 0
}

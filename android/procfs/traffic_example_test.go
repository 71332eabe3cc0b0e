package procfs_test

import (
	"fmt"
	"time"

	"github.com/perfgate/perfgate/android/procfs"
)

func ExampleParseTrafficQtaguid() {
	stats := []byte(`idx iface acct_tag_hex uid_tag_int cnt_set rx_bytes rx_packets tx_bytes tx_packets
2 wlan0 0x0 10027 0 1000 10 500 5
3 wlan0 0x0 10027 1 3000 20 1500 10
4 wlan0 0xffffff0400000000 10027 1 900 9 900 9
5 lo 0x0 10027 1 7777 7 7777 7
`)
	uids, err := procfs.ParseTrafficQtaguid(stats)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v\n", uids[10027].Total)
	// Output: {RxBytes:4000 RxPackets:30 TxBytes:2000 TxPackets:15}
}

func ExampleTrafficDelta() {
	before := procfs.TrafficCounters{RxBytes: 4000, RxPackets: 30, TxBytes: 2000, TxPackets: 15}
	after := procfs.TrafficCounters{RxBytes: 24000, RxPackets: 50, TxBytes: 3000, TxPackets: 25}
	d, err := procfs.TrafficDelta(before, after)
	if err != nil {
		fmt.Println(err)
		return
	}
	r, _ := procfs.TrafficRateOf(d, 2*time.Second)
	fmt.Printf("rx %d B (%.0f B/s), tx %d B (%.0f B/s)\n", d.RxBytes, r.RxBytesPerSec, d.TxBytes, r.TxBytesPerSec)

	_, err = procfs.TrafficDelta(after, before)
	fmt.Println(err)
	// Output:
	// rx 20000 B (10000 B/s), tx 1000 B (500 B/s)
	// traffic: counter went backwards (reboot, interface reset or stats deleted)
}

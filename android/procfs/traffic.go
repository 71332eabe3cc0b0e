package procfs

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/internal/excerpt"
)

// TrafficCounters are cumulative network counters since boot (or since the
// interface came up).
type TrafficCounters struct {
	RxBytes, RxPackets, TxBytes, TxPackets uint64
}

// Add returns c + o.
func (c TrafficCounters) Add(o TrafficCounters) TrafficCounters {
	return TrafficCounters{c.RxBytes + o.RxBytes, c.RxPackets + o.RxPackets, c.TxBytes + o.TxBytes, c.TxPackets + o.TxPackets}
}

// ErrTrafficPermissionDenied is matched (errors.Is) when `dumpsys netstats`
// refused the caller ("Permission Denial: can't dump NetworkStats ...",
// run from an app uid without android.permission.DUMP).
var ErrTrafficPermissionDenied = errors.New("permission denied")

// ErrTrafficCounterReset is returned by TrafficDelta when a counter went
// backwards: the device rebooted, the interface went down and came back, or
// (xt_qtaguid) the uid's stats were deleted. Callers restart the series from
// the later sample rather than report a negative or wrapped delta.
var ErrTrafficCounterReset = errors.New("traffic: counter went backwards (reboot, interface reset or stats deleted)")

// TrafficUID is one uid's traffic from /proc/net/xt_qtaguid/stats.
type TrafficUID struct {
	UID     int
	Total   TrafficCounters            // all interfaces except lo
	ByIface map[string]TrafficCounters // lo excluded
}

// TrafficQtaguidSource names /proc/net/xt_qtaguid/stats in errors.
const TrafficQtaguidSource = "/proc/net/xt_qtaguid/stats"

// ParseTrafficQtaguid parses /proc/net/xt_qtaguid/stats (Android ≤ 9), with
// its header line or without it (`| grep <uid>`). Per the traffic metric
// definition it sums the tag 0x0 rows (a uid's untagged total; tagged rows
// repeat part of it) of both counter sets (0 background, 1 foreground), per
// uid and interface, and leaves out the loopback interface lo.
func ParseTrafficQtaguid(b []byte) (map[int]*TrafficUID, error) {
	out := map[int]*TrafficUID{}
	rows := 0
	for i, ln := range strings.Split(string(devtext.Normalize(b)), "\n") {
		f := strings.Fields(ln)
		if len(f) == 0 {
			continue
		}
		if f[0] == "idx" {
			continue // header
		}
		bad := func(reason string) (map[int]*TrafficUID, error) {
			return nil, &devtext.ParseError{Source: TrafficQtaguidSource, Line: i + 1, Text: ln, Reason: reason}
		}
		if len(f) < 9 {
			return bad(fmt.Sprintf("%d fields, want at least 9", len(f)))
		}
		rows++
		tag, uidText, iface := f[2], f[3], f[1]
		uid, err := strconv.Atoi(uidText)
		if err != nil {
			return bad("bad uid")
		}
		var v [4]uint64
		for j := range v {
			if v[j], err = strconv.ParseUint(f[5+j], 10, 64); err != nil {
				return bad(fmt.Sprintf("bad counter %s", excerpt.Quote(f[5+j])))
			}
		}
		if !strings.HasPrefix(tag, "0x") {
			return bad("bad tag")
		}
		if tag != "0x0" || iface == "lo" {
			continue
		}
		u := out[uid]
		if u == nil {
			u = &TrafficUID{UID: uid, ByIface: map[string]TrafficCounters{}}
			out[uid] = u
		}
		c := TrafficCounters{v[0], v[1], v[2], v[3]}
		u.ByIface[iface] = u.ByIface[iface].Add(c)
		u.Total = u.Total.Add(c)
	}
	if rows == 0 {
		return nil, &devtext.ParseError{Source: TrafficQtaguidSource, Reason: "no rows"}
	}
	return out, nil
}

// ParseTrafficUIDStat parses /proc/uid_stat/<uid>/tcp_snd or tcp_rcv
// (Android ≤ 7 kernels): one byte count, TCP only.
func ParseTrafficUIDStat(b []byte) (uint64, error) {
	const src = "/proc/uid_stat/<uid>"
	t := strings.TrimSpace(string(devtext.Normalize(b)))
	v, err := strconv.ParseUint(t, 10, 64)
	if err != nil {
		return 0, &devtext.ParseError{Source: src, Line: 1, Text: t, Reason: "want one byte count"}
	}
	return v, nil
}

// TrafficNetDevSource names /proc/net/dev in errors.
const TrafficNetDevSource = "/proc/<pid>/net/dev"

// ParseTrafficNetDev parses /proc/<pid>/net/dev (or /proc/net/dev). The
// counters are device-wide, not per app: every process in the same network
// namespace sees the same file. It returns every interface, lo included;
// use TrafficNetDevTotal for the sum a report shows (with scope "device").
func ParseTrafficNetDev(b []byte) (map[string]TrafficCounters, error) {
	out := map[string]TrafficCounters{}
	for i, ln := range strings.Split(string(devtext.Normalize(b)), "\n") {
		t := strings.TrimSpace(ln)
		if t == "" || strings.Contains(t, "|") {
			continue // the two header lines
		}
		name, rest, ok := strings.Cut(t, ":")
		if !ok {
			return nil, &devtext.ParseError{Source: TrafficNetDevSource, Line: i + 1, Text: ln, Reason: "no 'iface:'"}
		}
		f := strings.Fields(rest)
		if len(f) < 10 {
			return nil, &devtext.ParseError{Source: TrafficNetDevSource, Line: i + 1, Text: ln, Reason: fmt.Sprintf("%d counters, want 16", len(f))}
		}
		var v [4]uint64
		for j, k := range [4]int{0, 1, 8, 9} { // rx bytes, rx packets, tx bytes, tx packets
			n, err := strconv.ParseUint(f[k], 10, 64)
			if err != nil {
				return nil, &devtext.ParseError{Source: TrafficNetDevSource, Line: i + 1, Text: ln, Reason: fmt.Sprintf("bad counter %s", excerpt.Quote(f[k]))}
			}
			v[j] = n
		}
		out[strings.TrimSpace(name)] = TrafficCounters{v[0], v[1], v[2], v[3]}
	}
	if len(out) == 0 {
		return nil, &devtext.ParseError{Source: TrafficNetDevSource, Reason: "no interfaces"}
	}
	return out, nil
}

// TrafficNetDevTotal sums the interfaces of ParseTrafficNetDev, leaving out
// lo (loopback traffic never leaves the device).
func TrafficNetDevTotal(ifaces map[string]TrafficCounters) TrafficCounters {
	var t TrafficCounters
	for name, c := range ifaces {
		if name != "lo" {
			t = t.Add(c)
		}
	}
	return t
}

// TrafficDelta returns after − before. A counter that went backwards gives
// ErrTrafficCounterReset (see there); the caller restarts from after.
func TrafficDelta(before, after TrafficCounters) (TrafficCounters, error) {
	if after.RxBytes < before.RxBytes || after.RxPackets < before.RxPackets ||
		after.TxBytes < before.TxBytes || after.TxPackets < before.TxPackets {
		return TrafficCounters{}, ErrTrafficCounterReset
	}
	return TrafficCounters{
		after.RxBytes - before.RxBytes, after.RxPackets - before.RxPackets,
		after.TxBytes - before.TxBytes, after.TxPackets - before.TxPackets,
	}, nil
}

// TrafficRate is a delta divided by the time it took.
type TrafficRate struct {
	RxBytesPerSec, RxPacketsPerSec, TxBytesPerSec, TxPacketsPerSec float64
}

// TrafficRateOf divides a delta by elapsed, which must be positive.
func TrafficRateOf(delta TrafficCounters, elapsed time.Duration) (TrafficRate, error) {
	if elapsed <= 0 {
		return TrafficRate{}, fmt.Errorf("traffic: elapsed time %v, want > 0", elapsed)
	}
	s := elapsed.Seconds()
	return TrafficRate{
		float64(delta.RxBytes) / s, float64(delta.RxPackets) / s,
		float64(delta.TxBytes) / s, float64(delta.TxPackets) / s,
	}, nil
}

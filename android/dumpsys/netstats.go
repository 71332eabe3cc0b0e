package dumpsys

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/internal/excerpt"
)

// TrafficNetstatsSource names `dumpsys netstats` in errors.
const NetstatsSource = "dumpsys netstats"

// TrafficNetstats is what perfgate reads from `dumpsys netstats [detail]`.
type Netstats struct {
	// AppUIDStats is the eBPF map mAppUidStatsMap (Android 10+): per uid
	// counters since boot over all interfaces (loopback included, as the
	// kernel counts it).
	AppUIDStats map[int]procfs.TrafficCounters
	// UIDHistory sums the history buckets (st= rb= rp= tb= tp=) of the
	// "UID stats:" section's tag=0x0 entries per uid (`dumpsys netstats
	// detail` on releases that print it).
	UIDHistory map[int]procfs.TrafficCounters
	// XtHistory sums the buckets of the "Xt stats:" section: device-wide.
	XtHistory    procfs.TrafficCounters
	HasXtHistory bool
}

// ParseTrafficNetstats parses `dumpsys netstats` and `dumpsys netstats
// detail`. "Permission Denial: ..." returns an error matching
// ErrTrafficPermissionDenied that quotes the line.
func ParseNetstats(b []byte) (Netstats, error) {
	ns := Netstats{AppUIDStats: map[int]procfs.TrafficCounters{}, UIDHistory: map[int]procfs.TrafficCounters{}}
	section := ""
	inAppMap := false
	curUID := 0
	curUIDOK := false // the ident line above the buckets is a tag=0x0 uid entry
	for i, ln := range strings.Split(string(devtext.Normalize(b)), "\n") {
		t := strings.TrimSpace(ln)
		if strings.HasPrefix(t, "Permission Denial") {
			return Netstats{}, fmt.Errorf("%s: %w: %s", NetstatsSource, procfs.ErrTrafficPermissionDenied, excerpt.Quote(t))
		}
		bad := func(reason string) (Netstats, error) {
			return Netstats{}, &devtext.ParseError{Source: NetstatsSource, Line: i + 1, Text: ln, Reason: reason}
		}
		// Unindented lines open sections ("Xt stats:", "UID stats:", "BPF map content:").
		if t != "" && !strings.HasPrefix(ln, " ") && strings.HasSuffix(t, ":") {
			section, inAppMap = t, false
			continue
		}
		if strings.HasSuffix(t, ":") && strings.HasPrefix(t, "m") {
			inAppMap = t == "mAppUidStatsMap:"
			continue
		}
		switch {
		case inAppMap:
			f := strings.Fields(t)
			if len(f) == 0 || f[0] == "uid" {
				continue
			}
			if len(f) != 5 {
				return bad("mAppUidStatsMap row: want uid rxBytes rxPackets txBytes txPackets")
			}
			var v [5]uint64
			for j := range v {
				n, err := strconv.ParseUint(f[j], 10, 64)
				if err != nil {
					return bad(fmt.Sprintf("bad number %s", excerpt.Quote(f[j])))
				}
				v[j] = n
			}
			ns.AppUIDStats[int(v[0])] = ns.AppUIDStats[int(v[0])].Add(procfs.TrafficCounters{RxBytes: v[1], RxPackets: v[2], TxBytes: v[3], TxPackets: v[4]})
		case strings.HasPrefix(t, "ident="):
			curUIDOK = false
			uidText := trafficField(t, "uid=")
			tag := trafficField(t, "tag=")
			if uidText == "" {
				continue
			}
			uid, err := strconv.Atoi(uidText)
			if err != nil {
				return bad("bad uid")
			}
			curUID, curUIDOK = uid, tag == "0x0"
		case strings.HasPrefix(t, "st="):
			var c procfs.TrafficCounters
			for _, kv := range [...]struct {
				key string
				dst *uint64
			}{{"rb=", &c.RxBytes}, {"rp=", &c.RxPackets}, {"tb=", &c.TxBytes}, {"tp=", &c.TxPackets}} {
				s := trafficField(t, kv.key)
				n, err := strconv.ParseUint(s, 10, 64)
				if err != nil {
					return bad(fmt.Sprintf("bad %s%s", kv.key, excerpt.Quote(s)))
				}
				*kv.dst = n
			}
			switch section {
			case "Xt stats:":
				ns.XtHistory, ns.HasXtHistory = ns.XtHistory.Add(c), true
			case "UID stats:":
				if curUIDOK {
					ns.UIDHistory[curUID] = ns.UIDHistory[curUID].Add(c)
				}
			}
		}
	}
	if len(ns.AppUIDStats) == 0 && len(ns.UIDHistory) == 0 && !ns.HasXtHistory {
		return Netstats{}, &devtext.ParseError{Source: NetstatsSource, Reason: "no mAppUidStatsMap, UID stats or Xt stats"}
	}
	return ns, nil
}

// trafficField returns the value after key (" uid=10229 set=DEFAULT" → "10229"),
// up to the next space or ',', or "" when key is absent.
func trafficField(s, key string) string {
	for off := 0; ; {
		j := strings.Index(s[off:], key)
		if j < 0 {
			return ""
		}
		j += off
		// Match whole keys only: "uid=" must not match inside "subId=".
		if j == 0 || s[j-1] == ' ' || s[j-1] == ',' || s[j-1] == '{' {
			v := s[j+len(key):]
			if k := strings.IndexAny(v, " ,}"); k >= 0 {
				v = v[:k]
			}
			return v
		}
		off = j + len(key)
	}
}

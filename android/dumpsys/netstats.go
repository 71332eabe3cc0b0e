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
	p := netstatsParser{ns: Netstats{AppUIDStats: map[int]procfs.TrafficCounters{}, UIDHistory: map[int]procfs.TrafficCounters{}}}
	for i, ln := range strings.Split(string(devtext.Normalize(b)), "\n") {
		t := strings.TrimSpace(ln)
		if strings.HasPrefix(t, "Permission Denial") {
			return Netstats{}, fmt.Errorf("%s: %w: %s", NetstatsSource, procfs.ErrTrafficPermissionDenied, excerpt.Quote(t))
		}
		if reason := p.line(ln, t); reason != "" {
			return Netstats{}, &devtext.ParseError{Source: NetstatsSource, Line: i + 1, Text: ln, Reason: reason}
		}
	}
	ns := p.ns
	if len(ns.AppUIDStats) == 0 && len(ns.UIDHistory) == 0 && !ns.HasXtHistory {
		return Netstats{}, &devtext.ParseError{Source: NetstatsSource, Reason: "no mAppUidStatsMap, UID stats or Xt stats"}
	}
	return ns, nil
}

// netstatsParser is the state of ParseNetstats between lines.
type netstatsParser struct {
	ns       Netstats
	section  string
	inAppMap bool
	curUID   int
	curUIDOK bool // the ident line above the buckets is a tag=0x0 uid entry
}

// line reads ln (t trimmed) and returns why it is malformed, or "".
func (p *netstatsParser) line(ln, t string) string {
	// Unindented lines open sections ("Xt stats:", "UID stats:", "BPF map content:").
	if t != "" && !strings.HasPrefix(ln, " ") && strings.HasSuffix(t, ":") {
		p.section, p.inAppMap = t, false
		return ""
	}
	if strings.HasSuffix(t, ":") && strings.HasPrefix(t, "m") {
		p.inAppMap = t == "mAppUidStatsMap:"
		return ""
	}
	switch {
	case p.inAppMap:
		return p.appMapRow(t)
	case strings.HasPrefix(t, "ident="):
		return p.ident(t)
	case strings.HasPrefix(t, "st="):
		return p.bucket(t)
	}
	return ""
}

// appMapRow reads a row of mAppUidStatsMap: uid rxBytes rxPackets txBytes
// txPackets.
func (p *netstatsParser) appMapRow(t string) string {
	f := strings.Fields(t)
	if len(f) == 0 || f[0] == "uid" {
		return ""
	}
	if len(f) != 5 {
		return "mAppUidStatsMap row: want uid rxBytes rxPackets txBytes txPackets"
	}
	var v [5]uint64
	for j := range v {
		n, err := strconv.ParseUint(f[j], 10, 64)
		if err != nil {
			return fmt.Sprintf("bad number %s", excerpt.Quote(f[j]))
		}
		v[j] = n
	}
	p.ns.AppUIDStats[int(v[0])] = p.ns.AppUIDStats[int(v[0])].Add(procfs.TrafficCounters{RxBytes: v[1], RxPackets: v[2], TxBytes: v[3], TxPackets: v[4]})
	return ""
}

// ident reads an "ident=[...] uid=N set=... tag=0x0" line: the buckets
// below it count for that uid when the tag is 0x0.
func (p *netstatsParser) ident(t string) string {
	p.curUIDOK = false
	uidText := devtext.Field(t, "uid=")
	tag := devtext.Field(t, "tag=")
	if uidText == "" {
		return ""
	}
	uid, err := strconv.Atoi(uidText)
	if err != nil {
		return "bad uid"
	}
	p.curUID, p.curUIDOK = uid, tag == "0x0"
	return ""
}

// bucket reads a history bucket, "st=... rb=N rp=N tb=N tp=N", into the
// section's sums.
func (p *netstatsParser) bucket(t string) string {
	var c procfs.TrafficCounters
	for _, kv := range [...]struct {
		key string
		dst *uint64
	}{{"rb=", &c.RxBytes}, {"rp=", &c.RxPackets}, {"tb=", &c.TxBytes}, {"tp=", &c.TxPackets}} {
		s := devtext.Field(t, kv.key)
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return fmt.Sprintf("bad %s%s", kv.key, excerpt.Quote(s))
		}
		*kv.dst = n
	}
	switch p.section {
	case "Xt stats:":
		p.ns.XtHistory, p.ns.HasXtHistory = p.ns.XtHistory.Add(c), true
	case "UID stats:":
		if p.curUIDOK {
			p.ns.UIDHistory[p.curUID] = p.ns.UIDHistory[p.curUID].Add(c)
		}
	}
	return ""
}

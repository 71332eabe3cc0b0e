package dumpsys

import (
	"github.com/perfgate/perfgate/android/devtext"
	"strconv"
	"strings"
)

// CPUInfoSource names `dumpsys cpuinfo` in errors.
const CPUInfoSource = "dumpsys cpuinfo"

// CPUInfo is `dumpsys cpuinfo`: the load averages and the per-process and
// total metrics.CPU use over the interval the system measured (not one perfgate
// chose; prefer /proc sampling for gates).
type CPUInfo struct {
	Load  [3]float64 // 1, 5 and 15 minute load averages
	Procs []CPUInfoProc
	Total CPUInfoProc // the "TOTAL:" line; PID 0, Name "TOTAL"
}

// CPUInfoProc is one process line: "47% 844/system_server: 37% user + 10% kernel".
// Parts holds every "N% name" term after the colon (user, kernel, iowait,
// irq, softirq).
type CPUInfoProc struct {
	PID     int
	Name    string
	Percent float64
	Parts   map[string]float64
}

// ParseCPUInfo parses `dumpsys cpuinfo`. Process names may contain ':'
// ("com.google.android.googlequicksearchbox:search").
func ParseCPUInfo(b []byte) (CPUInfo, error) {
	var ci CPUInfo
	sawLoad, sawTotal := false, false
	for i, ln := range strings.Split(string(devtext.Normalize(b)), "\n") {
		t := strings.TrimSpace(ln)
		bad := func(reason string) (CPUInfo, error) {
			return CPUInfo{}, &devtext.ParseError{Source: CPUInfoSource, Line: i + 1, Text: ln, Reason: reason}
		}
		switch {
		case t == "":
			continue
		case strings.HasPrefix(t, "Load:"):
			f := strings.Split(strings.TrimPrefix(t, "Load:"), "/")
			if len(f) != 3 {
				return bad("want three load averages")
			}
			for j, s := range f {
				v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
				if err != nil {
					return bad("bad load average")
				}
				ci.Load[j] = v
			}
			sawLoad = true
		case strings.HasPrefix(t, "CPU usage from"):
			continue
		default:
			pctText, rest, ok := strings.Cut(t, "% ")
			if !ok {
				continue // other headers vary by release; only percent lines carry data
			}
			pct, err := strconv.ParseFloat(strings.TrimPrefix(pctText, "+"), 64)
			if err != nil {
				continue
			}
			// The name ends at the ": " before the first "N% " term.
			sep := strings.LastIndex(rest, ": ")
			for sep >= 0 && !cpuInfoStartsWithPercent(rest[sep+2:]) {
				sep = strings.LastIndex(rest[:sep], ": ")
			}
			if sep < 0 {
				return bad("no ': N% user' part")
			}
			who, terms := rest[:sep], rest[sep+2:]
			p := CPUInfoProc{Percent: pct, Parts: map[string]float64{}}
			if who == "TOTAL" {
				p.Name = "TOTAL"
			} else {
				pidText, name, ok := strings.Cut(who, "/")
				pid, err := strconv.Atoi(pidText)
				if !ok || err != nil {
					return bad("want pid/name")
				}
				p.PID, p.Name = pid, name
			}
			terms, _, _ = strings.Cut(terms, " / ") // drop "/ faults: ..."
			for _, term := range strings.Split(terms, " + ") {
				v, name, ok := strings.Cut(strings.TrimSpace(term), "% ")
				if !ok {
					return bad("bad term " + strconv.Quote(term))
				}
				x, err := strconv.ParseFloat(strings.TrimPrefix(v, "+"), 64)
				if err != nil {
					return bad("bad percent " + strconv.Quote(v))
				}
				p.Parts[name] = x
			}
			if p.Name == "TOTAL" {
				ci.Total, sawTotal = p, true
			} else {
				ci.Procs = append(ci.Procs, p)
			}
		}
	}
	if !sawLoad && !sawTotal && len(ci.Procs) == 0 {
		return CPUInfo{}, &devtext.ParseError{Source: CPUInfoSource, Reason: "no Load, process or TOTAL line"}
	}
	return ci, nil
}

func cpuInfoStartsWithPercent(s string) bool {
	v, _, ok := strings.Cut(s, "% ")
	if !ok {
		return false
	}
	_, err := strconv.ParseFloat(strings.TrimPrefix(v, "+"), 64)
	return err == nil
}

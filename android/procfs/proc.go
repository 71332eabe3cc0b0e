package procfs

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/internal/excerpt"
)

// CPUTimes is one `cpu` or `cpuN` line of /proc/stat, in clock ticks
// (USER_HZ, 100 per second on Android). Columns a kernel does not print are 0.
// The JSON names are a Result sample's; guest time, already counted in user
// and nice, is not kept there.
type CPUTimes struct {
	User      uint64 `json:"user"`
	Nice      uint64 `json:"nice"`
	System    uint64 `json:"system"`
	Idle      uint64 `json:"idle"`
	IOWait    uint64 `json:"iowait"`
	IRQ       uint64 `json:"irq"`
	SoftIRQ   uint64 `json:"softirq"`
	Steal     uint64 `json:"steal"`
	Guest     uint64 `json:"-"`
	GuestNice uint64 `json:"-"`
}

// Total follows the metrics.CPU metric definition: user + nice + system + idle +
// iowait + irq + softirq + steal. Guest time is already counted in user and
// nice, so it is left out.
func (c CPUTimes) Total() uint64 {
	return c.User + c.Nice + c.System + c.Idle + c.IOWait + c.IRQ + c.SoftIRQ + c.Steal
}

// Busy follows the metrics.CPU metric definition: total − idle − iowait.
func (c CPUTimes) Busy() uint64 { return c.Total() - c.Idle - c.IOWait }

// StatCore is one `cpuN` line.
type StatCore struct {
	ID int // N in cpuN
	CPUTimes
}

// Stat is /proc/stat. Cores lists only the cpuN lines present: the
// kernel omits offline (hot-unplugged) cores, so len(Cores) can be less than
// the number of cores the device has.
type Stat struct {
	CPU          CPUTimes
	Cores        []StatCore
	BootTime     int64 // btime, seconds since the Unix epoch
	Ctxt         uint64
	Processes    uint64
	ProcsRunning uint64
	ProcsBlocked uint64
}

// StatSource names /proc/stat in errors.
const StatSource = "/proc/stat"

// ParseStat parses /proc/stat. `cpu` lines may hold 4 to 10 time
// columns (older kernels print fewer); further columns are ignored. Lines
// other than cpu, btime, ctxt, processes and procs_* (intr, softirq, ...) are
// skipped. A missing aggregate `cpu` line is an error.
func ParseStat(b []byte) (Stat, error) {
	var ps Stat
	seenCPU := false
	for i, ln := range strings.Split(string(devtext.Normalize(b)), "\n") {
		// intr and softirq lines hold hundreds of counters nobody reads here.
		if t := strings.TrimLeft(ln, " "); strings.HasPrefix(t, "intr") || strings.HasPrefix(t, "softirq") {
			continue
		}
		f := strings.Fields(ln)
		if len(f) == 0 {
			continue
		}
		switch key := f[0]; {
		case key == "cpu" && seenCPU:
			// Two reads in one file (cat /proc/stat twice): their cpuN
			// lines would count each core twice.
			return Stat{}, &devtext.ParseError{Source: StatSource, Line: i + 1, Text: ln, Reason: "a second cpu line: the file holds more than one read of /proc/stat; give each read a file of its own"}
		case key == "cpu":
			t, err := procCPUTimes(f[1:])
			if err != nil {
				return Stat{}, &devtext.ParseError{Source: StatSource, Line: i + 1, Text: ln, Reason: err.Error()}
			}
			ps.CPU, seenCPU = t, true
		case strings.HasPrefix(key, "cpu"):
			id, err := strconv.Atoi(key[3:])
			if err != nil || id < 0 {
				return Stat{}, &devtext.ParseError{Source: StatSource, Line: i + 1, Text: ln, Reason: "bad cpu number"}
			}
			t, err := procCPUTimes(f[1:])
			if err != nil {
				return Stat{}, &devtext.ParseError{Source: StatSource, Line: i + 1, Text: ln, Reason: err.Error()}
			}
			ps.Cores = append(ps.Cores, StatCore{ID: id, CPUTimes: t})
		case key == "btime" || key == "ctxt" || key == "processes" || key == "procs_running" || key == "procs_blocked":
			if len(f) != 2 {
				return Stat{}, &devtext.ParseError{Source: StatSource, Line: i + 1, Text: ln, Reason: "want one value"}
			}
			v, err := strconv.ParseUint(f[1], 10, 64)
			if err != nil {
				return Stat{}, &devtext.ParseError{Source: StatSource, Line: i + 1, Text: ln, Reason: "bad number"}
			}
			switch key {
			case "btime":
				ps.BootTime = int64(v)
			case "ctxt":
				ps.Ctxt = v
			case "processes":
				ps.Processes = v
			case "procs_running":
				ps.ProcsRunning = v
			case "procs_blocked":
				ps.ProcsBlocked = v
			}
		}
	}
	if !seenCPU {
		return Stat{}, &devtext.ParseError{Source: StatSource, Reason: "no aggregate 'cpu' line"}
	}
	return ps, nil
}

func procCPUTimes(f []string) (CPUTimes, error) {
	if len(f) < 4 {
		return CPUTimes{}, fmt.Errorf("%d time columns, want at least 4", len(f))
	}
	var v [10]uint64
	for i := 0; i < len(f) && i < len(v); i++ {
		n, err := strconv.ParseUint(f[i], 10, 64)
		if err != nil {
			return CPUTimes{}, fmt.Errorf("bad number %s in column %d", excerpt.Quote(f[i]), i+1)
		}
		v[i] = n
	}
	// Total and Busy add the first eight columns; refuse sums that would wrap.
	var sum uint64
	for _, x := range v[:8] {
		if sum+x < sum {
			return CPUTimes{}, errors.New("counters overflow 64 bits")
		}
		sum += x
	}
	return CPUTimes{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]}, nil
}

// PidStat is the part of /proc/<pid>/stat (or /proc/<pid>/task/<tid>/stat)
// that perfgate uses. Times are clock ticks.
//
// The JSON names are those of a Result sample, which keeps the metrics.CPU times and
// what tells a reused pid apart.
type PidStat struct {
	PID       int    `json:"pid"`
	Comm      string `json:"name"` // up to 15 bytes; app processes keep the name's tail ("d.godeye.sample")
	State     string `json:"-"`    // "R", "S", "D", ...
	PPID      int    `json:"-"`
	UTime     uint64 `json:"utime"`      // field 14
	STime     uint64 `json:"stime"`      // field 15
	CUTime    uint64 `json:"-"`          // field 16
	CSTime    uint64 `json:"-"`          // field 17
	Threads   int    `json:"-"`          // field 20
	StartTime uint64 `json:"start_time"` // field 22, ticks after boot; tells a reused pid apart
	VSize     uint64 `json:"-"`          // field 23, bytes
	RSSPages  int64  `json:"-"`          // field 24
	Processor int    `json:"-"`          // field 39, the metrics.CPU it last ran on; -1 when absent
}

// PidStatSource names /proc/<pid>/stat in errors.
const PidStatSource = "/proc/<pid>/stat"

// ParsePidStat parses one /proc/<pid>/stat line. The comm field may hold
// spaces and parentheses ("AWCN Worker(M)1") or be empty, so the fields are
// read after the LAST ')'.
func ParsePidStat(b []byte) (PidStat, error) {
	text := strings.TrimSpace(string(devtext.Normalize(b)))
	if strings.Contains(text, "\n") {
		return PidStat{}, &devtext.ParseError{Source: PidStatSource, Reason: "more than one line; use ParseProcPidStats"}
	}
	return procParsePidStatLine(text, 1)
}

// ParsePidStats parses several /proc/<pid>/stat lines, as printed by
// `cat /proc/<pid>/task/*/stat` (one line per thread) or
// `cat /proc/<a>/stat /proc/<b>/stat`. Blank lines are skipped.
func ParsePidStats(b []byte) ([]PidStat, error) {
	text := string(devtext.Normalize(b))
	out := make([]PidStat, 0, strings.Count(text, "\n")+1)
	line := 0
	for len(text) > 0 {
		line++
		ln, rest, _ := strings.Cut(text, "\n")
		text = rest
		if strings.TrimSpace(ln) == "" {
			continue
		}
		st, err := procParsePidStatLine(ln, line)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

func procParsePidStatLine(ln string, lineNo int) (PidStat, error) {
	bad := func(reason string) (PidStat, error) {
		return PidStat{}, &devtext.ParseError{Source: PidStatSource, Line: lineNo, Text: ln, Reason: reason}
	}
	open := strings.IndexByte(ln, '(')
	closing := strings.LastIndexByte(ln, ')')
	if open < 0 || closing < open {
		return bad("no '(comm)'")
	}
	pid, err := strconv.Atoi(strings.TrimSpace(ln[:open]))
	if err != nil || pid < 0 {
		return bad("bad pid")
	}
	st := PidStat{PID: pid, Comm: ln[open+1 : closing], Processor: -1}
	// f[0] is field 3 (state), so field n is f[n-3].
	var f [40]string
	n := 0
	for rest := ln[closing+1:]; n < len(f); n++ {
		rest = strings.TrimLeft(rest, " ")
		if rest == "" {
			break
		}
		end := strings.IndexByte(rest, ' ')
		if end < 0 {
			end = len(rest)
		}
		f[n], rest = rest[:end], rest[end:]
	}
	if n < 22 { // through field 24 (rss)
		return bad(fmt.Sprintf("%d fields after comm, want at least 22", n))
	}
	st.State = f[0]
	u := func(field int) uint64 {
		v, e := strconv.ParseUint(f[field-3], 10, 64)
		if e != nil && err == nil {
			err = fmt.Errorf("field %d: bad number %s", field, excerpt.Quote(f[field-3]))
		}
		return v
	}
	i := func(field int) int64 {
		v, e := strconv.ParseInt(f[field-3], 10, 64)
		if e != nil && err == nil {
			err = fmt.Errorf("field %d: bad number %s", field, excerpt.Quote(f[field-3]))
		}
		return v
	}
	st.PPID = int(i(4))
	st.UTime, st.STime, st.CUTime, st.CSTime = u(14), u(15), u(16), u(17)
	st.Threads = int(i(20))
	st.StartTime = u(22)
	st.VSize = u(23)
	st.RSSPages = i(24)
	if n > 39-3 {
		st.Processor = int(i(39))
	}
	if err != nil {
		return bad(err.Error())
	}
	return st, nil
}

// Status is the part of /proc/<pid>/status perfgate reads every tick.
// Memory figures are KiB; an absent line leaves 0 (RssAnon/RssFile/RssShmem
// exist from Linux 4.5).
type Status struct {
	Name    string // comm, at most 15 bytes
	State   string // "S (sleeping)"
	Tgid    int
	PID     int
	PPID    int
	UID     int // real uid, the first of the four
	Threads int

	VmRSSKB, VmHWMKB, RssAnonKB, RssFileKB, RssShmemKB, VmSwapKB int64
}

// StatusSource names /proc/<pid>/status in errors.
const StatusSource = "/proc/<pid>/status"

// ParseStatus parses /proc/<pid>/status ("Key:\tvalue", tabs or spaces).
// Lines it does not need are skipped, including lines with no ':' (a
// published excerpt's "[...]"); a needed line with a bad value is an error.
// Text without a Name, Pid or VmRSS line is an error.
func ParseStatus(b []byte) (Status, error) {
	var s Status
	found := 0
	for i, ln := range strings.Split(string(devtext.Normalize(b)), "\n") {
		key, val, ok := strings.Cut(strings.TrimSpace(ln), ":")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		bad := func() (Status, error) {
			return Status{}, &devtext.ParseError{Source: StatusSource, Line: i + 1, Text: ln, Reason: "bad " + key}
		}
		switch key {
		case "Name":
			s.Name = val
			found++
		case "State":
			s.State = val
		case "Tgid", "Pid", "PPid", "Threads":
			v, err := strconv.Atoi(val)
			if err != nil {
				return bad()
			}
			switch key {
			case "Tgid":
				s.Tgid = v
			case "Pid":
				s.PID = v
				found++
			case "PPid":
				s.PPID = v
			case "Threads":
				s.Threads = v
			}
		case "Uid":
			f := strings.Fields(val)
			if len(f) == 0 {
				return bad()
			}
			v, err := strconv.Atoi(f[0])
			if err != nil {
				return bad()
			}
			s.UID = v
		case "VmRSS", "VmHWM", "RssAnon", "RssFile", "RssShmem", "VmSwap":
			f := strings.Fields(val)
			if len(f) != 2 || f[1] != "kB" {
				return bad()
			}
			v, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				return bad()
			}
			switch key {
			case "VmRSS":
				s.VmRSSKB = v
				found++
			case "VmHWM":
				s.VmHWMKB = v
			case "RssAnon":
				s.RssAnonKB = v
			case "RssFile":
				s.RssFileKB = v
			case "RssShmem":
				s.RssShmemKB = v
			case "VmSwap":
				s.VmSwapKB = v
			}
		}
	}
	if found == 0 {
		return Status{}, &devtext.ParseError{Source: StatusSource, Reason: "no Name, Pid or VmRSS line"}
	}
	return s, nil
}

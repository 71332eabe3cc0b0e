package simdevice

import (
	"crypto/rand"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

const pageKiB = 4

// ReadFile returns the content of a virtual file under /proc or /sys
// (/proc/stat, /proc/uptime, /proc/meminfo, /proc/<pid>/stat, status,
// task/<tid>/stat, /proc/<pid>/net/dev, /proc/net/xt_qtaguid/stats,
// /sys/class/power_supply/battery/*, /sys/class/thermal/thermal_zoneN/*) in
// the format of the configured API level. A path it does not simulate
// returns an error satisfying errors.Is(err, fs.ErrNotExist); a directory
// returns one satisfying errors.Is(err, fs.ErrInvalid).
func (w *World) ReadFile(path string) ([]byte, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	if w.cfg.Quirks.hidesFile(path) {
		return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
	}
	s, err := w.readFileLocked(path)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return []byte(s), nil
}

func (w *World) readFileLocked(path string) (string, error) {
	switch path {
	case "/proc/stat":
		return w.procStatLocked(), nil
	case "/proc/uptime":
		up := float64(w.now) / 1e9
		idle := float64(w.cpu.line().idle) / userHZ
		return fmt.Sprintf("%.2f %.2f\n", up, idle), nil
	case "/proc/meminfo":
		return w.procMeminfoLocked(), nil
	case "/proc/loadavg":
		return fmt.Sprintf("%.2f 1.87 1.93 2/1843 %d\n", 1.5+w.cpu.loadHint(), w.nextPid), nil
	case "/proc/net/dev":
		return w.netDevLocked(), nil
	case "/proc/net/xt_qtaguid/stats":
		if w.cfg.API >= 29 {
			return "", fs.ErrNotExist
		}
		return w.xtQtaguidLocked(), nil
	case "/proc/sys/kernel/random/uuid":
		// A fresh random UUID on every read, as the kernel gives; adbx batches
		// take their output separator from it.
		return randomUUID(), nil
	case "/sys/devices/system/cpu/possible", "/sys/devices/system/cpu/present", "/sys/devices/system/cpu/online":
		n := w.cfg.Cores
		if path == "/sys/devices/system/cpu/online" {
			n = w.cfg.online()
		}
		if n == 1 {
			return "0\n", nil
		}
		return fmt.Sprintf("0-%d\n", n-1), nil
	case "/proc/version":
		p := products[w.cfg.API]
		return fmt.Sprintf("Linux version %s (android-build@abfarm) (clang version 14.0.7) %s\n", p.kernel, p.kernelBuild), nil
	}
	if s, ok, err := w.sysFileLocked(path); ok {
		return s, err
	}
	parts := strings.Split(strings.TrimPrefix(path, "/proc/"), "/")
	if !strings.HasPrefix(path, "/proc/") || len(parts) < 2 {
		return "", fs.ErrNotExist
	}
	if parts[0] == "uid_stat" && len(parts) == 3 && w.cfg.API <= 28 {
		uid, err := strconv.Atoi(parts[1])
		tr := w.traffic[uid]
		if err != nil || tr == nil {
			return "", fs.ErrNotExist
		}
		switch parts[2] {
		case "tcp_rcv":
			return fmt.Sprintf("%d\n", int64(tr.rx)), nil
		case "tcp_snd":
			return fmt.Sprintf("%d\n", int64(tr.tx)), nil
		}
		return "", fs.ErrNotExist
	}
	pid, err := strconv.Atoi(parts[0])
	if parts[0] == "self" {
		pid, err = 3121, nil
	}
	if err != nil {
		return "", fs.ErrNotExist
	}
	rest := strings.Join(parts[1:], "/")
	a := w.app
	if a == nil || a.pid != pid {
		for _, p := range systemProcs {
			if p.pid == pid || pid == 3121 {
				return w.sysProcFileLocked(p, rest)
			}
		}
		return "", fs.ErrNotExist
	}
	switch rest {
	case "stat":
		u, s := a.ticks()
		return w.pidStatLine(a.pid, w.wl.Package, u, s, len(a.threads), a.startAt), nil
	case "status":
		return w.pidStatusLocked(), nil
	case "net/dev":
		return w.netDevLocked(), nil
	case "cmdline":
		return w.wl.Package + "\x00", nil
	case "comm":
		return commOf(w.wl.Package) + "\n", nil
	case "oom_score_adj":
		if w.fg == fgResumed {
			return "0\n", nil
		}
		return "700\n", nil
	}
	if len(parts) == 4 && parts[1] == "task" && parts[3] == "stat" {
		tid, err := strconv.Atoi(parts[2])
		if err != nil {
			return "", fs.ErrNotExist
		}
		for _, t := range a.threads {
			if t.tid == tid {
				name := t.name
				if name == "main" {
					name = commOf(w.wl.Package)
				}
				return w.taskStatLine(a.pid, t.tid, name, int64(t.utime), int64(t.stime), len(a.threads), a.startAt), nil
			}
		}
	}
	return "", fs.ErrNotExist
}

func (w *World) sysProcFileLocked(p sysProc, rest string) (string, error) {
	switch rest {
	case "stat":
		return w.pidStatLine(p.pid, p.name, 1200+int64(p.pid), 800+int64(p.pid/2), 12, int64(2*time.Second)), nil
	case "cmdline":
		return p.name + "\x00", nil
	case "comm":
		return commOf(p.name) + "\n", nil
	}
	return "", fs.ErrNotExist
}

// commOf is the kernel's comm for a process name: Android app processes
// keep the last 15 characters (androidgodeye capture: "d.godeye.sample").
func commOf(name string) string {
	if len(name) > 15 {
		return name[len(name)-15:]
	}
	return name
}

// pidStatLine is /proc/<pid>/stat: 52 fields, comm in parentheses.
func (w *World) pidStatLine(pid int, name string, utime, stime int64, threads int, startAt int64) string {
	return w.taskStatLine(pid, pid, commOf(name), utime, stime, threads, startAt)
}

func (w *World) taskStatLine(pid, tid int, comm string, utime, stime int64, threads int, startAt int64) string {
	rssPages := int64(0)
	vsize := int64(15_452_832 * 1024)
	if w.app != nil && w.app.pid == pid {
		m := w.memLocked()
		rssPages = m.rss / pageKiB
		vsize += m.pss * 4096
	}
	start := startAt / (1e9 / userHZ)
	return fmt.Sprintf("%d (%s) S 690 690 0 0 -1 1077952832 %d 0 %d 0 %d %d 0 0 %d %d %d 0 %d %d %d 18446744073709551615 1 1 0 0 0 0 4612 1 1073775864 0 0 0 17 %d 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
		tid, comm, 24_000+utime*3, 120+utime/50, utime, stime, 10, -10, threads, start, vsize, rssPages, tid%w.cfg.online())
}

// pidStatusLocked is /proc/<pid>/status of the app (blog2017 capture
// layout); VmRSS is the RSS the workload sets.
func (w *World) pidStatusLocked() string {
	a := w.app
	m := w.memLocked()
	uid := w.wl.UID
	return fmt.Sprintf(`Name:	%s
Umask:	0077
State:	S (sleeping)
Tgid:	%d
Ngid:	0
Pid:	%d
PPid:	690
TracerPid:	0
Uid:	%d	%d	%d	%d
Gid:	%d	%d	%d	%d
FDSize:	128
Groups:	3003 9997 %d 
VmPeak:	%8d kB
VmSize:	%8d kB
VmLck:	       0 kB
VmPin:	       0 kB
VmHWM:	%8d kB
VmRSS:	%8d kB
RssAnon:	%8d kB
RssFile:	%8d kB
RssShmem:	     512 kB
VmData:	%8d kB
VmStk:	    8192 kB
VmExe:	      20 kB
VmLib:	  107956 kB
VmPTE:	    1424 kB
VmSwap:	       0 kB
Threads:	%d
SigQ:	0/23213
SigPnd:	0000000000000000
ShdPnd:	0000000000000000
SigBlk:	0000000080001204
SigIgn:	0000000000000001
SigCgt:	0000006e400084f8
CapInh:	0000000000000000
CapPrm:	0000000000000000
CapEff:	0000000000000000
CapBnd:	0000000000000000
CapAmb:	0000000000000000
Cpus_allowed:	ff
Cpus_allowed_list:	0-7
voluntary_ctxt_switches:	%d
nonvoluntary_ctxt_switches:	%d
`, commOf(w.wl.Package), a.pid, a.pid, uid, uid, uid, uid, uid, uid, uid, uid, uid+40000,
		15_452_832+m.pss*4, 15_452_832+m.pss*4, m.rss, m.rss, m.java+m.native, m.rss-m.java-m.native-512, m.java+m.native+40_000,
		len(a.threads), 1000+(w.now-a.startAt)/1e7, 40+(w.now-a.startAt)/1e9)
}

// procStatLocked is /proc/stat: the cpu line, one cpuN line per core with
// the 10 columns of modern kernels, then the counters parsers skip.
func (w *World) procStatLocked() string {
	var b strings.Builder
	line := func(name string, c cpuLine) {
		fmt.Fprintf(&b, "%s %d %d %d %d %d %d %d 0 0 0\n", name, c.user, c.nice, c.system, c.idle, c.iowait, c.irq, c.softirq)
	}
	line("cpu ", w.cpu.line())
	for i := range w.cpu.n {
		line("cpu"+strconv.Itoa(i), w.cpu.perCore(i))
	}
	up := w.now / 1e9
	fmt.Fprintf(&b, "intr %d 0 0 0 4860375 0 2580996 0 11 11 0 0\n", up*2800)
	fmt.Fprintf(&b, "ctxt %d\n", up*3600)
	fmt.Fprintf(&b, "btime %d\n", w.bootWall.Unix())
	fmt.Fprintf(&b, "processes %d\n", w.nextPid+6000)
	fmt.Fprintf(&b, "procs_running 2\nprocs_blocked 0\n")
	fmt.Fprintf(&b, "softirq %d 0 %d 16321 256 176990 0 81319 %d 0 %d\n", up*1000, up*450, up*300, up*200)
	return b.String()
}

// loadHint is a load average contribution, for /proc/loadavg.
func (c *deviceCPU) loadHint() float64 { return 0.3 }

// procMeminfoLocked is /proc/meminfo of an 8 GB phone; MemAvailable drops
// with the app's RSS.
func (w *World) procMeminfoLocked() string {
	const total = 7_828_412
	var rss int64
	if w.app != nil {
		rss = w.memLocked().rss
	}
	free := int64(612_344) - rss/4
	avail := int64(3_512_880) - rss
	rows := []struct {
		k string
		v int64
	}{
		{"MemTotal", total}, {"MemFree", max(free, 20_000)}, {"MemAvailable", max(avail, 40_000)}, {"Buffers", 6_128},
		{"Cached", 2_955_924}, {"SwapCached", 10_736}, {"Active", 2_341_980}, {"Inactive", 2_266_752},
		{"Active(anon)", 1_412_180 + rss/2}, {"Inactive(anon)", 402_204}, {"Active(file)", 929_800}, {"Inactive(file)", 1_864_548},
		{"Unevictable", 194_540}, {"Mlocked", 194_456}, {"SwapTotal", 4_194_300}, {"SwapFree", 3_212_404},
		{"Dirty", 392}, {"Writeback", 0}, {"AnonPages", 1_826_620 + rss/2}, {"Mapped", 1_158_200}, {"Shmem", 41_112},
		{"KReclaimable", 191_244}, {"Slab", 454_080}, {"SReclaimable", 151_712}, {"SUnreclaim", 302_368},
		{"KernelStack", 76_064}, {"PageTables", 142_884}, {"CommitLimit", 8_108_504}, {"Committed_AS", 181_552_436},
		{"VmallocTotal", 263_061_440}, {"VmallocUsed", 221_780}, {"CmaTotal", 208_896}, {"CmaFree", 6_820},
	}
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%-16s%8d kB\n", r.k+":", r.v)
	}
	return b.String()
}

// ReadDir lists the names in a virtual directory (/proc, /proc/<pid>,
// /proc/<pid>/task, /sys/class/thermal, …), so the shell can expand globs
// such as /proc/123/task/*/stat.
func (w *World) ReadDir(path string) ([]string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	path = strings.TrimSuffix(path, "/")
	if w.cfg.Quirks.hidesFile(path) {
		return nil, &fs.PathError{Op: "readdir", Path: path, Err: fs.ErrNotExist}
	}
	var names []string
	switch path {
	case "/proc":
		names = []string{"stat", "uptime", "meminfo", "loadavg", "version", "net", "self"}
		for _, p := range systemProcs {
			names = append(names, strconv.Itoa(p.pid))
		}
		if w.app != nil {
			names = append(names, strconv.Itoa(w.app.pid))
		}
		if w.cfg.API <= 28 {
			names = append(names, "uid_stat")
		}
	case "/proc/net":
		names = []string{"dev"}
		if w.cfg.API <= 28 {
			names = append(names, "xt_qtaguid")
		}
	case "/proc/net/xt_qtaguid":
		if w.cfg.API <= 28 {
			names = []string{"stats"}
		}
	case "/proc/uid_stat":
		if w.cfg.API <= 28 {
			for uid := range w.traffic {
				names = append(names, strconv.Itoa(uid))
			}
		}
	case "/sys", "/sys/class":
		names = []string{"class", "devices"}
		if path == "/sys/class" {
			names = []string{"power_supply", "thermal"}
		}
	case "/sys/devices":
		names = []string{"system"}
	case "/sys/devices/system":
		names = []string{"cpu"}
	case "/sys/devices/system/cpu":
		names = []string{"online", "possible", "present"}
		for i := 0; i < w.cfg.Cores; i++ {
			names = append(names, fmt.Sprintf("cpu%d", i))
		}
	case "/sys/class/power_supply":
		names = []string{"battery", "usb"}
	case "/sys/class/power_supply/battery":
		names = []string{"uevent", "capacity", "current_now", "voltage_now", "temp", "status"}
	case "/sys/class/thermal":
		for i := range thermalZones {
			names = append(names, fmt.Sprintf("thermal_zone%d", i))
		}
	default:
		if z, ok := strings.CutPrefix(path, "/sys/class/thermal/thermal_zone"); ok {
			if n, err := strconv.Atoi(z); err == nil && n >= 0 && n < len(thermalZones) {
				names = []string{"temp", "type"}
			}
			break
		}
		rest, ok := strings.CutPrefix(path, "/proc/")
		if !ok {
			break
		}
		parts := strings.Split(rest, "/")
		pid, err := strconv.Atoi(parts[0])
		if err != nil {
			break
		}
		if w.app != nil && w.app.pid == pid {
			switch len(parts) {
			case 1:
				names = []string{"cmdline", "comm", "net", "oom_score_adj", "stat", "status", "task"}
			case 2:
				if parts[1] == "task" {
					for _, t := range w.app.threads {
						names = append(names, strconv.Itoa(t.tid))
					}
				} else if parts[1] == "net" {
					names = []string{"dev"}
				}
			case 3:
				if parts[1] == "task" {
					names = []string{"stat"}
				}
			}
		} else if len(parts) == 1 {
			for _, p := range systemProcs {
				if p.pid == pid {
					names = []string{"cmdline", "comm", "stat"}
				}
			}
		}
	}
	if names == nil {
		return nil, &fs.PathError{Op: "readdir", Path: path, Err: fs.ErrNotExist}
	}
	names = slices.DeleteFunc(names, func(n string) bool { return w.cfg.Quirks.hidesFile(path + "/" + n) })
	sort.Strings(names)
	return names, nil
}

func randomUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x\n", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

package format

import (
	"fmt"
	"strconv"
	"strings"
)

// pageKiB is the kernel's page size in KiB.
const pageKiB = 4

// CPULine is one cpu line of /proc/stat, in clock ticks (USER_HZ = 100).
type CPULine struct {
	User, Nice, System, Idle, IOWait, IRQ, SoftIRQ int64
}

// ProcStat is /proc/stat: the cpu line, one cpuN line per core in cores
// with the 10 columns of modern kernels, then the counters parsers skip,
// which grow with the uptime (s); boot is the boot time (Unix s) and
// processes the number of forks since boot.
func ProcStat(total CPULine, cores []CPULine, uptime, boot int64, processes int) string {
	var b strings.Builder
	line := func(name string, c CPULine) {
		fmt.Fprintf(&b, "%s %d %d %d %d %d %d %d 0 0 0\n", name, c.User, c.Nice, c.System, c.Idle, c.IOWait, c.IRQ, c.SoftIRQ)
	}
	line("cpu ", total)
	for i, c := range cores {
		line("cpu"+strconv.Itoa(i), c)
	}
	up := uptime
	fmt.Fprintf(&b, "intr %d 0 0 0 4860375 0 2580996 0 11 11 0 0\n", up*2800)
	fmt.Fprintf(&b, "ctxt %d\n", up*3600)
	fmt.Fprintf(&b, "btime %d\n", boot)
	fmt.Fprintf(&b, "processes %d\n", processes)
	fmt.Fprintf(&b, "procs_running 2\nprocs_blocked 0\n")
	fmt.Fprintf(&b, "softirq %d 0 %d 16321 256 176990 0 81319 %d 0 %d\n", up*1000, up*450, up*300, up*200)
	return b.String()
}

// ProcUptime is /proc/uptime: seconds up and seconds all cores idled.
func ProcUptime(up, idle float64) string { return fmt.Sprintf("%.2f %.2f\n", up, idle) }

// ProcLoadavg is /proc/loadavg with a one-minute load and the last pid.
func ProcLoadavg(load float64, lastPid int) string {
	return fmt.Sprintf("%.2f 1.87 1.93 2/1843 %d\n", load, lastPid)
}

// ProcVersion is /proc/version of a kernel release (uname -r) and build
// (uname -v).
func ProcVersion(release, build string) string {
	return fmt.Sprintf("Linux version %s (android-build@abfarm) (clang version 14.0.7) %s\n", release, build)
}

// CPUList is a /sys/devices/system/cpu list (online, possible, present) of
// cores 0…n−1.
func CPUList(n int) string {
	if n == 1 {
		return "0\n"
	}
	return fmt.Sprintf("0-%d\n", n-1)
}

// Comm is the kernel's comm for a process name: Android app processes keep
// the last 15 characters (androidgodeye capture: "d.godeye.sample").
func Comm(name string) string {
	if len(name) > 15 {
		return name[len(name)-15:]
	}
	return name
}

// Task is a process or thread as /proc/<pid>/stat and status show it.
type Task struct {
	Pid, Tid     int
	Comm         string // already cut by Comm
	Utime, Stime int64  // clock ticks
	Threads      int
	Start        int64 // start time after boot, clock ticks
	PSS, RSS     int64 // KiB; 0 for a process whose memory nobody models
	CPU          int   // the core it last ran on
}

// PidStat is /proc/<pid>/stat (or task/<tid>/stat): 52 fields, comm in
// parentheses.
func PidStat(t Task) string {
	vsize := int64(15_452_832*1024) + t.PSS*4096
	return fmt.Sprintf("%d (%s) S 690 690 0 0 -1 1077952832 %d 0 %d 0 %d %d 0 0 %d %d %d 0 %d %d %d 18446744073709551615 1 1 0 0 0 0 4612 1 1073775864 0 0 0 17 %d 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
		t.Tid, t.Comm, 24_000+t.Utime*3, 120+t.Utime/50, t.Utime, t.Stime, 10, -10, t.Threads, t.Start, vsize, t.RSS/pageKiB, t.CPU)
}

// PidStatus is /proc/<pid>/status of an app process (blog2017 capture
// layout) of uid whose heaps hold java and native KiB, running for ran ns;
// VmRSS is t.RSS.
func PidStatus(t Task, uid int, java, native, ran int64) string {
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
`, t.Comm, t.Pid, t.Pid, uid, uid, uid, uid, uid, uid, uid, uid, uid+40000,
		15_452_832+t.PSS*4, 15_452_832+t.PSS*4, t.RSS, t.RSS, java+native, t.RSS-java-native-512, java+native+40_000,
		t.Threads, 1000+ran/1e7, 40+ran/1e9)
}

// ProcMeminfo is /proc/meminfo of an 8 GB phone; MemAvailable drops with the
// app's RSS (KiB).
func ProcMeminfo(rss int64) string {
	const total = 7_828_412
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

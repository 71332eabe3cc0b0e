// Package procfs reads the kernel's text files: /proc/stat and
// /proc/<pid>/stat (with the CPU % between two reads), /proc/<pid>/status,
// /proc/meminfo, /proc/uptime, the CPU list, build properties, and the
// traffic counters of /proc/net/xt_qtaguid/stats, /proc/uid_stat and
// /proc/<pid>/net/dev.
//
//	before, _ := procfs.ParseStat(a)
//	after, _ := procfs.ParseStat(b)
//	pct, err := procfs.CPUDevicePercent(before.CPU, after.CPU)
package procfs

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

	"github.com/perfgate/perfgate/simdevice/internal/format"
)

// ReadFile returns the content of a virtual file under /proc or /sys
// (/proc/stat, /proc/uptime, /proc/meminfo, /proc/sys/kernel/random/uuid
// and boot_id, /proc/<pid>/stat, status,
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
	if f := fixedFiles[path]; f != nil {
		return f(w, path)
	}
	if s, ok, err := w.sysFileLocked(path); ok {
		return s, err
	}
	parts := strings.Split(strings.TrimPrefix(path, "/proc/"), "/")
	if !strings.HasPrefix(path, "/proc/") || len(parts) < 2 {
		return "", fs.ErrNotExist
	}
	if parts[0] == "uid_stat" && len(parts) == 3 && w.cfg.API <= 28 {
		return w.uidStatLocked(parts[1], parts[2])
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
	return w.appFileLocked(rest, parts)
}

// fixedFiles are the files of /proc and /sys at fixed paths, by path.
var fixedFiles = map[string]func(w *World, path string) (string, error){
	"/proc/stat": func(w *World, _ string) (string, error) { return w.procStatLocked(), nil },
	"/proc/uptime": func(w *World, _ string) (string, error) {
		return format.ProcUptime(float64(w.now)/1e9, float64(w.cpu.line().idle)/userHZ), nil
	},
	"/proc/meminfo": func(w *World, _ string) (string, error) {
		var rss int64
		if w.app != nil {
			rss = w.memLocked().rss
		}
		return format.ProcMeminfo(rss), nil
	},
	"/proc/loadavg": func(w *World, _ string) (string, error) {
		return format.ProcLoadavg(1.8, w.nextPid), nil // a light, steady load
	},
	"/proc/net/dev": func(w *World, _ string) (string, error) { return w.netDevLocked(), nil },
	"/proc/net/xt_qtaguid/stats": func(w *World, _ string) (string, error) {
		if w.cfg.API >= 29 {
			return "", fs.ErrNotExist
		}
		return w.xtQtaguidLocked(), nil
	},
	// A fresh random UUID on every read, as the kernel gives; adbx batches
	// take their output separator from it.
	"/proc/sys/kernel/random/uuid": func(*World, string) (string, error) { return randomUUID(), nil },
	// The same UUID on every read until the phone boots again: what tells
	// one boot from the next (uptime alone restarts near 0).
	"/proc/sys/kernel/random/boot_id":  func(w *World, _ string) (string, error) { return w.bootID + "\n", nil },
	"/sys/devices/system/cpu/possible": cpuListFile,
	"/sys/devices/system/cpu/present":  cpuListFile,
	"/sys/devices/system/cpu/online":   cpuListFile,
	"/proc/version": func(w *World, _ string) (string, error) {
		p := products[w.cfg.API]
		return format.ProcVersion(p.kernel, p.kernelBuild), nil
	},
}

// cpuListFile is /sys/devices/system/cpu/{possible,present,online}.
func cpuListFile(w *World, path string) (string, error) {
	n := w.cfg.Cores
	if path == "/sys/devices/system/cpu/online" {
		n = w.cfg.online()
	}
	return format.CPUList(n), nil
}

// uidStatLocked is /proc/uid_stat/<uid>/<name> (API 28 and older).
func (w *World) uidStatLocked(uidText, name string) (string, error) {
	uid, err := strconv.Atoi(uidText)
	tr := w.traffic[uid]
	if err != nil || tr == nil {
		return "", fs.ErrNotExist
	}
	switch name {
	case "tcp_rcv":
		return fmt.Sprintf("%d\n", int64(tr.rx)), nil
	case "tcp_snd":
		return fmt.Sprintf("%d\n", int64(tr.tx)), nil
	}
	return "", fs.ErrNotExist
}

// appFileLocked is the file rest of the app's /proc/<pid> (parts is the
// path split after /proc/).
func (w *World) appFileLocked(rest string, parts []string) (string, error) {
	a := w.app
	switch rest {
	case "stat":
		return format.PidStat(w.appTaskLocked(a.pid, format.Comm(w.wl.Package))), nil
	case "status":
		m := w.memLocked()
		return format.PidStatus(w.appTaskLocked(a.pid, format.Comm(w.wl.Package)), w.wl.UID, m.java, m.native, w.now-a.startAt), nil
	case "net/dev":
		return w.netDevLocked(), nil
	case "cmdline":
		return w.wl.Package + "\x00", nil
	case "comm":
		return format.Comm(w.wl.Package) + "\n", nil
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
					name = format.Comm(w.wl.Package)
				}
				task := w.appTaskLocked(a.pid, name)
				task.Tid, task.Utime, task.Stime, task.CPU = t.tid, int64(t.utime), int64(t.stime), t.tid%w.cfg.online()
				return format.PidStat(task), nil
			}
		}
	}
	return "", fs.ErrNotExist
}

func (w *World) sysProcFileLocked(p sysProc, rest string) (string, error) {
	switch rest {
	case "stat":
		return format.PidStat(format.Task{
			Pid: p.pid, Tid: p.pid, Comm: format.Comm(p.name), Utime: 1200 + int64(p.pid), Stime: 800 + int64(p.pid/2),
			Threads: 12, Start: int64(2*time.Second) / (1e9 / userHZ), CPU: p.pid % w.cfg.online(),
		}), nil
	case "cmdline":
		return p.name + "\x00", nil
	case "comm":
		return format.Comm(p.name) + "\n", nil
	}
	return "", fs.ErrNotExist
}

// appTaskLocked is the app process pid as /proc shows it, under the
// thread name comm.
func (w *World) appTaskLocked(pid int, comm string) format.Task {
	a := w.app
	u, s := a.ticks()
	m := w.memLocked()
	return format.Task{
		Pid: pid, Tid: pid, Comm: comm, Utime: u, Stime: s, Threads: len(a.threads),
		Start: a.startAt / (1e9 / userHZ), PSS: m.pss, RSS: m.rss, CPU: pid % w.cfg.online(),
	}
}

// procStatLocked is /proc/stat: the aggregate line and one per online core.
func (w *World) procStatLocked() string {
	cores := make([]format.CPULine, w.cpu.n)
	for i := range cores {
		cores[i] = w.cpu.perCore(i).ticks()
	}
	return format.ProcStat(w.cpu.line().ticks(), cores, w.now/1e9, w.bootWall.Unix(), w.nextPid+6000)
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
	if f := fixedDirs[path]; f != nil {
		names = f(w, path)
	} else {
		names = w.varDirLocked(path)
	}
	if names == nil {
		return nil, &fs.PathError{Op: "readdir", Path: path, Err: fs.ErrNotExist}
	}
	names = slices.DeleteFunc(names, func(n string) bool { return w.cfg.Quirks.hidesFile(path + "/" + n) })
	sort.Strings(names)
	return names, nil
}

// fixedDirs are the directories of /proc and /sys at fixed paths, by
// path: each call makes a new list (ReadDir filters it in place); nil for
// one this API level has not.
var fixedDirs = map[string]func(w *World, path string) []string{
	"/proc": func(w *World, _ string) []string {
		names := []string{"stat", "uptime", "meminfo", "loadavg", "version", "net", "self"}
		for _, p := range systemProcs {
			names = append(names, strconv.Itoa(p.pid))
		}
		if w.app != nil {
			names = append(names, strconv.Itoa(w.app.pid))
		}
		if w.cfg.API <= 28 {
			names = append(names, "uid_stat")
		}
		return names
	},
	"/proc/net": func(w *World, _ string) []string {
		names := []string{"dev"}
		if w.cfg.API <= 28 {
			names = append(names, "xt_qtaguid")
		}
		return names
	},
	"/proc/net/xt_qtaguid": func(w *World, _ string) []string {
		if w.cfg.API <= 28 {
			return []string{"stats"}
		}
		return nil
	},
	"/proc/uid_stat": func(w *World, _ string) []string {
		var names []string
		if w.cfg.API <= 28 {
			for uid := range w.traffic {
				names = append(names, strconv.Itoa(uid))
			}
		}
		return names
	},
	"/sys":                    func(*World, string) []string { return []string{"class", "devices"} },
	"/sys/class":              func(*World, string) []string { return []string{"power_supply", "thermal"} },
	"/sys/devices":            func(*World, string) []string { return []string{"system"} },
	"/sys/devices/system":     func(*World, string) []string { return []string{"cpu"} },
	"/sys/class/power_supply": func(*World, string) []string { return []string{"battery", "usb"} },
	"/sys/devices/system/cpu": func(w *World, _ string) []string {
		names := []string{"online", "possible", "present"}
		for i := 0; i < w.cfg.Cores; i++ {
			names = append(names, fmt.Sprintf("cpu%d", i))
		}
		return names
	},
	"/sys/class/power_supply/battery": func(*World, string) []string {
		return []string{"uevent", "capacity", "current_now", "voltage_now", "temp", "status"}
	},
	"/sys/class/thermal": func(*World, string) []string {
		var names []string
		for i := range thermalZones {
			names = append(names, fmt.Sprintf("thermal_zone%d", i))
		}
		return names
	},
}

// varDirLocked lists a directory whose path holds a number: a thermal zone
// or a process; nil for none.
func (w *World) varDirLocked(path string) []string {
	if z, ok := strings.CutPrefix(path, "/sys/class/thermal/thermal_zone"); ok {
		if n, err := strconv.Atoi(z); err == nil && n >= 0 && n < len(thermalZones) {
			return []string{"temp", "type"}
		}
		return nil
	}
	rest, ok := strings.CutPrefix(path, "/proc/")
	if !ok {
		return nil
	}
	parts := strings.Split(rest, "/")
	pid, err := strconv.Atoi(parts[0])
	if err != nil {
		return nil
	}
	if w.app == nil || w.app.pid != pid {
		if len(parts) == 1 && slices.ContainsFunc(systemProcs, func(p sysProc) bool { return p.pid == pid }) {
			return []string{"cmdline", "comm", "stat"}
		}
		return nil
	}
	switch {
	case len(parts) == 1:
		return []string{"cmdline", "comm", "net", "oom_score_adj", "stat", "status", "task"}
	case len(parts) == 2 && parts[1] == "task":
		var names []string
		for _, t := range w.app.threads {
			names = append(names, strconv.Itoa(t.tid))
		}
		return names
	case len(parts) == 2 && parts[1] == "net":
		return []string{"dev"}
	case len(parts) == 3 && parts[1] == "task":
		return []string{"stat"}
	}
	return nil
}

func randomUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x\n", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

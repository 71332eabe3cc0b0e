package adbx

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Facts are what perfgate needs to know about a device once per session.
type Facts struct {
	Serial       string
	Model        string // ro.product.model
	Manufacturer string // ro.product.manufacturer
	ABI          string // ro.product.cpu.abi
	API          int    // ro.build.version.sdk
	Release      string // ro.build.version.release, e.g. "14"
	// Cores is the number of CPUs: nproc, else the count in
	// /sys/devices/system/cpu/possible; 0 when neither answered.
	Cores int
	// ClockTicks is USER_HZ, the unit of /proc/<pid>/stat times
	// (getconf CLK_TCK; 100, the Android kernel value, when getconf is
	// missing).
	ClockTicks int
	// RefreshHz is the display's current refresh rate from dumpsys
	// display; 0 when the output did not say.
	RefreshHz float64
	// Root says whether the shell runs as uid 0 (id -u).
	Root bool
}

// factsCmds are the commands Facts runs, in one batch.
var factsCmds = []string{
	"getprop ro.product.model",
	"getprop ro.product.manufacturer",
	"getprop ro.product.cpu.abi",
	"getprop ro.build.version.sdk",
	"getprop ro.build.version.release",
	"nproc",
	"cat /sys/devices/system/cpu/possible",
	"getconf CLK_TCK",
	"dumpsys display",
	"id -u",
}

// defaultClockTicks is CONFIG_HZ's user-visible value on every Android
// kernel.
const defaultClockTicks = 100

// Facts reads the device's identity and the constants metrics need, in
// one round trip.
func (d *Device) Facts(ctx context.Context) (Facts, error) {
	rs, err := d.Batch(ctx, factsCmds)
	if err != nil {
		return Facts{}, fmt.Errorf("adbx facts: %w", err)
	}
	f, err := parseFacts(rs)
	if err != nil {
		return Facts{}, fmt.Errorf("adbx facts %s: %w", d.serial, err)
	}
	f.Serial = d.serial
	return f, nil
}

// parseFacts reads the Results of factsCmds.
func parseFacts(rs []Result) (Facts, error) {
	if len(rs) != len(factsCmds) {
		return Facts{}, fmt.Errorf("got %d results for %d commands", len(rs), len(factsCmds))
	}
	out := func(i int) string { return trimSpace(rs[i].Stdout) }
	f := Facts{
		Model:        out(0),
		Manufacturer: out(1),
		ABI:          out(2),
		Release:      out(4),
		ClockTicks:   defaultClockTicks,
	}
	api, err := strconv.Atoi(out(3))
	if err != nil || api <= 0 {
		return Facts{}, fmt.Errorf("%q printed %q, want an API level", factsCmds[3], clip(rs[3].Stdout))
	}
	f.API = api
	if n, err := strconv.Atoi(out(5)); err == nil && rs[5].ExitCode == 0 && n > 0 {
		f.Cores = n
	} else if n, ok := parseCPUList(out(6)); ok && rs[6].ExitCode == 0 {
		f.Cores = n
	}
	if n, err := strconv.Atoi(out(7)); err == nil && rs[7].ExitCode == 0 && n > 0 {
		f.ClockTicks = n
	}
	if rs[8].ExitCode == 0 {
		f.RefreshHz = parseRefreshHz(rs[8].Stdout)
	}
	f.Root = rs[9].ExitCode == 0 && out(9) == "0"
	return f, nil
}

// parseCPUList counts the CPUs in a kernel cpu list such as "0-3,6-7".
func parseCPUList(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return 0, false
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return 0, false
			}
		}
		if b-a >= 1<<16 {
			return 0, false
		}
		n += b - a + 1
	}
	return n, n > 0
}

// parseRefreshHz finds the current refresh rate in `dumpsys display`: the
// first DisplayDeviceInfo's renderFrameRate (Android 14+), else the fps of
// its active mode (modeId), else the first mRefreshRate=. It returns 0
// when none is present.
func parseRefreshHz(b []byte) float64 {
	for _, line := range bytes.Split(b, []byte("\n")) {
		i := bytes.Index(line, []byte("DisplayDeviceInfo{"))
		if i < 0 {
			continue
		}
		info := string(line[i:])
		if v, ok := numberAfter(info, "renderFrameRate "); ok {
			return v
		}
		if id, ok := numberAfter(info, "modeId "); ok {
			key := "{id=" + strconv.FormatFloat(id, 'f', -1, 64) + ","
			if j := strings.Index(info, key); j >= 0 {
				if v, ok := numberAfter(info[j:], "fps="); ok {
					return v
				}
			}
		}
		break
	}
	if v, ok := numberAfter(string(b), "mRefreshRate="); ok {
		return v
	}
	return 0
}

// numberAfter parses the decimal number that follows the first key in s.
func numberAfter(s, key string) (float64, bool) {
	i := strings.Index(s, key)
	if i < 0 {
		return 0, false
	}
	s = s[i+len(key):]
	end := 0
	for end < len(s) && (s[end] >= '0' && s[end] <= '9' || s[end] == '.') {
		end++
	}
	v, err := strconv.ParseFloat(s[:end], 64)
	if err != nil || v <= 0 {
		return 0, false
	}
	return v, true
}

// Process is one running process of an app.
type Process struct {
	PID  int
	Name string // "com.example" or "com.example:remote"
}

// AppProcesses lists the running processes of pkg: its main process and
// those named "pkg:suffix". None running is an empty list, not an error.
func (d *Device) AppProcesses(ctx context.Context, pkg string) ([]Process, error) {
	if err := ValidatePackage(pkg); err != nil {
		return nil, err
	}
	// Toybox ps (Android 8+) lists other users' processes only with -A;
	// the older toolbox ps lists them all and takes -A as a name filter,
	// printing just its header. Running both in one batch and keeping the
	// longer list is right on either.
	cmds := []string{"ps -A", "ps"}
	rs, err := d.Batch(ctx, cmds)
	if err != nil {
		return nil, fmt.Errorf("adbx app processes %s: %w", pkg, err)
	}
	var procs []Process
	var firstErr error
	for i, r := range rs {
		if err := r.Err(cmds[i]); err != nil {
			firstErr = cmp.Or(firstErr, err)
			continue
		}
		p, err := parsePS(r.Stdout)
		if err != nil {
			firstErr = cmp.Or(firstErr, fmt.Errorf("%q: %w", cmds[i], err))
			continue
		}
		if len(p) > len(procs) {
			procs = p
		}
	}
	if procs == nil && firstErr != nil {
		return nil, fmt.Errorf("adbx app processes %s %s: %w", d.serial, pkg, firstErr)
	}
	var mine []Process
	for _, p := range procs {
		if p.Name == pkg || strings.HasPrefix(p.Name, pkg+":") {
			mine = append(mine, p)
		}
	}
	return mine, nil
}

// parsePS reads ps output: a header naming a PID column, and rows whose
// last field is the process name (NAME, CMD or ARGS, all last in every
// Android ps format).
func parsePS(b []byte) ([]Process, error) {
	lines := strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
	pidCol := -1
	var procs []Process
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if pidCol < 0 {
			for i, h := range f {
				if h == "PID" {
					pidCol = i
				}
			}
			if pidCol < 0 {
				return nil, fmt.Errorf("no PID column in header %q", clip([]byte(line)))
			}
			continue
		}
		if len(f) <= pidCol || len(f) < 2 {
			continue
		}
		pid, err := strconv.Atoi(f[pidCol])
		if err != nil || pid <= 0 {
			return nil, fmt.Errorf("bad PID %q in row %q", f[pidCol], clip([]byte(line)))
		}
		procs = append(procs, Process{PID: pid, Name: f[len(f)-1]})
	}
	if pidCol < 0 {
		return nil, fmt.Errorf("empty ps output")
	}
	return procs, nil
}

// AppUID returns the Linux uid pkg runs as (what per-UID traffic counters
// are keyed by). A package that is not installed gives ErrAppNotInstalled.
func (d *Device) AppUID(ctx context.Context, pkg string) (int, error) {
	if err := ValidatePackage(pkg); err != nil {
		return 0, err
	}
	cmd := "pm list packages -U " + pkg
	r, err := d.Shell(ctx, cmd)
	if err != nil {
		return 0, fmt.Errorf("adbx app uid %s: %w", pkg, err)
	}
	if uid, found, ok := parsePMListUID(r.Stdout, pkg); ok && r.ExitCode == 0 {
		if !found {
			return 0, fmt.Errorf("adbx app uid: %w: %s (not listed by %q)", ErrAppNotInstalled, pkg, cmd)
		}
		return uid, nil
	}
	// pm without -U (before Android 8) lists no uids; ask dumpsys.
	info, err := d.dumpsysPackage(ctx, pkg)
	if err != nil {
		return 0, fmt.Errorf("adbx app uid: %w", err)
	}
	if info.uid < 0 {
		return 0, fmt.Errorf("adbx app uid %s: no userId= in `dumpsys package %s`", pkg, pkg)
	}
	return info.uid, nil
}

// parsePMListUID finds pkg in `pm list packages -U` output
// ("package:com.x uid:10123"). ok is false when the output is not in that
// form at all; found says whether pkg was listed.
func parsePMListUID(b []byte, pkg string) (uid int, found, ok bool) {
	ok = true
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		name, rest, hasUID := strings.Cut(strings.TrimPrefix(line, "package:"), " uid:")
		if !strings.HasPrefix(line, "package:") || !hasUID {
			return 0, false, false
		}
		if name != pkg {
			continue
		}
		// Several users list "uid:10123,1010123"; the first is user 0.
		first, _, _ := strings.Cut(rest, ",")
		n, err := strconv.Atoi(strings.TrimSpace(first))
		if err != nil || n < 0 {
			return 0, false, false
		}
		return n, true, true
	}
	return 0, false, ok
}

// packageInfo is what adbx reads from `dumpsys package <pkg>`.
type packageInfo struct {
	uid        int // -1 when absent
	debuggable bool
}

func (d *Device) dumpsysPackage(ctx context.Context, pkg string) (packageInfo, error) {
	cmd := "dumpsys package " + pkg
	r, err := d.Shell(ctx, cmd)
	if err != nil {
		return packageInfo{}, fmt.Errorf("%s: %w", pkg, err)
	}
	if err := r.Err(cmd); err != nil {
		return packageInfo{}, fmt.Errorf("%s: %w", pkg, err)
	}
	info, found := parseDumpsysPackage(r.Stdout, pkg)
	if !found {
		return packageInfo{}, fmt.Errorf("%w: %s (no \"Package [%s]\" in %q)", ErrAppNotInstalled, pkg, pkg, cmd)
	}
	return info, nil
}

// parseDumpsysPackage reads the "Package [pkg]" section of `dumpsys
// package`: its userId= and whether its flags=[…] hold DEBUGGABLE.
func parseDumpsysPackage(b []byte, pkg string) (packageInfo, bool) {
	info := packageInfo{uid: -1}
	header := "Package [" + pkg + "]"
	in, found := false, false
	for _, line := range strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "Package [") {
			in = strings.HasPrefix(t, header)
			found = found || in
			continue
		}
		if !in {
			continue
		}
		if v, ok := strings.CutPrefix(t, "userId="); ok && info.uid < 0 {
			f, _, _ := strings.Cut(v, " ")
			if n, err := strconv.Atoi(f); err == nil && n >= 0 {
				info.uid = n
			}
		}
		if v, ok := strings.CutPrefix(t, "flags=["); ok {
			for _, flag := range strings.Fields(strings.TrimSuffix(v, "]")) {
				if flag == "DEBUGGABLE" {
					info.debuggable = true
				}
			}
		}
	}
	return info, found
}

// Debuggable says whether pkg is built debuggable (android:debuggable,
// which run-as and some profilers need).
func (d *Device) Debuggable(ctx context.Context, pkg string) (bool, error) {
	if err := ValidatePackage(pkg); err != nil {
		return false, err
	}
	info, err := d.dumpsysPackage(ctx, pkg)
	if err != nil {
		return false, fmt.Errorf("adbx debuggable: %w", err)
	}
	return info.debuggable, nil
}

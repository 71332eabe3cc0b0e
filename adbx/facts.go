package adbx

import (
	"bytes"
	"cmp"
	"context"
	"errors"
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
	// /sys/devices/system/cpu/possible, else the cpuN lines of /proc/stat
	// (online cores only); 0 when none answered. CoresSource names the one
	// used.
	Cores       int
	CoresSource string
	// ClockTicks is USER_HZ, the unit of /proc/<pid>/stat times
	// (getconf CLK_TCK; 100, the Android kernel value, when getconf is
	// missing).
	ClockTicks int
	// RefreshHz is the display's current refresh rate from dumpsys
	// display; 0 when the output did not say.
	RefreshHz float64
	// Root says whether the shell runs as uid 0 (id -u).
	Root bool
	// Notes say where a fact came from a fallback (and why the usual
	// command failed), or where two sources of one fact disagree.
	Notes []string
}

// factsCmds are the commands Facts runs, in one batch. The getprop ones
// come first, in the order of factsProps.
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
	"cat /proc/stat",
}

// Indexes into factsCmds.
const (
	factModel = iota
	factManufacturer
	factABI
	factAPI
	factRelease
	factNproc
	factPossible
	factClockTicks
	factDisplay
	factID
	factProcStat
)

// factsProps are the properties behind the getprop commands, each with the
// build.prop keys that hold it when getprop cannot be run: since Android 10
// the product properties live per partition (ro.product.vendor.model …)
// and init derives ro.product.model from them at boot.
var factsProps = [][]string{
	factModel:        partitionKeys("ro.product.model", "ro.product.%s.model"),
	factManufacturer: partitionKeys("ro.product.manufacturer", "ro.product.%s.manufacturer"),
	factABI:          {"ro.product.cpu.abi", "ro.system.product.cpu.abilist", "ro.vendor.product.cpu.abilist", "ro.product.cpu.abilist"},
	factAPI:          {"ro.build.version.sdk", "ro.system.build.version.sdk"},
	factRelease:      {"ro.build.version.release", "ro.system.build.version.release"},
}

// partitionKeys lists key, then format filled with each partition in
// init's default ro.product.property_source_order.
func partitionKeys(key, format string) []string {
	keys := []string{key}
	for _, part := range []string{"product", "odm", "vendor", "system_ext", "system"} {
		keys = append(keys, fmt.Sprintf(format, part))
	}
	return keys
}

// buildPropCmd reads the properties getprop would print, for shells
// without getprop.
const buildPropCmd = "cat /system/build.prop /vendor/build.prop /product/build.prop"

// defaultClockTicks is CONFIG_HZ's user-visible value on every Android
// kernel.
const defaultClockTicks = 100

// Facts reads the device's identity and the constants metrics need, in
// one round trip (two when getprop fails and /system/build.prop stands in).
// A fact that came from a fallback, or whose sources disagree, is named in
// Facts.Notes; one that no source gave fails with every command's exit
// status and stderr.
func (d *Device) Facts(ctx context.Context) (Facts, error) {
	rs, err := d.Batch(ctx, factsCmds)
	if err != nil {
		return Facts{}, fmt.Errorf("adbx facts: %w", err)
	}
	var props *Result
	if len(rs) == len(factsCmds) && needBuildProp(rs) {
		pr, err := d.Batch(ctx, []string{buildPropCmd})
		if err != nil {
			return Facts{}, fmt.Errorf("adbx facts %s: %w", d.serial, err)
		}
		props = &pr[0]
	}
	f, err := parseFacts(rs, props)
	if err != nil {
		return Facts{}, fmt.Errorf("adbx facts %s: %w", d.serial, err)
	}
	f.Serial = d.serial
	return f, nil
}

// needBuildProp says whether a getprop command failed or the API level it
// printed is no number.
func needBuildProp(rs []Result) bool {
	for i := range factsProps {
		if rs[i].ExitCode != 0 {
			return true
		}
	}
	_, ok := parseAPI(trimSpace(rs[factAPI].Stdout))
	return !ok
}

func parseAPI(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	return n, err == nil && n > 0
}

// parseFacts reads the Results of factsCmds and, when it was read, of
// buildPropCmd.
func parseFacts(rs []Result, buildProp *Result) (Facts, error) {
	if len(rs) != len(factsCmds) {
		return Facts{}, fmt.Errorf("got %d results for %d commands", len(rs), len(factsCmds))
	}
	var f Facts
	note := func(format string, args ...any) { f.Notes = append(f.Notes, fmt.Sprintf(format, args...)) }
	var props map[string]string
	if buildProp != nil {
		// cat exits 1 when one of the files is missing and still prints
		// the others.
		props = parseBuildProp(buildProp.Stdout)
	}
	getprop := make([]string, len(factsProps))
	for i, keys := range factsProps {
		r := rs[i]
		out := trimSpace(r.Stdout)
		if r.ExitCode == 0 && (i != factAPI || out != "") {
			getprop[i] = out
			continue
		}
		why := describe(factsCmds[i], r)
		for _, k := range keys {
			if v := props[k]; v != "" {
				getprop[i] = v
				note("%s: %s; read %s from /system/build.prop", keys[0], why, k)
				break
			}
		}
		if getprop[i] == "" && i != factAPI {
			note("%s: %s; %s", keys[0], why, buildPropFailure(buildProp))
		}
	}
	f.Model, f.Manufacturer, f.ABI, f.Release = getprop[factModel], getprop[factManufacturer], getprop[factABI], getprop[factRelease]
	if f.ABI != "" && strings.Contains(f.ABI, ",") {
		f.ABI, _, _ = strings.Cut(f.ABI, ",") // an abilist: the first is the preferred ABI
	}
	api, ok := parseAPI(getprop[factAPI])
	if !ok {
		r := rs[factAPI]
		why := describe(factsCmds[factAPI], r)
		if r.ExitCode == 0 {
			why = fmt.Sprintf("%s printed %q, want an API level", factsCmds[factAPI], clip(r.Stdout))
		}
		if getprop[factAPI] != trimSpace(r.Stdout) {
			why += fmt.Sprintf("; /system/build.prop says %q", clip([]byte(getprop[factAPI])))
		} else {
			why += "; " + buildPropFailure(buildProp)
		}
		return Facts{}, errors.New(why)
	}
	f.API = api
	f.Cores, f.CoresSource = cores(rs, note)
	f.ClockTicks = defaultClockTicks
	if r := rs[factClockTicks]; r.ExitCode != 0 {
		note("clock ticks: %s; assuming %d, USER_HZ on every Android kernel", describe(factsCmds[factClockTicks], r), defaultClockTicks)
	} else if n, err := strconv.Atoi(trimSpace(r.Stdout)); err == nil && n > 0 {
		f.ClockTicks = n
	} else {
		note("clock ticks: %s printed %q; assuming %d", factsCmds[factClockTicks], clip(r.Stdout), defaultClockTicks)
	}
	if r := rs[factDisplay]; r.ExitCode == 0 {
		f.RefreshHz = parseRefreshHz(r.Stdout)
	} else {
		note("refresh rate: %s", describe(factsCmds[factDisplay], r))
	}
	if r := rs[factID]; r.ExitCode == 0 {
		f.Root = trimSpace(r.Stdout) == "0"
	} else {
		note("root: %s; taken as not root", describe(factsCmds[factID], r))
	}
	return f, nil
}

// cores picks the core count: nproc, else /sys/devices/system/cpu/possible,
// else the cpuN lines of /proc/stat. It notes a fallback with why the
// better sources failed, and sources that disagree.
func cores(rs []Result, note func(string, ...any)) (int, string) {
	type source struct {
		name string
		n    int
		why  string // why it gave no count
	}
	var srcs []source
	r := rs[factNproc]
	if n, err := strconv.Atoi(trimSpace(r.Stdout)); err == nil && r.ExitCode == 0 && n > 0 {
		srcs = append(srcs, source{name: "nproc", n: n})
	} else {
		srcs = append(srcs, source{name: "nproc", why: describe(factsCmds[factNproc], r)})
	}
	r = rs[factPossible]
	if n, ok := parseCPUList(trimSpace(r.Stdout)); ok && r.ExitCode == 0 {
		srcs = append(srcs, source{name: "/sys/devices/system/cpu/possible", n: n})
	} else {
		srcs = append(srcs, source{name: "/sys/devices/system/cpu/possible", why: describe(factsCmds[factPossible], r)})
	}
	r = rs[factProcStat]
	if n := countCPULines(r.Stdout); r.ExitCode == 0 && n > 0 {
		srcs = append(srcs, source{name: "/proc/stat", n: n})
	} else {
		srcs = append(srcs, source{name: "/proc/stat", why: describe(factsCmds[factProcStat], r)})
	}
	var counts []string
	pick, agree := -1, true
	for i, s := range srcs {
		if s.n == 0 {
			continue
		}
		counts = append(counts, fmt.Sprintf("%s %d", s.name, s.n))
		if pick < 0 {
			pick = i
		} else if s.n != srcs[pick].n {
			agree = false
		}
	}
	if pick < 0 {
		note("cores: %s; %s; %s", srcs[0].why, srcs[1].why, srcs[2].why)
		return 0, ""
	}
	if pick > 0 {
		var whys []string
		for _, s := range srcs[:pick] {
			whys = append(whys, s.why)
		}
		what := srcs[pick].name
		if what == "/proc/stat" {
			what = "the cpuN lines of /proc/stat (online cores only)"
		}
		note("cores: %s; counted %d from %s", strings.Join(whys, "; "), srcs[pick].n, what)
	}
	if !agree {
		note("cores: the sources disagree (%s; /proc/stat lists online cores only); using %d from %s",
			strings.Join(counts, ", "), srcs[pick].n, srcs[pick].name)
	}
	return srcs[pick].n, srcs[pick].name
}

// countCPULines counts the cpuN lines of /proc/stat: one per online core.
func countCPULines(b []byte) int {
	n := 0
	for _, line := range bytes.Split(b, []byte("\n")) {
		if len(line) > 3 && bytes.HasPrefix(line, []byte("cpu")) && line[3] >= '0' && line[3] <= '9' {
			n++
		}
	}
	return n
}

// parseBuildProp reads key=value lines of build.prop files; the first file
// that sets a key wins, as /system/build.prop is read first.
func parseBuildProp(b []byte) map[string]string {
	props := map[string]string{}
	for _, line := range strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			continue
		}
		if _, seen := props[k]; !seen {
			props[k] = strings.TrimSpace(v)
		}
	}
	return props
}

// buildPropFailure says why build.prop gave no value.
func buildPropFailure(r *Result) string {
	switch {
	case r == nil:
		return "/system/build.prop not read"
	case len(bytes.TrimSpace(r.Stdout)) == 0:
		return describe(buildPropCmd, *r)
	}
	return "not in /system/build.prop"
}

// describe says how a command failed: its exit status and stderr, or that
// it printed nothing.
func describe(cmd string, r Result) string {
	if err := r.Err(cmd); err != nil {
		return err.Error()
	}
	if len(bytes.TrimSpace(r.Stdout)) == 0 {
		return cmd + ": printed nothing"
	}
	return fmt.Sprintf("%s printed %q", cmd, clip(bytes.TrimSpace(r.Stdout)))
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
		if r.ExitCode != 0 {
			return 0, fmt.Errorf("adbx app uid: %s; %w", describe(cmd, r), err)
		}
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

package adbx

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/android/dumpsys"
	"github.com/perfgate/perfgate/android/procfs"
)

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
// one round trip (two when getprop fails and /system/build.prop stands in):
// the model, manufacturer, ABI, API level and release from getprop; the
// cores from nproc, else /sys/devices/system/cpu/possible, else the cpuN
// lines of /proc/stat; USER_HZ from getconf CLK_TCK (100, the Android
// kernel value, when getconf is missing); the refresh rate from dumpsys
// display (its renderFrameRate where Android 14+ prints one, else the
// active mode's); root from id -u. The notes say where a fact came from a
// fallback (and why the usual command failed), or where two sources of one
// fact disagree. Only the API level is required: without it Facts fails
// with every command's exit status and stderr. Any other fact no source
// gave is left empty, with a note.
func (d *Device) Facts(ctx context.Context) (facts procfs.DeviceFacts, notes []string, err error) {
	rs, err := d.Batch(ctx, factsCmds)
	if err != nil {
		return procfs.DeviceFacts{}, nil, fmt.Errorf("adbx facts: %w", err)
	}
	var props *Result
	if len(rs) == len(factsCmds) && needBuildProp(rs) {
		pr, err := d.Batch(ctx, []string{buildPropCmd})
		if err != nil {
			return procfs.DeviceFacts{}, nil, fmt.Errorf("adbx facts %s: %w", d.serial, err)
		}
		props = &pr[0]
	}
	f, notes, err := parseFacts(rs, props)
	if err != nil {
		return procfs.DeviceFacts{}, nil, fmt.Errorf("adbx facts %s: %w", d.serial, err)
	}
	f.Serial = d.serial
	return f, notes, nil
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
func parseFacts(rs []Result, buildProp *Result) (procfs.DeviceFacts, []string, error) {
	if len(rs) != len(factsCmds) {
		return procfs.DeviceFacts{}, nil, fmt.Errorf("got %d results for %d commands", len(rs), len(factsCmds))
	}
	var f procfs.DeviceFacts
	var notes []string
	note := func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }
	var props map[string]string
	if buildProp != nil {
		// cat exits 1 when one of the files is missing and still prints
		// the others.
		props = procfs.ParseBuildProp(buildProp.Stdout)
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
		return procfs.DeviceFacts{}, nil, errors.New(why)
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
	if r := rs[factDisplay]; r.ExitCode != 0 {
		note("refresh rate: %s", describe(factsCmds[factDisplay], r))
	} else if d, err := dumpsys.ParseDisplayRefresh(r.Stdout); err != nil {
		note("refresh rate: %v", err)
	} else {
		// Apps render at renderFrameRate, which can be a divisor of the
		// mode's rate (Android 14+).
		f.RefreshHz = cmp.Or(d.RenderHz, d.ActiveHz)
	}
	if r := rs[factID]; r.ExitCode == 0 {
		f.Root = trimSpace(r.Stdout) == "0"
	} else {
		note("root: %s; taken as not root", describe(factsCmds[factID], r))
	}
	return f, notes, nil
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
	if n, err := procfs.ParseCPUList(r.Stdout); err == nil && r.ExitCode == 0 {
		srcs = append(srcs, source{name: "/sys/devices/system/cpu/possible", n: n})
	} else {
		srcs = append(srcs, source{name: "/sys/devices/system/cpu/possible", why: describe(factsCmds[factPossible], r)})
	}
	r = rs[factProcStat]
	if st, err := procfs.ParseStat(r.Stdout); r.ExitCode != 0 || len(bytes.TrimSpace(r.Stdout)) == 0 {
		srcs = append(srcs, source{name: "/proc/stat", why: describe(factsCmds[factProcStat], r)})
	} else if err != nil {
		srcs = append(srcs, source{name: "/proc/stat", why: err.Error()})
	} else if len(st.Cores) == 0 {
		srcs = append(srcs, source{name: "/proc/stat", why: factsCmds[factProcStat] + ": no cpuN lines"})
	} else {
		srcs = append(srcs, source{name: "/proc/stat", n: len(st.Cores)})
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

// AppProcesses lists the running processes of pkg: its main process and
// those named "pkg:suffix". None running is an empty list, not an error.
func (d *Device) AppProcesses(ctx context.Context, pkg string) ([]dumpsys.PSProcess, error) {
	if err := validatePackage(pkg); err != nil {
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
	var procs []dumpsys.PSProcess
	var firstErr error
	for i, r := range rs {
		if err := r.Err(cmds[i]); err != nil {
			firstErr = cmp.Or(firstErr, err)
			continue
		}
		p, err := dumpsys.ParsePS(r.Stdout)
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
	return dumpsys.PackageProcesses(procs, pkg), nil
}

// AppUID returns the Linux uid pkg runs as (what per-UID traffic counters
// are keyed by). A package that is not installed gives ErrAppNotInstalled.
func (d *Device) AppUID(ctx context.Context, pkg string) (int, error) {
	if err := validatePackage(pkg); err != nil {
		return 0, err
	}
	cmd := "pm list packages -U " + pkg
	r, err := d.Shell(ctx, cmd)
	if err != nil {
		return 0, fmt.Errorf("adbx app uid %s: %w", pkg, err)
	}
	if uid, found, ok := listedUID(r, pkg); ok {
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
	return info.UserID, nil
}

// listedUID finds pkg in what `pm list packages -U <pkg>` printed (the
// filter lists every package whose name holds pkg). ok is false when pm
// failed or listed no uids (pm before Android 8 ignores -U); found says
// whether pkg was listed.
func listedUID(r Result, pkg string) (uid int, found, ok bool) {
	if r.ExitCode != 0 {
		return 0, false, false
	}
	entries, err := dumpsys.ParsePackageList(r.Stdout)
	if err != nil {
		return 0, false, false
	}
	for _, e := range entries {
		if e.UID < 0 {
			return 0, false, false
		}
		if e.Name == pkg {
			return e.UID, true, true
		}
	}
	return 0, false, true
}

// dumpsysPackage reads pkg's block of `dumpsys package <pkg>`.
func (d *Device) dumpsysPackage(ctx context.Context, pkg string) (dumpsys.PackageInfo, error) {
	cmd := "dumpsys package " + pkg
	r, err := d.Shell(ctx, cmd)
	if err != nil {
		return dumpsys.PackageInfo{}, fmt.Errorf("%s: %w", pkg, err)
	}
	if err := r.Err(cmd); err != nil {
		return dumpsys.PackageInfo{}, fmt.Errorf("%s: %w", pkg, err)
	}
	info, err := dumpsys.ParsePackage(r.Stdout)
	switch {
	case errors.Is(err, dumpsys.ErrPackageNotFound):
		return dumpsys.PackageInfo{}, fmt.Errorf("%w: %s (%q: %w)", ErrAppNotInstalled, pkg, cmd, err)
	case err != nil:
		return dumpsys.PackageInfo{}, fmt.Errorf("%q: %w", cmd, err)
	case info.Package != "" && info.Package != pkg:
		return dumpsys.PackageInfo{}, fmt.Errorf("%w: %s (%q printed the block of %q)", ErrAppNotInstalled, pkg, cmd, info.Package)
	}
	return info, nil
}

// Debuggable says whether pkg is built debuggable (android:debuggable,
// which run-as and some profilers need).
func (d *Device) Debuggable(ctx context.Context, pkg string) (bool, error) {
	if err := validatePackage(pkg); err != nil {
		return false, err
	}
	info, err := d.dumpsysPackage(ctx, pkg)
	if err != nil {
		return false, fmt.Errorf("adbx debuggable: %w", err)
	}
	return info.Debuggable(), nil
}

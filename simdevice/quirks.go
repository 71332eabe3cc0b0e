package simdevice

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/simdevice/internal/shell"
)

// Quirks switch on the ways real phones differ from a tidy one: each was
// seen on a real device (see ../shared/fixtures) and each is off in the
// zero value. Collectors are tested with them on, so a tool that works on
// the simulated phone also works on the phones that behave like this.
type Quirks struct {
	// MissingCommands are commands the device's shell lacks, e.g. "nproc"
	// (absent from older toybox builds) or "getprop" in a stripped shell.
	// Calling one fails as the shell does for an unknown command: exit
	// status 127 and "/system/bin/sh: <cmd>: inaccessible or not found" on
	// standard error; `which`, `command -v` and `toybox` do not list it.
	MissingCommands []string
	// MissingFiles are paths under /proc and /sys the device does not
	// have, as path.Match patterns ("/proc/*/net" matches every process's
	// net folder). Hiding a folder hides everything below it. Examples seen
	// on real devices: "/sys/devices/system/cpu/possible", "/proc/net",
	// "/proc/*/net", "/proc/net/xt_qtaguid".
	MissingFiles []string
	// LogHistory fills the log with what a phone in daily use holds:
	// crashes of other apps minutes before (a Java one and a native one),
	// an old force-stop of the app, and, whenever the app starts a process,
	// the crash of an earlier process of the app that had the same pid
	// (pids wrap around) three seconds before. Tools that read the log for
	// the app's crashes must tell these apart by pid and time.
	LogHistory bool
	// OnlineCores is how many of the cores are online, the rest hot-unplugged
	// as on phones that park cores (the GoClever capture's /proc/stat lists
	// cpu0 alone): /proc/stat lists cpu0…cpuN-1 and its cpu line grows only
	// with theirs, /sys/devices/system/cpu/online says 0-(N-1) while possible
	// and present keep every core, nproc prints N, and the app runs on those.
	// 0 means every core is online.
	OnlineCores int
	// DeniedServices are dumpsys services that refuse the caller, as a
	// shell without the DUMP permission sees them (sectrollz capture):
	// "Permission Denial: can't dump NetworkStats from from pid=…, uid=…
	// due to missing android.permission.DUMP permission", exit status 0.
	// E.g. "netstats", "meminfo", "gfxinfo".
	DeniedServices []string
	// DeniedProperties are system properties the shell may not set, as
	// path.Match patterns ("log.looper.*"), as on builds whose SELinux
	// policy keeps the shell from them: setprop fails with "Failed to set
	// property '…' to '…'. See dmesg for error reason."
	DeniedProperties []string
	// MissingDataSources are Perfetto data sources the device's tracing
	// service lacks, as on builds that leave one out: `perfetto --query`
	// does not list them, and a trace that asks for them holds none of
	// their data. E.g. "android.surfaceflinger.frametimeline",
	// "linux.process_stats".
	MissingDataSources []string
	// BrokenPulls are device files, as path.Match patterns
	// ("/data/misc/perfetto-traces/*"), whose transfer through adb's sync
	// service (adb pull) breaks off halfway: adbd sends the first half of
	// the file, then its read fails with EIO and it answers FAIL, as on a
	// phone whose storage fails a read. The file on the device stays
	// whole; adb pull exits with an error.
	BrokenPulls []string
	// ShortPulls are device files, as path.Match patterns, that adb's sync
	// service sends only in part: the first half, then DONE, as a pull
	// that overlaps the file's writer gets it (adbd reads to the end of
	// file as it is then). adb pull reports success; the file on the
	// device stays whole, and stat says its whole size.
	ShortPulls []string
	// HugeOutputs make device programs print far more than any real
	// command does, as a service stuck in a loop of its dump would: a
	// command line whose leading words are an entry's Command ("dumpsys
	// meminfo" matches `dumpsys meminfo com.example`) prints its output over
	// and over, streamed as it goes and never held, until it has printed
	// the entry's Bytes (4 GiB when 0), then exits with its status. It
	// stops early when its reader goes away. Commands are the device's
	// programs (dumpsys, logcat, simpleperf, am, pm, ps, …), not the
	// shell's own (cat, echo).
	HugeOutputs []HugeOutput
	// FailingCommands make device programs fail as real ones do now and
	// then (a profiler whose record file is damaged, a log service that
	// refuses the reader, a shell without permission): a command line
	// whose leading words are an entry's Command prints the entry's
	// Stderr on standard error and exits with its Exit status, without
	// running. Commands are the device's programs, as for HugeOutputs.
	FailingCommands []FailingCommand
	// Battery is the battery's sign convention, charger and power rails
	// (see BatteryQuirks).
	Battery BatteryQuirks
}

// FailingCommand is one command of Quirks.FailingCommands.
type FailingCommand struct {
	Command string // the command line's leading words, e.g. "simpleperf report-sample"
	Exit    int    // its exit status, not 0
	Stderr  string // what it prints on standard error
}

// HugeOutput is one command of Quirks.HugeOutputs.
type HugeOutput struct {
	Command string // the command line's leading words, e.g. "dumpsys meminfo"
	Bytes   int64  // what it prints in all; 0 is 4 GiB
}

// hugeDefault is what a HugeOutput prints when it does not say: the 4 GB
// a phone printed on `dumpsys meminfo`.
const hugeDefault = 4 << 30

// validate checks the patterns, so a typo fails New instead of hiding
// nothing.
// Validate checks the quirks a device would be built with, as New does
// (OnlineCores aside, which New checks against Config.Cores).
func (q Quirks) Validate() error { return q.validate() }

func (q Quirks) validate() error {
	if err := q.Battery.validate(); err != nil {
		return err
	}
	for _, c := range q.MissingCommands {
		if c == "" || strings.ContainsAny(c, "/ \t\n") {
			return fmt.Errorf("simdevice: config: Quirks.MissingCommands: %q is not a command name", c)
		}
		if c == "sh" {
			return fmt.Errorf("simdevice: config: Quirks.MissingCommands: the shell itself cannot be missing")
		}
	}
	for _, sv := range q.DeniedServices {
		if sv == "" || strings.ContainsAny(sv, "/ \t\n") {
			return fmt.Errorf("simdevice: config: Quirks.DeniedServices: %q is not a service name", sv)
		}
	}
	for _, p := range q.DeniedProperties {
		if _, err := path.Match(p, "x"); err != nil || p == "" {
			return fmt.Errorf("simdevice: config: Quirks.DeniedProperties: %q is not a pattern", p)
		}
	}
	for _, ds := range q.MissingDataSources {
		if ds == "" || strings.ContainsAny(ds, " \t\n") {
			return fmt.Errorf("simdevice: config: Quirks.MissingDataSources: %q is not a data source name", ds)
		}
	}
	for _, pats := range [][]string{q.BrokenPulls, q.ShortPulls} {
		for _, p := range pats {
			if _, err := path.Match(p, "/"); err != nil || !strings.HasPrefix(p, "/") {
				return fmt.Errorf("simdevice: config: Quirks.BrokenPulls, ShortPulls: %q is not an absolute path pattern", p)
			}
		}
	}
	for _, h := range q.HugeOutputs {
		if len(strings.Fields(h.Command)) == 0 || h.Bytes < 0 {
			return fmt.Errorf("simdevice: config: Quirks.HugeOutputs: %q, %d bytes: want a command and a size ≥ 0", h.Command, h.Bytes)
		}
	}
	for _, p := range q.MissingFiles {
		if !strings.HasPrefix(p, "/proc/") && !strings.HasPrefix(p, "/sys/") {
			return fmt.Errorf("simdevice: config: Quirks.MissingFiles: %q is not under /proc or /sys", p)
		}
		if _, err := path.Match(p, "/"); err != nil {
			return fmt.Errorf("simdevice: config: Quirks.MissingFiles: %q: %v", p, err)
		}
	}
	for _, f := range q.FailingCommands {
		if len(strings.Fields(f.Command)) == 0 || f.Exit <= 0 || f.Exit > 255 {
			return fmt.Errorf("simdevice: config: Quirks.FailingCommands: %q, exit %d: want a command and an exit status 1–255", f.Command, f.Exit)
		}
	}
	return nil
}

// failingCommands wraps the programs that FailingCommands name.
func (q Quirks) failingCommands(programs map[string]shell.Command) {
	for name, run := range programs {
		var mine []FailingCommand
		for _, f := range q.FailingCommands {
			if strings.Fields(f.Command)[0] == name {
				mine = append(mine, f)
			}
		}
		if len(mine) == 0 {
			continue
		}
		programs[name] = func(ctx context.Context, args []string, stdout, stderr io.Writer) int {
			line := append([]string{name}, args...)
			for _, f := range mine {
				if want := strings.Fields(f.Command); len(line) >= len(want) && slices.Equal(line[:len(want)], want) {
					io.WriteString(stderr, f.Stderr)
					return f.Exit
				}
			}
			return run(ctx, args, stdout, stderr)
		}
	}
}

// hidesFile reports whether p, or a folder above it, matches one of the
// MissingFiles patterns.
func (q Quirks) hidesFile(p string) bool {
	for _, pat := range q.MissingFiles {
		for dir := p; dir != "/" && dir != "."; dir = path.Dir(dir) {
			if ok, _ := path.Match(pat, dir); ok {
				return true
			}
		}
	}
	return false
}

// pullFault says how a pull of canonical path p goes wrong: broken (the
// read fails halfway), short (the transfer ends halfway), or neither.
func (q Quirks) pullFault(p string) (broken, short bool) {
	match := func(pats []string) bool {
		for _, pat := range pats {
			if ok, _ := path.Match(pat, p); ok {
				return true
			}
		}
		return false
	}
	return match(q.BrokenPulls), match(q.ShortPulls)
}

// commands is the sorted list of executables on /system/bin: the shell's
// own and the device's programs, without the missing ones.
func (q Quirks) commands(programs map[string]shell.Command) []string {
	all := append(shell.Implemented(), slices.Collect(maps.Keys(programs))...)
	slices.Sort(all)
	return slices.DeleteFunc(all, func(c string) bool { return slices.Contains(q.MissingCommands, c) })
}

// denial is what dumpsys prints for a service in DeniedServices: the
// platform's DumpUtils line (its "from from" included), or SurfaceFlinger's
// own.
func (q Quirks) denial(svc string, pid, uid int) (string, bool) {
	if !slices.Contains(q.DeniedServices, svc) {
		return "", false
	}
	switch svc {
	case "SurfaceFlinger":
		return fmt.Sprintf("Permission Denial: can't dump SurfaceFlinger from pid=%d, uid=%d\n", pid, uid), true
	case "netstats":
		svc = "NetworkStats"
	}
	return fmt.Sprintf("Permission Denial: can't dump %s from from pid=%d, uid=%d due to missing android.permission.DUMP permission\n", svc, pid, uid), true
}

// hugeOutputs wraps the programs that HugeOutputs name.
func (q Quirks) hugeOutputs(programs map[string]shell.Command) {
	for name, run := range programs {
		var mine []HugeOutput
		for _, h := range q.HugeOutputs {
			if strings.Fields(h.Command)[0] == name {
				mine = append(mine, h)
			}
		}
		if len(mine) > 0 {
			programs[name] = hugeCommand(name, run, mine)
		}
	}
}

// hugeCommand is run, except that a command line matching one of huge
// prints its output again and again up to that entry's size.
func hugeCommand(name string, run shell.Command, huge []HugeOutput) shell.Command {
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) int {
		line := append([]string{name}, args...)
		var h *HugeOutput
		for i := range huge {
			want := strings.Fields(huge[i].Command)
			if len(line) >= len(want) && slices.Equal(line[:len(want)], want) {
				h = &huge[i]
				break
			}
		}
		if h == nil {
			return run(ctx, args, stdout, stderr)
		}
		var once bytes.Buffer
		code := run(ctx, args, &once, stderr)
		if once.Len() == 0 {
			once.WriteString(strings.Join(line, " ") + ": simdevice HugeOutputs\n")
		}
		total := h.Bytes
		if total == 0 {
			total = hugeDefault
		}
		// The output repeated into a piece of some 64 KB, written until
		// the size is reached: one piece is held, whatever the size.
		piece := bytes.Repeat(once.Bytes(), max(1, (64<<10)/once.Len()))
		for left := total; left > 0; {
			if ctx.Err() != nil {
				return 130
			}
			n := int(min(int64(len(piece)), left))
			if _, err := stdout.Write(piece[:n]); err != nil {
				return 141 // SIGPIPE: the reader went away
			}
			left -= int64(n)
		}
		return code
	}
}

// Package analyzecmd is perfgate's analyze command: perfgate's metrics
// applied to captures saved earlier (frames, meminfo, CPU, traces).
package analyzecmd

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/analyze"
	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/android/dumpsys"
	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/internal/clihelp"
	"github.com/perfgate/perfgate/internal/excerpt"
	"github.com/perfgate/perfgate/trace"
	"github.com/perfgate/perfgate/trace/frametiming"
)

const analyzeUsage = `usage: perfgate analyze <what> [flags] FILE...

  frames  [-source auto|surfaceflinger|gfxinfo] [-refresh-hz F] [-window SUBSTRING] FILE
  meminfo FILE
  cpu     BEFORE AFTER
  trace   [-package PKG] [-from T] [-to T] [-clock boottime|monotonic] [-top N] [-json] FILE
`

// Run is `perfgate analyze` on its arguments (those after "analyze").
func Run(args []string, stdout, stderr io.Writer) error {
	return clihelp.Subcommands{What: "analyze", Usage: analyzeUsage, None: "say what to analyze", Unknown: "unknown kind %q", Cmds: map[string]clihelp.Command{
		"frames": analyzeFrames, "meminfo": analyzeMeminfo, "cpu": analyzeCPU, "trace": analyzeTrace,
	}}.Run(args, stdout, stderr)
}

func analyzeFrames(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("analyze frames", flag.ContinueOnError)
	fs.SetOutput(stderr)
	source := fs.String("source", "auto", "capture kind: auto, surfaceflinger or gfxinfo")
	refreshHz := fs.Float64("refresh-hz", 0, "display refresh rate, used when the capture does not give the vsync period")
	window := fs.String("window", "", "gfxinfo: analyze the window whose name contains this text (default: the one with most frames)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: perfgate analyze frames [-source auto|surfaceflinger|gfxinfo] [-refresh-hz F] [-window SUBSTRING] FILE")
		fs.PrintDefaults()
	}
	if err := clihelp.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return clihelp.Wrong(fs, errors.New("analyze frames: give exactly one capture file"))
	}
	if *refreshHz < 0 || math.IsNaN(*refreshHz) || math.IsInf(*refreshHz, 0) {
		return fmt.Errorf("analyze frames: -refresh-hz %v is not a rate", *refreshHz)
	}
	file, err := os.Open(fs.Arg(0))
	if err != nil {
		return fmt.Errorf("analyze frames: %w", err)
	}
	defer file.Close()
	o := analyze.FramesOptions{Source: *source, Window: *window}
	if *refreshHz > 0 {
		o.RefreshPeriod = int64(math.Round(1e9 / *refreshHz))
	}
	out, err := analyze.ReadFrames(file, fs.Arg(0), o)
	if line := noProcessLine(file, err); line != "" {
		return fmt.Errorf("analyze frames: %s: the capture says %s: the app was not running when it was taken (start the app, then capture again)", fs.Arg(0), excerpt.Quote(line))
	}
	if noFramestats(err) && *source != frames.SourceSurfaceFlinger {
		// A gfxinfo capture without framestats: its summary, or the
		// profile table of Android 4 to 6.
		if legacy, ok := readGfxLegacy(fs.Arg(0), *window); ok {
			return legacy.write(stdout, stderr)
		}
		if why := emptyProfile(fs.Arg(0)); why != "" {
			return fmt.Errorf("analyze frames: %s: %s", fs.Arg(0), why)
		}
	}
	if errors.Is(err, analyze.ErrUnknownFormat) {
		return fmt.Errorf("analyze frames: %w; say which with -source", err)
	}
	if err != nil {
		return fmt.Errorf("analyze frames: %w", err)
	}
	return out.WriteJSON(stdout)
}

const analyzeMeminfoUsage = `usage: perfgate analyze meminfo FILE

FILE holds the output of 'adb shell dumpsys meminfo <pkg>' (UTF-8 or UTF-16,
any line ends). Prints one JSON object; sizes are KiB.
`

func analyzeMeminfo(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("analyze meminfo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, analyzeMeminfoUsage) }
	if err := clihelp.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return clihelp.Wrong(fs, errors.New("analyze meminfo: want exactly one FILE"))
	}
	out, err := analyze.ReadMeminfo(fs.Arg(0))
	if err != nil {
		return fmt.Errorf("analyze meminfo: %w", err)
	}
	return out.WriteJSON(stdout)
}

const analyzeCPUUsage = `usage: perfgate analyze cpu [-cores N] BEFORE AFTER

BEFORE and AFTER each hold one sample, as printed by
  adb shell cat /proc/stat /proc/<pid>/stat [/proc/<pid2>/stat ...]
for instance
  adb shell 'cat /proc/stat /proc/$(pidof com.example)/stat' > before.txt
that is, /proc/stat followed by zero or more /proc/<pid>/stat lines (one per
process of the app, including pkg:remote processes), in any order.

  device_cpu_pct    Δbusy/Δtotal × 100 of the 'cpu' line
  app_cpu_pct       Δ(utime+stime) over the processes / Δtotal × 100 (share of the device)
  app_cpu_core_pct  app_cpu_pct × cores (top-style; 100 = one core busy)

-cores defaults to the number of cpuN lines in AFTER (offline cores are not listed).
Without /proc/<pid>/stat lines only device_cpu_pct is measured; app_cpu_pct
is null and "not_measured" says why.
`

func analyzeCPU(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("analyze cpu", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, analyzeCPUUsage) }
	cores := fs.Int("cores", 0, "core count for app_cpu_core_pct (default: cpuN lines in AFTER)")
	if err := clihelp.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return clihelp.Wrong(fs, errors.New("analyze cpu: want BEFORE and AFTER files"))
	}
	if *cores < 0 {
		return fmt.Errorf("analyze cpu: -cores %d, want > 0", *cores)
	}
	out, err := analyze.ReadCPU(fs.Arg(0), fs.Arg(1), *cores)
	if err != nil {
		return fmt.Errorf("analyze cpu: %w", err)
	}
	if why, ok := out.NotMeasured["app_cpu_pct"]; ok {
		fmt.Fprintf(stderr, "not measured: app_cpu_pct, app_cpu_core_pct (%s)\n", why)
	}
	return out.WriteJSON(stdout)
}

const analyzeTraceUsage = `usage: perfgate analyze trace [-package PKG] [-from T] [-to T] [-clock boottime|monotonic] [-top N] [-json] FILE

FILE is a Perfetto trace (as 'adb shell perfetto' writes it; gzipped too).
Prints Android's own FrameTimeline jank classification of the app's frames
(every layer's without -package), and for each janky frame the app main
thread's states and its longest slices under Choreographer#doFrame; then
Macrobenchmark's frame overrun and CPU percentiles, and with -package each
launch's startup phases with the main thread's states and longest slices.

-from and -to bound the step: a duration (1.5s) is since the trace's start,
an integer is an absolute time in ns on -clock (monotonic is the clock of
dumpsys gfxinfo and of perfgate's steps). Without them the step is the whole
trace.

`

// traceHeapLimit is the soft limit analyze trace puts on the heap.
const traceHeapLimit = 128 << 20

func analyzeTrace(args []string, stdout, stderr io.Writer) error {
	fs := clihelp.NewFlagSet("analyze trace", analyzeTraceUsage, stderr)
	pkg := fs.String("package", "", "the app's package (default: every app that drew frames)")
	from := fs.String("from", "", "the step's start: a duration since the trace's start, or ns on -clock")
	to := fs.String("to", "", "the step's end (excluded), like -from")
	clock := fs.String("clock", "boottime", "the clock of integer -from/-to: boottime or monotonic")
	top := fs.Int("top", trace.DefaultTopSlices, "slices listed per janky frame")
	asJSON := fs.Bool("json", false, "print JSON instead of text")
	if err := clihelp.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return clihelp.Wrong(fs, errors.New("analyze trace: give exactly one trace file"))
	}
	if *top <= 0 {
		return fmt.Errorf("analyze trace: -top %d, want > 0", *top)
	}
	// What an analysis keeps is small (the frames, the main threads' events
	// at a few bytes each) next to the garbage decoding a large file goes
	// through; a soft limit on the heap has the collector hand that back
	// before the process grows to twice what it keeps. A 2.5 GB trace
	// without -package: 172 MB resident instead of 296 MB, in the same
	// time. The user's GOMEMLIMIT wins.
	if os.Getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(traceHeapLimit))
	}
	c := &frametiming.Collector{}
	t, err := analyze.ReadTrace(fs.Arg(0), analyze.TraceOptions{Package: *pkg, TopSlices: *top, From: *from, To: *to, Clock: *clock, Marker: c.Marker, MainThreads: *pkg != ""})
	if err != nil {
		return fmt.Errorf("analyze trace: %w", err)
	}
	if *pkg != "" && len(t.Analysis.AppPIDs) == 0 {
		return fmt.Errorf("analyze trace: %s: %s", t.File, noSuchApp(t.File, *pkg))
	}
	write := func(w io.Writer) error { return writeTraceText(w, t, c, *pkg) }
	if *asJSON {
		write = t.WriteJSON
	}
	if err := write(stdout); err != nil {
		return err
	}
	if t.ReadErr != nil {
		return fmt.Errorf("analyze trace: %s: %w (the analysis above covers the packets before it)", t.File, t.ReadErr)
	}
	return nil
}

// noSuchApp says that the trace at path has no process of pkg, and names
// the apps that drew frames in it, the closest to pkg first: a second
// reading of the trace, without the package.
func noSuchApp(path, pkg string) string {
	msg := fmt.Sprintf("no process of %s in the trace", pkg)
	all, err := analyze.ReadTrace(path, analyze.TraceOptions{TopSlices: 1, Clock: "boottime"})
	if err != nil {
		return msg
	}
	named := map[int32]string{} // an app's name by pid, "" while unknown
	for _, l := range all.Analysis.Layers {
		if named[l.PID] == "" {
			named[l.PID] = appName(l)
		}
	}
	var pids, unnamed []int32
	for pid, name := range named {
		if name == "" {
			unnamed = append(unnamed, pid)
		} else {
			pids = append(pids, pid)
		}
	}
	if len(named) == 0 {
		return msg + " (no app drew frames in it)"
	}
	slices.SortFunc(pids, func(a, b int32) int {
		if d := excerpt.EditDistance(named[a], pkg) - excerpt.EditDistance(named[b], pkg); d != 0 {
			return d
		}
		return strings.Compare(named[a], named[b])
	})
	var apps []string
	for _, pid := range pids {
		apps = append(apps, fmt.Sprintf("%s (pid %d)", named[pid], pid))
	}
	slices.Sort(unnamed)
	if len(unnamed) > 0 {
		apps = append(apps, fmt.Sprintf("processes the trace does not name (pids %v)", unnamed))
	}
	return fmt.Sprintf("%s; the apps that drew frames, closest first: %s", msg, strings.Join(apps, ", "))
}

// appName is the app that drew the layer's frames: its process's name, or
// the package its layer's name starts with ("com.example/.MainActivity");
// "" when neither says.
func appName(l trace.Layer) string {
	if l.Process != "" {
		return l.Process
	}
	name := strings.TrimPrefix(l.Name, "TX - ")
	for _, p := range []string{"SurfaceView[", "SurfaceView - "} {
		name = strings.TrimPrefix(name, p)
	}
	pkg, _, ok := strings.Cut(name, "/")
	if !ok || dumpsys.ValidatePackage(pkg) != nil || !strings.Contains(pkg, ".") {
		return ""
	}
	return pkg
}

// noProcessLine is the line "No process found for: PKG" of a capture
// ReadFrames refused (err) because dumpsys found no process of the app,
// "" for any other error.
func noProcessLine(capture io.ReaderAt, err error) string {
	if !errors.Is(err, analyze.ErrUnknownFormat) && !errors.Is(err, gfxinfo.ErrNoProcess) {
		return ""
	}
	head := make([]byte, 64<<10)
	n, _ := capture.ReadAt(head, 0)
	for _, ln := range strings.Split(string(devtext.NormalizeHead(head[:n])), "\n") {
		if ln = strings.TrimSpace(ln); strings.HasPrefix(ln, "No process found for:") {
			return ln
		}
	}
	return ""
}

// noFramestats reports whether ReadFrames refused a capture for having no
// PROFILEDATA block, or for being of no format it knows: a gfxinfo
// summary or profile table, which readGfxLegacy reads.
func noFramestats(err error) bool {
	return errors.Is(err, analyze.ErrUnknownFormat) || err != nil && strings.Contains(err.Error(), "no PROFILEDATA block")
}

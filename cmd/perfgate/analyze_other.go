package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/android/dumpsys"
	"github.com/perfgate/perfgate/android/procfs"
)

// meminfoJSON is the output of `perfgate analyze meminfo`; sizes are KiB.
type meminfoJSON struct {
	Source  string             `json:"source"` // the command the capture came from
	File    string             `json:"file"`
	Process string             `json:"process,omitempty"`
	PID     int                `json:"pid,omitempty"`
	PSSKB   int64              `json:"pss_kb"`
	RSSKB   *int64             `json:"rss_kb"`  // null before Android 11
	SwapKB  *int64             `json:"swap_kb"` // null when the layout prints no swap
	SwapPSS bool               `json:"swap_is_pss,omitempty"`
	Summary *meminfoSummaryOut `json:"summary"` // null before Android 6
}

type meminfoSummaryOut struct {
	JavaHeapKB     int64 `json:"java_heap_kb"`
	NativeHeapKB   int64 `json:"native_heap_kb"`
	CodeKB         int64 `json:"code_kb"`
	StackKB        int64 `json:"stack_kb"`
	GraphicsKB     int64 `json:"graphics_kb"`
	PrivateOtherKB int64 `json:"private_other_kb"`
	SystemKB       int64 `json:"system_kb"`
	TotalKB        int64 `json:"total_kb"`
}

const analyzeMeminfoUsage = `usage: perfgate analyze meminfo FILE

FILE holds the output of 'adb shell dumpsys meminfo <pkg>' (UTF-8 or UTF-16,
any line ends). Prints one JSON object; sizes are KiB.
`

func analyzeMeminfo(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("analyze meminfo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, analyzeMeminfoUsage) }
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errors.New("analyze meminfo: want exactly one FILE")
	}
	path := fs.Arg(0)
	b, err := readCapture(path, dumpsys.MeminfoSource)
	if err != nil {
		return fmt.Errorf("analyze meminfo: %w", err)
	}
	m, err := dumpsys.ParseMeminfo(b)
	if err != nil {
		return fmt.Errorf("analyze meminfo: %s: %w", path, err)
	}
	out := meminfoJSON{
		Source: dumpsys.MeminfoSource, File: path, Process: m.Process, PID: m.PID,
		PSSKB: m.PSSKB, SwapPSS: m.SwapIsPSS,
	}
	if m.HasRSS {
		out.RSSKB = &m.RSSKB
	}
	if m.HasSwap {
		out.SwapKB = &m.SwapKB
	}
	if s := m.Summary; s.Present {
		out.Summary = &meminfoSummaryOut{
			JavaHeapKB: s.JavaHeapKB, NativeHeapKB: s.NativeHeapKB, CodeKB: s.CodeKB, StackKB: s.StackKB,
			GraphicsKB: s.GraphicsKB, PrivateOtherKB: s.PrivateOtherKB, SystemKB: s.SystemKB, TotalKB: s.TotalPSSKB,
		}
	}
	return analyzeOtherJSON(stdout, out)
}

// cpuJSON is the output of `perfgate analyze cpu`.
type cpuJSON struct {
	Source        string   `json:"source"`
	DeviceCPUPct  float64  `json:"device_cpu_pct"`
	AppCPUPct     *float64 `json:"app_cpu_pct"`      // null when no /proc/<pid>/stat lines were given
	AppCPUCorePct *float64 `json:"app_cpu_core_pct"` // app_cpu_pct × cores, as top shows it
	Cores         int      `json:"cores"`
	// NotMeasured says why app_cpu_pct is null (unmeasured is never
	// zero, and never left without a word).
	NotMeasured map[string]string `json:"not_measured,omitempty"`
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
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return errors.New("analyze cpu: want BEFORE and AFTER files")
	}
	if *cores < 0 {
		return fmt.Errorf("analyze cpu: -cores %d, want > 0", *cores)
	}
	var snaps [2]procfs.CPUSnapshot
	for i, path := range fs.Args() {
		b, err := readCapture(path, cpuSource)
		if err != nil {
			return fmt.Errorf("analyze cpu: %w", err)
		}
		if snaps[i], err = procfs.ParseCPUSnapshot(b); err != nil {
			return fmt.Errorf("analyze cpu: %s: %w", path, err)
		}
	}
	u, err := procfs.CPUUsageBetween(snaps[0], snaps[1], *cores)
	if err != nil {
		return fmt.Errorf("analyze cpu: %s → %s: %w", fs.Arg(0), fs.Arg(1), err)
	}
	out := cpuJSON{Source: cpuSource, DeviceCPUPct: u.DevicePct, Cores: u.Cores}
	if u.HasApp {
		out.AppCPUPct, out.AppCPUCorePct = &u.AppPct, &u.AppCorePct
	} else {
		why := fmt.Sprintf("cpu: %s and %s hold /proc/stat only, no /proc/<pid>/stat line of the app; save both with 'adb shell cat /proc/stat /proc/$(adb shell pidof <pkg>)/stat'", fs.Arg(0), fs.Arg(1))
		out.NotMeasured = map[string]string{"app_cpu_pct": why, "app_cpu_core_pct": why}
		fmt.Fprintf(stderr, "not measured: app_cpu_pct, app_cpu_core_pct (%s)\n", why)
	}
	return analyzeOtherJSON(stdout, out)
}

// cpuSource names what `analyze cpu` reads.
const cpuSource = "/proc/stat, /proc/<pid>/stat"

// maxCapture bounds the captures analyze reads whole (meminfo, cpu). The
// real ones are small: `dumpsys meminfo <pkg>` 0.5–7.5 KB (../shared/
// fixtures; some 30 KB with -a, a few MB for every process), /proc/stat
// under 2 KB and an app's /proc/<pid>/stat lines some 300 bytes each. 16
// MiB is 500 times the largest of one app; a bigger file is no such
// capture, and is refused having read 16 MiB of it.
const maxCapture = 16 << 20

// readCapture reads the capture at path of the output of source (a
// command), as devtext.ReadText: decoded as Normalize does, and refused
// with an error naming path, the line and quoting its start when a line is
// longer than any real one (devtext.MaxLine), or when the file is longer
// than maxCapture.
func readCapture(path, source string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := devtext.ReadText(f, source, maxCapture)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

func analyzeOtherJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

package analyze

import (
	"fmt"
	"io"
	"os"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/android/dumpsys"
	"github.com/perfgate/perfgate/android/procfs"
)

// Meminfo is what `perfgate analyze meminfo` prints; sizes are KiB.
type Meminfo struct {
	Source  string          `json:"source"` // the command the capture came from
	File    string          `json:"file"`
	Process string          `json:"process,omitempty"`
	PID     int             `json:"pid,omitempty"`
	PSSKB   int64           `json:"pss_kb"`
	RSSKB   *int64          `json:"rss_kb"`  // null before Android 11
	SwapKB  *int64          `json:"swap_kb"` // null when the layout prints no swap
	SwapPSS bool            `json:"swap_is_pss,omitempty"`
	Summary *MeminfoSummary `json:"summary"` // null before Android 6
}

// MeminfoSummary is the App Summary block of a meminfo capture, in KiB.
type MeminfoSummary struct {
	JavaHeapKB     int64 `json:"java_heap_kb"`
	NativeHeapKB   int64 `json:"native_heap_kb"`
	CodeKB         int64 `json:"code_kb"`
	StackKB        int64 `json:"stack_kb"`
	GraphicsKB     int64 `json:"graphics_kb"`
	PrivateOtherKB int64 `json:"private_other_kb"`
	SystemKB       int64 `json:"system_kb"`
	TotalKB        int64 `json:"total_kb"`
}

// ReadMeminfo reads the `dumpsys meminfo <pkg>` capture at path.
func ReadMeminfo(path string) (*Meminfo, error) {
	b, err := ReadCapture(path, dumpsys.MeminfoSource)
	if err != nil {
		return nil, err
	}
	m, err := dumpsys.ParseMeminfo(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := &Meminfo{
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
		out.Summary = &MeminfoSummary{
			JavaHeapKB: s.JavaHeapKB, NativeHeapKB: s.NativeHeapKB, CodeKB: s.CodeKB, StackKB: s.StackKB,
			GraphicsKB: s.GraphicsKB, PrivateOtherKB: s.PrivateOtherKB, SystemKB: s.SystemKB, TotalKB: s.TotalPSSKB,
		}
	}
	return out, nil
}

// WriteJSON writes m as indented JSON.
func (m *Meminfo) WriteJSON(w io.Writer) error { return writeIndented(w, m, false) }

// CPU is what `perfgate analyze cpu` prints.
type CPU struct {
	Source        string   `json:"source"`
	DeviceCPUPct  float64  `json:"device_cpu_pct"`
	AppCPUPct     *float64 `json:"app_cpu_pct"`      // null when no /proc/<pid>/stat lines were given
	AppCPUCorePct *float64 `json:"app_cpu_core_pct"` // app_cpu_pct × cores, as top shows it
	Cores         int      `json:"cores"`
	// NotMeasured says why app_cpu_pct is null (unmeasured is never
	// zero, and never left without a word).
	NotMeasured map[string]string `json:"not_measured,omitempty"`
}

// CPUSource names what ReadCPU reads.
const CPUSource = "/proc/stat, /proc/<pid>/stat"

// ReadCPU reads two samples of /proc/stat and the app's /proc/<pid>/stat
// lines, at before and after, and the CPU use between them; cores 0 counts
// the cpuN lines of after.
func ReadCPU(before, after string, cores int) (*CPU, error) {
	var snaps [2]procfs.CPUSnapshot
	for i, path := range []string{before, after} {
		b, err := ReadCapture(path, CPUSource)
		if err != nil {
			return nil, err
		}
		if snaps[i], err = procfs.ParseCPUSnapshot(b); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	u, err := procfs.CPUUsageBetween(snaps[0], snaps[1], cores)
	if err != nil {
		return nil, fmt.Errorf("%s → %s: %w", before, after, err)
	}
	out := &CPU{Source: CPUSource, DeviceCPUPct: u.DevicePct, Cores: u.Cores}
	if u.HasApp {
		out.AppCPUPct, out.AppCPUCorePct = &u.AppPct, &u.AppCorePct
	} else {
		why := fmt.Sprintf("cpu: %s and %s hold /proc/stat only, no /proc/<pid>/stat line of the app; save both with 'adb shell cat /proc/stat /proc/$(adb shell pidof <pkg>)/stat'", before, after)
		out.NotMeasured = map[string]string{"app_cpu_pct": why, "app_cpu_core_pct": why}
	}
	return out, nil
}

// WriteJSON writes c as indented JSON.
func (c *CPU) WriteJSON(w io.Writer) error { return writeIndented(w, c, false) }

// MaxCapture bounds the captures analyze reads whole (meminfo, cpu). The
// real ones are small: `dumpsys meminfo <pkg>` 0.5–7.5 KB (../shared/
// fixtures; some 30 KB with -a, a few MB for every process), /proc/stat
// under 2 KB and an app's /proc/<pid>/stat lines some 300 bytes each. 16
// MiB is 500 times the largest of one app; a bigger file is no such
// capture, and is refused having read 16 MiB of it.
const MaxCapture = 16 << 20

// ReadCapture reads the capture at path of the output of source (a
// command), as devtext.ReadText: decoded as Normalize does, and refused
// with an error naming path, the line and quoting its start when a line is
// longer than any real one (devtext.MaxLine), or when the file is longer
// than MaxCapture.
func ReadCapture(path, source string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := devtext.ReadText(f, source, MaxCapture)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

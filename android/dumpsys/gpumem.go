package dumpsys

import (
	"errors"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/android/devtext"
)

// GPUMemSource names `dumpsys gpu --gpumem` in errors and reports.
const GPUMemSource = "dumpsys gpu --gpumem"

// ErrGPUMemUnavailable is matched (errors.Is) by the error ParseGPUMem
// returns when GpuService says the phone keeps no GPU memory totals (its
// kernel has no gpu_mem_total tracepoint, before Android 12 or on some
// GPUs): "GPU memory total usage is not available", "… map is empty".
var ErrGPUMemUnavailable = errors.New("GPU memory totals not available")

// GPUMem is what `dumpsys gpu --gpumem` prints (Android 12+, GpuService's
// GpuMem::dump in AOSP frameworks/native/services/gpuservice/gpumem): per
// GPU, the global total and each process's total, in bytes.
type GPUMem struct {
	GPUs []GPUMemSnapshot
}

// GPUMemSnapshot is one GPU's "Memory snapshot for GPU <id>:" block.
type GPUMemSnapshot struct {
	GPU uint32
	// GlobalBytes is the "Global total"; HasGlobal false for "N/A".
	GlobalBytes int64
	HasGlobal   bool
	// Procs maps a pid to its "Proc <pid> total" in bytes.
	Procs map[int]int64
}

// ProcessBytes is pid's GPU memory over every GPU, and whether any GPU
// listed it.
func (g *GPUMem) ProcessBytes(pid int) (int64, bool) {
	var sum int64
	found := false
	for _, s := range g.GPUs {
		if v, ok := s.Procs[pid]; ok {
			sum, found = sum+v, true
		}
	}
	return sum, found
}

// ParseGPUMem parses `dumpsys gpu --gpumem` (or the whole `dumpsys gpu`,
// whose other sections it skips):
//
//	Memory snapshot for GPU 0:
//	Global total: 2291724288
//	Proc 1203 total: 104857600
//	Proc 18724 total: 2078720000, imported: 0
//
// GpuService's "not available"/"empty" answers return an error matching
// ErrGPUMemUnavailable; a snapshot line it cannot read, or text with
// neither, a *devtext.ParseError quoting it.
func ParseGPUMem(b []byte) (*GPUMem, error) {
	g := &GPUMem{}
	var cur *GPUMemSnapshot
	for i, ln := range strings.Split(string(devtext.Normalize(b)), "\n") {
		t := strings.TrimSpace(ln)
		bad := func(why string) error {
			return &devtext.ParseError{Source: GPUMemSource, Line: i + 1, Text: ln, Reason: why}
		}
		switch {
		case strings.HasPrefix(t, "GPU memory total usage"):
			return nil, &devtext.ParseError{Source: GPUMemSource, Line: i + 1, Text: ln, Reason: "no GPU memory totals", Err: ErrGPUMemUnavailable}
		case strings.HasPrefix(t, "Memory snapshot for GPU "):
			id, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(t, "Memory snapshot for GPU "), ":"), 10, 32)
			if err != nil || !strings.HasSuffix(t, ":") {
				return nil, bad("want \"Memory snapshot for GPU <id>:\"")
			}
			g.GPUs = append(g.GPUs, GPUMemSnapshot{GPU: uint32(id), Procs: map[int]int64{}})
			cur = &g.GPUs[len(g.GPUs)-1]
		case cur != nil && strings.HasPrefix(t, "Global total:"):
			v, _, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(t, "Global total:")), ",")
			if v == "N/A" {
				continue
			}
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return nil, bad("global total is not a byte count")
			}
			cur.GlobalBytes, cur.HasGlobal = n, true
		case cur != nil && strings.HasPrefix(t, "Proc "):
			pid, rest, ok := strings.Cut(strings.TrimPrefix(t, "Proc "), " total:")
			p, perr := strconv.Atoi(pid)
			v, _, _ := strings.Cut(strings.TrimSpace(rest), ",")
			n, err := strconv.ParseInt(v, 10, 64)
			if !ok || perr != nil || p <= 0 || err != nil || n < 0 {
				return nil, bad("want \"Proc <pid> total: <bytes>\"")
			}
			if _, dup := cur.Procs[p]; dup {
				return nil, bad("process listed twice")
			}
			cur.Procs[p] = n
		}
	}
	if len(g.GPUs) == 0 {
		return nil, &devtext.ParseError{Source: GPUMemSource, Reason: "no \"Memory snapshot for GPU\" block and no \"GPU memory total usage\" line"}
	}
	return g, nil
}

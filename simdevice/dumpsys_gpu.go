package simdevice

import (
	"fmt"
	"io"
	"slices"
)

// dumpsysGPU is `dumpsys gpu [--gpumem]`: GpuService's driver lines, then
// (without an option, or with --gpumem) its GPU memory totals as AOSP's
// GpuMem::dump prints them, from Android 12: the global total, the system
// server's and the app's process totals in bytes, the app's being its
// Graphics memory. Before Android 12 GpuService keeps no totals.
func (w *World) dumpsysGPU(args []string, stdout io.Writer) int {
	gpumem := len(args) == 0 || slices.Contains(args, "--gpumem")
	if len(args) == 0 || !gpumem {
		fmt.Fprint(stdout, "Stable Game Driver: unsupported\nPre-release Game Driver: unsupported\n\n")
	}
	if !gpumem {
		return 0
	}
	if w.cfg.API < 31 {
		fmt.Fprintln(stdout, "GPU memory total usage is not available")
		return 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	const system = 1000
	sys := int64(48 << 20)
	fmt.Fprintf(stdout, "Memory snapshot for GPU 0:\n")
	var app int64
	if w.app != nil {
		app = w.memLocked().graphics << 10
	}
	fmt.Fprintf(stdout, "Global total: %d\nProc %d total: %d\n", sys+app+(96<<20), system, sys)
	if w.app != nil {
		fmt.Fprintf(stdout, "Proc %d total: %d\n", w.app.pid, app)
	}
	return 0
}

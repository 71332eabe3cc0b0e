package perftest_test

import (
	"testing"

	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/simdevice"
)

// The App Summary metrics of a step on the simulated phone are its truth:
// Java and native heap as the workload holds them (a steady one), GPU
// memory the app's process total of dumpsys gpu --gpumem on Android 13,
// which the phone makes its Graphics memory; Android 11 keeps no GPU
// totals, so there mem_gpu_max is not measured, with the reason.
func TestMemoryBreakdownTruth(t *testing.T) {
	wl, err := simdevice.Preset("smooth-scroll")
	if err != nil {
		t.Fatal(err)
	}
	for _, api := range []int{33, 30} {
		simtest.Bubble(t, func(t *testing.T) {
			_, st, before, after := scrollWith(t, "smooth-scroll", api, simdevice.Quirks{}, 20, nil)
			if before.JavaKiB != after.JavaKiB || before.NativeKiB != after.NativeKiB {
				t.Fatalf("the heap moved: %+v → %+v", before, after)
			}
			for n, want := range map[metrics.Name]int64{metrics.MemJavaHeapMax: after.JavaKiB, metrics.MemNativeHeapMax: after.NativeKiB} {
				if got := metric(t, st, n); got != float64(want) {
					t.Errorf("API %d: %s %v KiB, truth %d", api, n, got, want)
				}
			}
			if api >= 31 {
				if got := metric(t, st, metrics.MemGPUMax); got != float64(wl.Memory.GraphicsKiB) {
					t.Errorf("API %d: mem_gpu_max %v KiB, the phone's graphics %d", api, got, wl.Memory.GraphicsKiB)
				}
				return
			}
			absent(t, st, []metrics.Name{metrics.MemGPUMax}, "dumpsys gpu --gpumem gave no GPU memory totals", "Android 11 and older")
		})
	}
}

package result

import (
	"github.com/perfgate/perfgate/android/dumpsys"
	"github.com/perfgate/perfgate/metrics"
)

// SummaryKeys maps each App Summary metric to its row's key in
// MemoryStats.Summary and SummaryMax.
var SummaryKeys = []struct {
	Name metrics.Name
	Key  string
}{
	{metrics.MemJavaHeapMax, "java_heap_kb"}, {metrics.MemNativeHeapMax, "native_heap_kb"},
	{metrics.MemCodeMax, "code_kb"}, {metrics.MemStackMax, "stack_kb"},
	{metrics.MemGraphicsMax, "graphics_kb"}, {metrics.MemPrivateOtherMax, "private_other_kb"},
}

// breakdown is one App Summary metric of a step, its value in KiB or why
// it has none.
type breakdown struct {
	name metrics.Name
	kb   float64
	why  string
}

// memBreakdown is the step's App Summary metrics; whyPSS says why the step
// had no dumpsys meminfo read at all ("" when it had one).
func memBreakdown(m MemoryStats, whyPSS string) []breakdown {
	why := whyPSS
	switch {
	case why != "" || m.SummaryMax != nil:
	case m.Summary != nil:
		why = "memory: the Result keeps only the step's last App Summary (written before the highest of each row was kept)"
	default:
		why = "memory: dumpsys meminfo printed no App Summary in the step's reads (Android 5 and older print none)"
	}
	out := make([]breakdown, len(SummaryKeys))
	for i, k := range SummaryKeys {
		v, ok := m.SummaryMax[k.Key]
		w := why
		if w == "" && !ok {
			w = "memory: the App Summary printed no " + k.Key + " row"
		}
		out[i] = breakdown{k.Name, float64(v), w}
	}
	gpu := breakdown{name: metrics.MemGPUMax, why: whyPSS}
	switch {
	case m.GPUMaxKB != nil:
		gpu.kb = float64(*m.GPUMaxKB)
	case m.SummaryMax == nil && m.Summary != nil:
		gpu.why = why // a Result written before either was kept
	case whyPSS == "":
		gpu.why = "memory: dumpsys gpu --gpumem gave no GPU memory totals in the step's reads (Android 11 and older keep none; so do kernels without the gpu_mem_total tracepoint)"
	}
	return append(out, gpu)
}

// MeminfoSummary is an App Summary as MemorySample.Summary keeps it; nil
// for a meminfo that printed none.
func MeminfoSummary(sm dumpsys.MeminfoSummary) map[string]int64 {
	if !sm.Present {
		return nil
	}
	return map[string]int64{
		"java_heap_kb":     sm.JavaHeapKB,
		"native_heap_kb":   sm.NativeHeapKB,
		"code_kb":          sm.CodeKB,
		"stack_kb":         sm.StackKB,
		"graphics_kb":      sm.GraphicsKB,
		"private_other_kb": sm.PrivateOtherKB,
		"system_kb":        sm.SystemKB,
	}
}

package report_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
)

// A pull-request summary of a recorded session with a jank budget, for
// $GITHUB_STEP_SUMMARY.
func ExampleWriteMarkdown() {
	r, err := result.ReadResult("testdata/janky-scroll.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	var b strings.Builder
	report.WriteMarkdown(&b, []*result.Result{r}, report.Options{
		Budgets:  []budget.Limit{{Step: "scroll", Metric: metrics.Jank, Value: 2}},
		HTMLLink: "report.html",
	})
	for _, line := range strings.Split(b.String(), "\n")[:10] {
		fmt.Println(line)
	}
	// Output:
	// ## perfgate report: ❌ 1 of 1 sessions failed
	//
	// Charts and every metric: [HTML report](report.html)
	//
	// ### ❌ TestJankyScroll
	//
	// device: Google Pixel 6 · android: 13 (API 33) · refresh: 60 Hz · package: com.perfgate.demo
	//
	// ```
	// perf budget exceeded: scroll: jank 3 > 2 (deadline missed; frames at 0.39s 1.48s 2.59s)
}

// Comparing five runs before and after a change that slowed frames by a
// quarter: the gate's regression line, and the benchstat-style table.
func ExampleCompare() {
	session := func(p95 float64) *result.Result {
		st := &result.Step{Name: "scroll"}
		st.FrameStats = frames.Summary{Source: "gfxinfo", Frames: 100, FPS: 60, FrameTimeMS: frames.Percentiles{P95: p95}}
		return &result.Result{Schema: result.Schema, Steps: []*result.Step{st}}
	}
	var base, next []*result.Result
	for _, v := range []float64{16, 16.5, 17, 16.25, 16.75} {
		base = append(base, session(v))
		next = append(next, session(v*1.25))
	}
	c := report.Compare(base, next, report.CompareOptions{ThresholdPct: 10})
	for _, l := range c.Regressions() {
		fmt.Println(l)
	}
	// Output:
	// perf regression: scroll: frame_time_p95 16.5ms → 20.63ms (+25.0%, p=0.008, n=5+5)
}

// The Go benchmark text of a session, for benchstat.
func ExampleWriteBenchstat() {
	r, err := result.ReadResult("testdata/janky-scroll.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	report.WriteBenchstat(os.Stdout, []*result.Result{{Device: r.Device, App: r.App, Name: r.Name, Steps: r.Steps[:1]}})
	// Output:
	// device: Google Pixel 6
	// android: 13
	// api: 33
	// refresh-hz: 60
	// package: com.perfgate.demo
	// BenchmarkPerf/test=TestJankyScroll/step=scroll 1 166 frames 55.3073 fps 3 jank 3 deadline-missed 2 perfdog-jank 1 perfdog-bigjank 7.82123 perfdog-stutter-% 3 chromium-jank 8 max-frame-delay-periods 7.52655e+06 p50-frame-ns 8.22627e+06 p90-frame-ns 8.24612e+06 p95-frame-ns 9.58333e+07 p99-frame-ns 3 slow-frames 0 frozen-frames 7.16356 app-cpu-% 8.53659 app-cpu-p90-% 8.75 app-cpu-max-% 57.3085 app-core-cpu-% 11.0973 device-cpu-% 1.26976e+08 pss-max-B 0 pss-growth-B/min 1.88416e+08 rss-max-B 6008 rx-B 1502 tx-B 32.9 battery-max-C -328.2 battery-current-mA 0 crashes
	// # scroll: not measured: jank_frametimeline, frame_overrun_p50, frame_overrun_p90, frame_overrun_p95, frame_overrun_p99, frame_cpu_p50, frame_cpu_p90, frame_cpu_p95, frame_cpu_p99 (trace: no Perfetto trace read for the step)
	// # scroll: not measured: sm_gt (gt sm: no Choreographer log read for the step)
	// # scroll: not measured: mem_java_heap_max, mem_native_heap_max, mem_code_max, mem_stack_max, mem_graphics_max, mem_private_other_max, mem_gpu_max (memory: the Result keeps only the step's last App Summary (written before the highest of each row was kept))
	// # scroll: not measured: energy_mah, energy_mj, power_mean_mw, energy_rail_cpu_big_mj, energy_rail_cpu_mid_mj, energy_rail_cpu_little_mj, energy_rail_gpu_mj, energy_rail_display_mj, energy_rail_modem_mj (energy: not collected)
	// # scroll: not measured: startup_initial, startup_full (startup: the step launched nothing)
	// # scroll: not measured: max_block (blocks: the session did not look for causes)
	// # scroll: not measured: anrs (anrs: the session did not look for causes)
}

package assert_test

import (
	"fmt"
	"strings"
	"sync"

	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/result"
)

// fakeT is a testify-style TestingT that records instead of failing.
type fakeT struct {
	mu      sync.Mutex
	errs    []string
	logs    []string
	helpers int
	failNow bool
}

func (f *fakeT) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}
func (f *fakeT) FailNow() { f.failNow = true }
func (f *fakeT) Helper() {
	f.mu.Lock()
	f.helpers++
	f.mu.Unlock()
}
func (f *fakeT) Logf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
}

// minimalT has only Errorf and FailNow: testify's require.TestingT.
type minimalT struct{ errs []string }

func (m *minimalT) Errorf(format string, args ...any) {
	m.errs = append(m.errs, fmt.Sprintf(format, args...))
}
func (m *minimalT) FailNow() {}

func (f *fakeT) text() string { return strings.Join(f.errs, "\n") }

// scrollStep is a step with every metric set to a hand-picked value.
func scrollStep() *result.Step {
	dm := 5
	return &result.Step{
		Name: "scroll", HostStartNs: 1e9, HostEndNs: 5e9,
		FrameStats: frames.Summary{
			Source: "gfxinfo", Frames: 230, FPS: 57.46, Jank: 5, JankDefinition: frames.JankDefinitionDeadlineMissed,
			DeadlineMissed: &dm, PerfDog: frames.PerfDog{Jank: 3, BigJank: 2, Stutter: 0.0412},
			FrameTimeMS: frames.Percentiles{P50: 7.5, P90: 12.1, P95: 18.24, P99: 95.8},
		},
		JankAtS:      []float64{1.84, 2.1, 2.31, 3.02, 3.4},
		BigJankAtS:   []float64{2.1, 3.4},
		CPUStats:     result.CPUStats{Source: "/proc/stat", Intervals: 40, Mean: 12.5, P90: 20.25, Max: 31},
		MemoryStats:  result.MemoryStats{PSSSamples: 4, PSSMaxKB: 152_000, PSSGrowthKBPerMin: 900, RSSSamples: 40, RSSMaxKB: 210_000},
		TrafficStats: &result.TrafficStats{Source: "/proc/net/xt_qtaguid/stats", Scope: "uid", RxBytes: 5000, TxBytes: 800, Intervals: 40},
		Startup: &result.StartupStats{Kind: "cold", Source: "am start -W TotalTime", InitialDisplayMs: 650, FullDisplayMs: 900,
			Iterations: []result.StartupSample{{TotalTimeMs: 650, FullyDrawnMs: 900}}},
	}
}

// crashStep is a step in which the app died once.
func crashStep() *result.Step {
	return &result.Step{Name: "tap", HostStartNs: 2e9, HostEndNs: 3e9,
		Crashes: []result.Crash{{HostNs: 2_400_000_000, Step: "tap", OldPIDs: []int{4242}, NewPIDs: []int{4300}}}}
}

// run wraps steps into a Result on a named device.
func run(model, release string, steps ...*result.Step) *result.Result {
	return &result.Result{Schema: result.Schema, Device: procfs.DeviceFacts{Manufacturer: "Google", Model: model, Release: release, API: 34}, Steps: steps}
}

package metrics

import "strings"

// Better says which way a metric improves.
type Better int

const (
	// Neither: the metric is context (frame count) and never regresses.
	Neither Better = iota
	// Lower is better: jank, frame time, CPU, memory, traffic, startup.
	Lower
	// Higher is better: FPS.
	Higher
)

// Metric is one number of a step with its unit and where it came from:
// the unit of budgets, reports and regression gates.
type Metric struct {
	// Name is the metric's name in budgets, comparisons and benchmark
	// output, e.g. "frame_time_p95".
	Name  string
	Value float64
	// Unit is how Value is shown: "ms", "fps", "frames", "%", "KiB", "B".
	Unit string
	// Definition names the metric definition (DESIGN.md) or the device
	// command the value follows, e.g. "deadline missed".
	Definition string
	Better     Better
	// BenchUnit is the benchstat unit token (no spaces; "ns" and "B" for
	// times and sizes) and BenchScale the factor from Value to it.
	BenchUnit  string
	BenchScale float64
}

// IsCount reports whether the metric counts things (frames, crashes), so a
// budget's headroom is +1 rather than a percentage.
func (m Metric) IsCount() bool {
	switch m.Unit {
	case "frames", "crashes", "periods":
		return true
	}
	return false
}

// BaseStep is a step's name without the iteration suffix perftest gives a
// name used again ("scroll#2" → "scroll"): a step's iterations are one
// step to budgets, regression gates, comparisons and benchmark output.
func BaseStep(name string) string {
	if i := strings.LastIndexByte(name, '#'); i > 0 && i+1 < len(name) && strings.Trim(name[i+1:], "0123456789") == "" {
		return name[:i]
	}
	return name
}

// BenchToken makes a name one token of benchmark output: blanks, and the
// "/" and "=" that would split a benchmark name into sub-names, become "_".
func BenchToken(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\n', '/', '=':
			return '_'
		}
		return r
	}, s)
}

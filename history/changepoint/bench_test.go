package changepoint

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"syscall"
	"testing"
	"time"
)

// BenchmarkDetect10000 finds the change points of 10,000 runs with three
// level shifts, each run the median of 5 iterations with 5 % noise.
func BenchmarkDetect10000(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	values := make([]float64, 10000)
	it := make([]float64, 5)
	for i := range values {
		l := 20.0
		switch {
		case i >= 7000:
			l = 26
		case i >= 4000:
			l = 23
		case i >= 2500:
			l = 21
		}
		for j := range it {
			it[j] = l * (1 + noise*rng.NormFloat64())
		}
		values[i] = median(it)
	}
	b.ResetTimer()
	for b.Loop() {
		if cps := Detect(values, Options{}, 0); len(cps) < 3 {
			b.Fatalf("found %d change points, want 3 or more", len(cps))
		}
	}
}

// BenchmarkDetectLong finds the change points of one of TestDetectionLong's
// series: 8,000 runs with a change every 50–550 runs, 5 % outliers and
// 15 % missing runs. Its time grows with the series' length, not with its
// length times its number of changes.
func BenchmarkDetectLong(b *testing.B) {
	tr := generateLong(rand.New(rand.NewPCG(1, 11)), 8000, 0.05, 0.15)
	b.ResetTimer()
	for b.Loop() {
		if cps := Detect(tr.values, Options{}, 0); len(cps) < len(tr.changes)/2 {
			b.Fatalf("found %d change points of %d", len(cps), len(tr.changes))
		}
	}
}

// stepsEvery makes n runs with n/500 steps of 10–30 % up or down at
// seeded runs at least 100 apart, each run one value with 2.5 % noise.
func stepsEvery(n int) []float64 {
	rng := rand.New(rand.NewPCG(20, uint64(n)))
	var at []int
	for len(at) < n/500 {
		if p := 100 + rng.IntN(n-200); !slices.ContainsFunc(at, func(q int) bool { return abs(q-p) < 100 }) {
			at = append(at, p)
		}
	}
	slices.Sort(at)
	values := make([]float64, n)
	l, k := 20.0, 0
	for i := range values {
		if k < len(at) && at[k] == i {
			l *= 1 + hoSize(rng, 0.10, 0.30)
			k++
		}
		values[i] = l * (1 + 0.025*rng.NormFloat64())
	}
	return values
}

// cpuTime is the process's CPU time so far: on a busy machine, a
// benchmark's CPU time per op (cpu-ns/op) says more than its wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkDetectSteps finds the change points of 2,500 to 20,000 runs
// with a step every 500 runs (stepsEvery); runs=10000 is a series of
// 10,000 runs with 20 steps. Time per run stays about the same from one
// length to the next.
func BenchmarkDetectSteps(b *testing.B) {
	for _, n := range []int{2500, 5000, 10000, 20000} {
		b.Run(fmt.Sprintf("runs=%d", n), func(b *testing.B) {
			values := stepsEvery(n)
			cpu := cpuTime()
			for b.Loop() {
				if cps := Detect(values, Options{}, 0); len(cps) < n/500 {
					b.Fatalf("found %d change points, want %d or more", len(cps), n/500)
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

package changepoint

import (
	"math/rand/v2"
	"slices"
	"testing"
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

// BenchmarkDetect10000Steps20 finds the change points of 10,000 runs with
// 20 steps of 10–30 % at random runs at least 100 apart, each run one
// value with 2.5 % noise.
func BenchmarkDetect10000Steps20(b *testing.B) {
	rng := rand.New(rand.NewPCG(20, 10000))
	var at []int
	for len(at) < 20 {
		if p := 100 + rng.IntN(9800); !slices.ContainsFunc(at, func(q int) bool { return abs(q-p) < 100 }) {
			at = append(at, p)
		}
	}
	slices.Sort(at)
	values := make([]float64, 10000)
	l, k := 20.0, 0
	for i := range values {
		if k < len(at) && at[k] == i {
			l *= 1 + hoSize(rng, 0.10, 0.30)
			k++
		}
		values[i] = l * (1 + 0.025*rng.NormFloat64())
	}
	b.ResetTimer()
	for b.Loop() {
		if cps := Detect(values, Options{}, 0); len(cps) < 20 {
			b.Fatalf("found %d change points, want 20 or more", len(cps))
		}
	}
}

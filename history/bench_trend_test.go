package history

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfgate/perfgate/metrics"
)

// steps20 is one series of 10,000 runs with 20 steps of 10–30 % up or
// down at seeded runs at least 100 apart, each run one value with 2.5 %
// noise, and the runs where its levels start.
func steps20() (values []float64, at []int) {
	rng := rand.New(rand.NewPCG(20, 10000))
	for len(at) < 20 {
		if p := 100 + rng.IntN(9800); !slices.ContainsFunc(at, func(q int) bool { return p-q < 100 && q-p < 100 }) {
			at = append(at, p)
		}
	}
	slices.Sort(at)
	values = make([]float64, 10000)
	l, k := 20.0, 0
	for i := range values {
		if k < len(at) && at[k] == i {
			s := 0.10 + 0.20*rng.Float64()
			if rng.IntN(2) == 0 {
				s = -s / (1 + s)
			}
			l *= 1 + s
			k++
		}
		values[i] = l * (1 + 0.025*rng.NormFloat64())
	}
	return values, at
}

// BenchmarkTrendSteps20 is perfgate history trend over one series of
// 10,000 runs with 20 steps (steps20) in an SQLite history: reading the
// series and finding its change points. When python3 is on PATH it also
// runs testdata/trend_reference.py, a naive least-squares binary
// segmentation in plain Python, on the same values, and reports how many
// of the reference's changes perfgate found too at ±1 run (same-changes of
// reference-changes), the reference's time (python-ns/op) and how many
// times perfgate's that is (python/perfgate).
func BenchmarkTrendSteps20(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "h.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	values, at := steps20()
	runs := make([]Run, len(values))
	for i, v := range values {
		runs[i] = Run{ID: fmt.Sprint(i), Test: "TestFeed", Commit: commitOf(i), Time: t0.Add(time.Duration(i) * time.Minute), Device: "Pixel 7",
			Values: []Value{{Step: "scroll", Metric: "frame_time_p95", Value: v, Iterations: 1, Unit: "ms", Better: metrics.Lower}}}
	}
	for from := 0; from < len(runs); from += 1000 {
		if _, err := s.AddRuns(ctx, runs[from:from+1000]); err != nil {
			b.Fatal(err)
		}
	}
	var found []int
	start, cpu := time.Now(), cpuTime()
	for b.Loop() {
		tr, err := s.Trends(ctx, Filter{Test: "TestFeed"}, TrendOptions{})
		if err != nil || len(tr) != 1 || tr[0].Len() != len(values) {
			b.Fatal(len(tr), err)
		}
		found = found[:0]
		for _, c := range tr[0].Changes {
			found = append(found, c.Index)
		}
	}
	perOp := time.Since(start).Seconds() / float64(b.N)
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
	if missed := unmatched(at, found); len(missed) > 0 {
		b.Fatalf("steps at %v not found (found %v)", missed, found)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		return
	}
	ref, err := reference(b, values)
	if err != nil {
		b.Fatal(err)
	}
	var refAt []int
	for _, c := range ref.Changes {
		refAt = append(refAt, c.Index)
	}
	if missed := unmatched(at, refAt); len(missed) > 2 {
		b.Fatalf("the reference missed the steps at %v: it is broken", missed)
	}
	b.ReportMetric(float64(len(refAt)-len(unmatched(refAt, found))), "same-changes")
	b.ReportMetric(float64(len(refAt)), "reference-changes")
	b.ReportMetric(ref.Seconds*1e9, "python-ns/op")
	b.ReportMetric(ref.Seconds/perOp, "python/perfgate")
}

// cpuTime is the process's CPU time so far: on a busy machine, a
// benchmark's CPU time per op (cpu-ns/op) says more than its wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// unmatched returns the runs of want with no run of got within ±1.
func unmatched(want, got []int) []int {
	var out []int
	for _, w := range want {
		if !slices.ContainsFunc(got, func(g int) bool { return g-w <= 1 && w-g <= 1 }) {
			out = append(out, w)
		}
	}
	return out
}

type referenceOut struct {
	Changes []struct {
		Index              int
		Before, After, Pct float64
	}
	Seconds float64
}

// reference runs testdata/trend_reference.py on values.
func reference(b *testing.B, values []float64) (referenceOut, error) {
	var in strings.Builder
	for _, v := range values {
		fmt.Fprintln(&in, v)
	}
	path := filepath.Join(b.TempDir(), "values.txt")
	if err := os.WriteFile(path, []byte(in.String()), 0o644); err != nil {
		return referenceOut{}, err
	}
	cmd := exec.Command("python3", filepath.Join("testdata", "trend_reference.py"), path)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return referenceOut{}, fmt.Errorf("testdata/trend_reference.py: %w", err)
	}
	var r referenceOut
	if err := json.Unmarshal(out, &r); err != nil {
		return r, fmt.Errorf("testdata/trend_reference.py printed %.100q: %w", out, err)
	}
	return r, nil
}

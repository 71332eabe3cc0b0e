package history

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	resultpkg "github.com/perfgate/perfgate/result"
)

// BenchmarkAdd adds one session's Result (three steps of three iterations
// each, about 80 values) to an SQLite history.
func BenchmarkAdd(b *testing.B) {
	s, err := Open(context.Background(), filepath.Join(b.TempDir(), "h.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var steps []*resultpkg.Step
	for _, name := range []string{"launch", "scroll", "fling"} {
		for it := range 3 {
			n := name
			if it > 0 {
				n = fmt.Sprintf("%s#%d", name, it+1)
			}
			steps = append(steps, scrollStep(n, 18, 7))
		}
	}
	r := result("TestFeed", "Pixel 7", t0, steps...)
	i := 0
	for b.Loop() {
		r.Start = t0.Add(time.Duration(i) * time.Second)
		i++
		if added, err := s.Add(context.Background(), RunOf(r, Meta{Commit: commitOf(i)})); err != nil || !added {
			b.Fatal(added, err)
		}
	}
}

// BenchmarkTrend10000 reads one metric's series of 10,000 runs from an
// SQLite history and finds its change points.
func BenchmarkTrend10000(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "h.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 10000 {
		level := 18.0
		switch {
		case i >= 7000:
			level = 23
		case i >= 4000:
			level = 20
		}
		run := Run{ID: fmt.Sprint(i), Test: "TestFeed", Commit: commitOf(i), Time: t0.Add(time.Duration(i) * time.Minute), Device: "Pixel 7",
			Values: []Value{{Step: "scroll", Metric: "frame_time_p95", Value: level * (1 + 0.03*rng.NormFloat64()), Iterations: 5, Unit: "ms", Better: 1}}}
		if _, err := s.Add(ctx, run); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		series, err := s.Series(ctx, Filter{Test: "TestFeed", Step: "scroll", Metric: "frame_time_p95", Device: "Pixel 7"})
		if err != nil || len(series) != 1 || len(series[0].Points) != 10000 {
			b.Fatal(err)
		}
		if tr := Analyze(series[0], TrendOptions{}); len(tr.Changes) < 2 {
			b.Fatalf("%d change points, want 2 or more", len(tr.Changes))
		}
	}
}

package frametiming_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/perfgate/perfgate/trace"
	"github.com/perfgate/perfgate/trace/frametiming"
)

// BenchmarkCompute reads a trace of 100,000 frames (about 14 minutes at
// 120 Hz) with the Collector on every atrace marker, then pairs them into
// Macrobenchmark's frames: the time and the bytes allocated per frame.
// collector=off reads it without, which is what the Collector adds to.
func BenchmarkCompute(b *testing.B) {
	const n = 100_000
	data := writeTrace(b, randomFrames(rand.New(rand.NewPCG(1, 2)), n), false)
	for _, on := range []bool{false, true} {
		name := "collector=off"
		if on {
			name = "collector=on"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				c := &frametiming.Collector{}
				opts := trace.Options{Package: pkg}
				if on {
					opts.Marker = c.Marker
				}
				a, err := trace.Analyze(bytes.NewReader(data), opts)
				if err != nil {
					b.Fatal(err)
				}
				if !on {
					continue
				}
				if tm := frametiming.Compute(a, c); tm == nil || len(tm.Frames) < n/2 {
					b.Fatalf("timing %+v", tm)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/frame")
		})
	}
}

package frametiming_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/perfgate/perfgate/trace"
	"github.com/perfgate/perfgate/trace/frametiming"
	"github.com/perfgate/perfgate/trace/sections"
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

// BenchmarkSession reads the trace of BenchmarkCompute as a session that
// asks for both Macrobenchmark's frame timing and trace sections does:
// one pass over the trace with the markers collected once, then the frames
// and the sections of the app paired from them.
func BenchmarkSession(b *testing.B) {
	const n = 100_000
	data := writeTrace(b, randomFrames(rand.New(rand.NewPCG(1, 2)), n), false)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		c := &frametiming.Collector{}
		a, err := trace.Analyze(bytes.NewReader(data), trace.Options{Package: pkg, Marker: c.Marker})
		if err != nil {
			b.Fatal(err)
		}
		tm := frametiming.Compute(a, c)
		ss, _ := sections.Slices(c, a.AppPIDs, func(ns int64) (int64, bool) { v, err := a.Convert(ns, trace.Boottime); return v, err == nil })
		if len(tm.Frames) < n/2 || len(ss) < n {
			b.Fatalf("%d frames, %d sections", len(tm.Frames), len(ss))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/frame")
}

// Package memwatch measures a process's peak heap for benchmarks and
// memory-bound tests: the figure `go test -bench` reports as peak-heap-MB.
package memwatch

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// Heap samples the heap in use (its objects and the free space of their
// spans, runtime.MemStats.HeapInuse) every interval until the function it
// returns is called, which gives the peak in bytes. An interval ≤ 0 is
// one millisecond. Sampling can miss a short peak, never invent one.
func Heap(interval time.Duration) (stop func() uint64) {
	return peak(interval, "/memory/classes/heap/objects:bytes", "/memory/classes/heap/unused:bytes")
}

// Objects is Heap counting only the heap's live and unswept objects, the
// figure that does not depend on how the runtime spreads them over spans.
func Objects(interval time.Duration) (stop func() uint64) {
	return peak(interval, "/memory/classes/heap/objects:bytes")
}

// peak samples the sum of the runtime metrics named.
func peak(interval time.Duration, names ...string) func() uint64 {
	if interval <= 0 {
		interval = time.Millisecond
	}
	samples := make([]metrics.Sample, len(names))
	for i, n := range names {
		samples[i].Name = n
	}
	var most uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			metrics.Read(samples)
			var sum uint64
			for _, s := range samples {
				sum += s.Value.Uint64()
			}
			most = max(most, sum)
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() uint64 {
		close(done)
		wg.Wait()
		return most
	}
}

// MB is bytes in MiB, as benchmarks report them.
func MB(bytes uint64) float64 { return float64(bytes) / (1 << 20) }

// Allocated is what fn allocates, in bytes (runtime.MemStats.TotalAlloc;
// the rest of the process counts too, so call it where nothing else runs).
func Allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

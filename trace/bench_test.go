package trace_test

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/memwatch"
	"github.com/perfgate/perfgate/trace"
	"github.com/perfgate/perfgate/trace/tracewriter"
)

// bigTrace is a simulated phone's trace of about size bytes: 8 CPUs busy
// with noise threads, half of them in the compact sched encoding, the app
// drawing at 60 Hz with atrace, binder, I/O and preemption.
func bigTrace(tb testing.TB, size int64) string {
	tb.Helper()
	return writeTrace(tb, filepath.Join(tb.TempDir(), "big.perfetto-trace"), func(w *tracewriter.Writer) {
		generate(w, genOpts{targetBytes: size, cpus: 8, noiseGap: 12_000, seed: 11})
	})
}

// writeTrace writes the trace gen makes to a file at path.
func writeTrace(tb testing.TB, path string, gen func(*tracewriter.Writer)) string {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	w := tracewriter.New(bw)
	gen(w)
	if err := w.Err(); err != nil {
		tb.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// BenchmarkAnalyze reads a generated 100 MB trace from a file: MB/s, and
// the heap's peak while reading (peak-heap-MB) and what the Analysis keeps
// (kept-MB). With a package, only its main thread's events are kept; with
// none, those of every thread that may be a main thread.
func BenchmarkAnalyze(b *testing.B) {
	path := bigTrace(b, 100<<20)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	for _, pkg := range []string{genPkg, ""} {
		name := pkg
		if name == "" {
			name = "all"
		}
		b.Run("size=100MB/package="+name, func(b *testing.B) {
			b.SetBytes(st.Size())
			var peak, kept uint64
			for range b.N {
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				stop := memwatch.Objects(200 * time.Microsecond)
				a, err := trace.Analyze(f, trace.Options{Package: pkg})
				peak = max(peak, stop())
				f.Close()
				if err != nil || len(a.Janky) == 0 {
					b.Fatalf("err %v, %d janky frames", err, len(a.Janky))
				}
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				kept = ms.HeapAlloc
				runtime.KeepAlive(a)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(kept)/(1<<20), "kept-MB")
		})
	}
}

// heap is held shared by every parallel test of the package, and alone by
// TestAnalyzeStreams while it measures the heap, which is the whole
// process's.
var heap sync.RWMutex

// parallel runs t in parallel with the package's other parallel tests, and
// keeps TestAnalyzeStreams from measuring the heap until it has ended. Such
// a test has no parallel subtests: they could wait for a slot that a test
// blocked on the lock holds.
func parallel(t *testing.T) {
	t.Parallel()
	heap.RLock()
	t.Cleanup(heap.RUnlock)
}

// TestAnalyzeStreams: a 24 MB trace, read through a plain io.Reader (no
// seeking, no size), never has more than a fraction of it on the heap. The
// trace is generated beside the other tests; the reading waits until they
// have ended, since the heap is the whole process's.
func TestAnalyzeStreams(t *testing.T) {
	t.Parallel()
	const size = 24 << 20
	path := bigTrace(t, size)
	heap.Lock()
	defer heap.Unlock()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	runtime.GC()
	stop := memwatch.Objects(200 * time.Microsecond)
	a, err := trace.Analyze(struct{ io.Reader }{f}, trace.Options{Package: genPkg})
	peak := stop()
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Janky) == 0 || a.Janky[0].MainThread == nil {
		t.Fatalf("no janky frames with states read: %d", len(a.Janky))
	}
	if peak > size/3 {
		t.Errorf("heap peaked at %d MB reading a %d MB trace", peak>>20, size>>20)
	}
	t.Logf("heap peak %.1f MB over a %d MB trace", float64(peak)/(1<<20), size>>20)
}

package main

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/capturegen"
	"github.com/perfgate/perfgate/internal/memwatch"
	"github.com/perfgate/perfgate/internal/refbench"
)

// hourFile writes an hour at 120 Hz (capturegen.Hour) of kind to a file.
func hourFile(b *testing.B, kind string) string {
	b.Helper()
	if kind == "gfxinfo" {
		return writeFile(b, kind+".txt", capturegen.Hour.GfxInfo)
	}
	return writeFile(b, kind+".txt", capturegen.Hour.SurfaceFlinger)
}

// writeFile writes a file of the benchmark's temporary folder with write.
func writeFile(b *testing.B, name string, write func(io.Writer) error) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), name)
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkAnalyzeFramesHour is `perfgate analyze frames` on an hour at
// 120 Hz (432,000 frames): MB/s over the file, and peak-rss-MB, the
// process's peak resident memory while it ran (the benchmark's own
// included).
func BenchmarkAnalyzeFramesHour(b *testing.B) {
	for _, kind := range []string{"gfxinfo", "surfaceflinger"} {
		b.Run("source="+kind, func(b *testing.B) {
			path := hourFile(b, kind)
			st, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(st.Size())
			b.ReportAllocs()
			peak := refbench.PeakRSS()
			b.ResetTimer()
			for range b.N {
				if err := run([]string{"analyze", "frames", path}, io.Discard, io.Discard); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if peak != nil {
				b.ReportMetric(peak(), "peak-rss-MB")
			}
		})
	}
}

// measureMemory runs the benchmark's loop and reports, beside B/op, the
// process's peak resident memory (peak-rss-MB, the benchmark's own
// included) and the peak of the heap in use (peak-heap-MB).
func measureMemory(b *testing.B, loop func()) {
	b.ReportAllocs()
	runtime.GC()
	rss := refbench.PeakRSS()
	heap := memwatch.Heap(0)
	b.ResetTimer()
	loop()
	b.StopTimer()
	b.ReportMetric(memwatch.MB(heap()), "peak-heap-MB")
	if rss != nil {
		b.ReportMetric(rss(), "peak-rss-MB")
	}
}

// BenchmarkAnalyzeLongLine is every analyze subcommand on a capture of one
// 1 GiB line (a file with a hole past its first 2 MiB of digits), which
// it refuses once the line passes devtext.MaxLine.
func BenchmarkAnalyzeLongLine(b *testing.B) {
	big := longLineFile(b, 1<<30)
	small := smallCPU(b)
	for _, name := range []string{"frames", "frames gfxinfo", "frames surfaceflinger", "meminfo", "cpu"} {
		args := analyzeCommands(small)[name](big)
		b.Run("cmd="+strings.ReplaceAll(name, " ", "-"), func(b *testing.B) {
			measureMemory(b, func() {
				for range b.N {
					if err := run(args, io.Discard, io.Discard); err == nil {
						b.Fatal("a 1 GiB line was accepted")
					}
				}
			})
		})
	}
}

// BenchmarkAnalyzeFramesGiB is `perfgate analyze frames` on a GiB of
// ordinary rows (capturegen's, at 120 Hz: some 4 million gfxinfo frames,
// 22 million SurfaceFlinger ones), written to a file for the
// sub-benchmark and removed after it.
func BenchmarkAnalyzeFramesGiB(b *testing.B) {
	for _, bc := range []struct {
		kind     string
		rowBytes int
	}{{"gfxinfo", 270}, {"surfaceflinger", 48}} {
		b.Run("source="+bc.kind, func(b *testing.B) {
			c := capturegen.Capture{Frames: (1 << 30) / bc.rowBytes, Hz: 120, JankEvery: 97, FlaggedEvery: 200}
			write := c.SurfaceFlinger
			if bc.kind == "gfxinfo" {
				write = c.GfxInfo
			}
			path := writeFile(b, bc.kind+".txt", write)
			st, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(st.Size())
			measureMemory(b, func() {
				for range b.N {
					if err := run([]string{"analyze", "frames", path}, io.Discard, io.Discard); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

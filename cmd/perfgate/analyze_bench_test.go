package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/perfgate/perfgate/internal/capturegen"
)

// hourFile writes an hour at 120 Hz (capturegen.Hour) of kind to a file.
func hourFile(b *testing.B, kind string) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), kind+".txt")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if kind == "gfxinfo" {
		err = capturegen.Hour.GfxInfo(f)
	} else {
		err = capturegen.Hour.SurfaceFlinger(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		b.Fatal(err)
	}
	return path
}

// peakRSS resets the process's peak resident set (Linux: clear_refs 5)
// and returns a function reading it back in MB, or nil where it cannot.
func peakRSS() func() float64 {
	if os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) != nil {
		return nil
	}
	return func() float64 {
		b, err := os.ReadFile("/proc/self/status")
		if err != nil {
			return 0
		}
		for _, ln := range bytes.Split(b, []byte("\n")) {
			if v, ok := bytes.CutPrefix(ln, []byte("VmHWM:")); ok {
				kb, _ := strconv.ParseFloat(string(bytes.TrimSuffix(bytes.TrimSpace(v), []byte(" kB"))), 64)
				return kb / 1024
			}
		}
		return 0
	}
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
			peak := peakRSS()
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

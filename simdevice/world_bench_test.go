package simdevice

import (
	"io"
	"strconv"
	"testing"
	"time"
)

// BenchmarkAdvanceSecond simulates one second of a 120 Hz janky scroll:
// the cost the ticker and every command pay to catch up.
func BenchmarkAdvanceSecond(b *testing.B) {
	w, clk := newTestWorld(b, Config{API: 34, RefreshHz: 120, Workload: mustPreset(b, "janky-scroll")})
	wlaunch(b, w)
	clk.advance(time.Second)
	b.ReportAllocs()
	for b.Loop() {
		clk.advance(time.Second)
		w.Uptime()
	}
}

// BenchmarkGfxinfoFramestats is one `dumpsys gfxinfo <pkg> framestats`
// with a full 120-frame ring, the most expensive frame poll.
func BenchmarkGfxinfoFramestats(b *testing.B) {
	w, clk := newTestWorld(b, Config{API: 34, RefreshHz: 120})
	wlaunch(b, w)
	clk.advance(3 * time.Second)
	b.ReportAllocs()
	for b.Loop() {
		w.Dumpsys([]string{"gfxinfo", PresetPackage, "framestats"}, io.Discard, io.Discard)
	}
}

// BenchmarkSurfaceFlingerLatency is one `dumpsys SurfaceFlinger --latency`
// of the app layer with a full 127-frame ring.
func BenchmarkSurfaceFlingerLatency(b *testing.B) {
	w, clk := newTestWorld(b, Config{API: 34, RefreshHz: 120})
	wlaunch(b, w)
	clk.advance(3 * time.Second)
	layer := w.appLayer()
	b.ReportAllocs()
	for b.Loop() {
		w.Dumpsys([]string{"SurfaceFlinger", "--latency", layer}, io.Discard, io.Discard)
	}
}

// BenchmarkProcStat reads /proc/stat and the app's /proc/<pid>/stat, the
// CPU sample of every tick.
func BenchmarkProcStat(b *testing.B) {
	w, clk := newTestWorld(b, Config{API: 33})
	wlaunch(b, w)
	clk.advance(time.Second)
	pidStat := "/proc/" + strconv.Itoa(w.Truth().Pids[0]) + "/stat"
	b.ReportAllocs()
	for b.Loop() {
		w.ReadFile("/proc/stat")
		w.ReadFile(pidStat)
	}
}

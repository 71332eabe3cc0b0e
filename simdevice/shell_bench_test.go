package simdevice

import (
	"context"
	"io"
	"strings"
	"testing"
)

// launched returns a device whose app is running, and the app's pid.
func launched(b *testing.B) (*Device, string) {
	b.Helper()
	d := newTestDevice(b, Config{})
	pkg := d.World().Package()
	run(b, d, "monkey -p "+pkg+" 1", "")
	out, _, _ := run(b, d, "pidof "+pkg, "")
	pid := strings.TrimSpace(out)
	if pid == "" {
		b.Fatal("app did not start")
	}
	return d, pid
}

func benchShell(b *testing.B, d *Device, cmd string) {
	b.Helper()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if st := d.Shell(ctx, cmd, nil, io.Discard, io.Discard); st != 0 {
			b.Fatalf("Shell(%q) = %d", cmd, st)
		}
	}
}

// The fixed cost of one adb shell command line.
func BenchmarkShellEcho(b *testing.B) {
	benchShell(b, newTestDevice(b, Config{}), "echo hi")
}

// One perftest sampling tick: every cheap metric in one round trip.
func BenchmarkShellTick(b *testing.B) {
	d, pid := launched(b)
	pkg := d.World().Package()
	benchShell(b, d, "cat /proc/stat; cat /proc/"+pid+"/stat; cat /proc/"+pid+"/status; dumpsys gfxinfo "+pkg+" framestats")
}

// Per-thread CPU through a glob over /proc/<pid>/task.
func BenchmarkShellTaskGlob(b *testing.B) {
	d, pid := launched(b)
	benchShell(b, d, "cat /proc/"+pid+"/task/*/stat")
}

func BenchmarkShellPipeline(b *testing.B) {
	benchShell(b, newTestDevice(b, Config{}), "seq 100 | grep -c 1 | wc -l")
}

// Many adb streams at once.
func BenchmarkShellParallel(b *testing.B) {
	d := newTestDevice(b, Config{})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			d.Shell(context.Background(), "cat /proc/stat | head -n 1", nil, io.Discard, io.Discard)
		}
	})
}

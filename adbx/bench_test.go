package adbx_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/simdevice"
)

// tickCmds are six cheap reads, what one sampling tick asks a device for.
var tickCmds = []string{
	"cat /proc/stat",
	"cat /proc/meminfo",
	"cat /proc/loadavg",
	"cat /proc/uptime",
	"cat /proc/self/stat",
	"echo tick",
}

// benchDevices are the devices the benchmarks run against.
var benchDevices = []struct {
	name string
	new  func(tb testing.TB) adbtest.Device
}{
	{"sim", func(tb testing.TB) adbtest.Device { return newSim(tb, simdevice.Config{}) }},
	{"hostsh", func(tb testing.TB) adbtest.Device { return newHostShell(tb, "host-sh", true) }},
}

// BenchmarkShell is one command's round trip through adbx.
func BenchmarkShell(b *testing.B) {
	for _, dev := range benchDevices {
		for _, ep := range endpoints {
			b.Run("device="+dev.name+"/endpoint="+ep.name, func(b *testing.B) {
				d, _ := ep.open(b, dev.new(b))
				ctx := context.Background()
				for b.Loop() {
					if _, err := d.Shell(ctx, "echo tick"); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkTick compares the ways to run a six-command sampling tick: one
// adbx Batch, six adbx Shell calls, and six `adb shell` processes (what
// tools that exec adb do), the last only through the stock adb server.
func BenchmarkTick(b *testing.B) {
	for _, dev := range benchDevices {
		for _, ep := range endpoints {
			b.Run("device="+dev.name+"/endpoint="+ep.name+"/way=batch", func(b *testing.B) {
				d, _ := ep.open(b, dev.new(b))
				ctx := context.Background()
				for b.Loop() {
					rs, err := d.Batch(ctx, tickCmds)
					if err != nil || len(rs) != len(tickCmds) {
						b.Fatal(err)
					}
				}
			})
			b.Run("device="+dev.name+"/endpoint="+ep.name+"/way=shell", func(b *testing.B) {
				d, _ := ep.open(b, dev.new(b))
				ctx := context.Background()
				for b.Loop() {
					for _, c := range tickCmds {
						if _, err := d.Shell(ctx, c); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		}
		b.Run("device="+dev.name+"/endpoint=adb/way=exec", func(b *testing.B) {
			a := adbtest.StartADB(b)
			d, _ := a.Serve(b, dev.new(b))
			serial := d.Serial()
			for b.Loop() {
				for _, c := range tickCmds {
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					cmd := a.Command(ctx, "-s", serial, "shell", c)
					if out, err := cmd.CombinedOutput(); err != nil {
						b.Fatalf("adb -P %s -s %s shell %q: %v\n%s", strconv.Itoa(a.Port), serial, c, err, out)
					}
					cancel()
				}
			}
		})
	}
}

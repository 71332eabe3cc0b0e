package adbx_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/internal/memwatch"
	"github.com/perfgate/perfgate/internal/refbench"
	"github.com/perfgate/perfgate/simdevice"
)

// hugeDevices print 4 GiB on one command: the simulated phone through its
// HugeOutputs quirk (`dumpsys meminfo`, as a phone did), and the host's
// shell with and without shell v2 (a real command streaming 4 GiB).
var hugeDevices = []struct {
	name string
	cmd  string
	new  func(t testing.TB) adbtest.Device
}{
	{"sim", "dumpsys meminfo " + simdevice.PresetPackage, func(t testing.TB) adbtest.Device {
		return newSim(t, simdevice.Config{Quirks: simdevice.Quirks{HugeOutputs: []simdevice.HugeOutput{{Command: "dumpsys meminfo", Bytes: 4 << 30}}}})
	}},
	{"hostsh", "head -c 4294967296 /dev/zero", func(t testing.TB) adbtest.Device { return newHostShell(t, "host-sh", true) }},
	{"hostsh-v1", "head -c 4294967296 /dev/zero", func(t testing.TB) adbtest.Device { return newHostShell(t, "host-sh", false) }},
}

// TestShellOutputBounded: a command printing 4 GiB is stopped once it
// passes the device's MaxOutput, with an error naming it and the bound; a
// batch keeps the Results of the commands before it; the call's memory is
// the bound's, not the output's; and the device answers the next call.
// (Not parallel: it reads the process's allocation count.)
func TestShellOutputBounded(t *testing.T) {
	const limit = 4 << 20
	for _, ep := range endpoints {
		for _, dv := range hugeDevices {
			t.Run(ep.name+"/"+dv.name, func(t *testing.T) {
				served, _ := ep.open(t, dv.new(t))
				d, err := adbx.Open(ctxT(t, 10*time.Second), adbx.Options{Server: served.Server(), Dial: served.Dial, Serial: served.Serial(), MaxOutput: limit})
				if err != nil {
					t.Fatal(err)
				}
				check := func(what string, err error) {
					t.Helper()
					var oe *adbx.OutputError
					if !errors.Is(err, adbx.ErrOutputTooLarge) || !errors.As(err, &oe) || oe.Cmd != dv.cmd || oe.Limit != limit {
						t.Fatalf("%s: err %v, want an *OutputError for %q over %d bytes", what, err, dv.cmd, limit)
					}
					if msg := err.Error(); len(msg) > 400 || !strings.Contains(msg, "4194304 bytes") || !strings.Contains(msg, dv.cmd) {
						t.Errorf("%s: %d-byte error: %s", what, len(msg), msg)
					}
				}
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				_, err = d.Shell(ctxT(t, time.Minute), dv.cmd)
				runtime.ReadMemStats(&after)
				check("Shell", err)
				// The client and the server in this process together: far
				// below the 4 GiB printed.
				if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
					t.Errorf("Shell allocated %d MB for a %d MB bound", alloc>>20, limit>>20)
				}

				rs, err := d.Batch(ctxT(t, time.Minute), []string{"echo before", dv.cmd, "echo after"})
				check("Batch", err)
				if len(rs) != 1 || string(rs[0].Stdout) != "before\n" {
					t.Errorf("Batch kept %d Results %+v, want the first", len(rs), rs)
				}

				r, err := d.Shell(ctxT(t, 10*time.Second), "echo still here")
				if err != nil || string(r.Stdout) != "still here\n" {
					t.Errorf("next call: %q, %v", r.Stdout, err)
				}
			})
		}
	}
}

// TestShellOutputDefault: without Options.MaxOutput the bound is
// DefaultMaxOutput, and output up to it comes back whole.
func TestShellOutputDefault(t *testing.T) {
	t.Parallel()
	served, _ := endpoints[0].open(t, newHostShell(t, "host-sh", true))
	d, err := adbx.Open(ctxT(t, 10*time.Second), adbx.Options{Server: served.Server(), Serial: served.Serial()})
	if err != nil {
		t.Fatal(err)
	}
	r, err := d.Shell(ctxT(t, time.Minute), "head -c 1048576 /dev/zero; head -c 1000 /dev/zero >&2")
	if err != nil || len(r.Stdout) != 1<<20 || len(r.Stderr) != 1000 {
		t.Fatalf("1 MiB: %d + %d bytes, %v", len(r.Stdout), len(r.Stderr), err)
	}
	// stdout and stderr share the bound.
	small, err := adbx.Open(ctxT(t, 10*time.Second), adbx.Options{Server: served.Server(), Serial: served.Serial(), MaxOutput: 1500})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := small.Shell(ctxT(t, 10*time.Second), "head -c 1000 /dev/zero; head -c 1000 /dev/zero >&2"); !errors.Is(err, adbx.ErrOutputTooLarge) {
		t.Errorf("1000 + 1000 bytes under a bound of 1500: %v", err)
	}
	if r, err := small.Shell(ctxT(t, 10*time.Second), "head -c 1500 /dev/zero"); err != nil || len(r.Stdout) != 1500 {
		t.Errorf("exactly the bound: %d bytes, %v", len(r.Stdout), err)
	}
}

// BenchmarkShellHugeOutput is a Shell call to a phone printing 4 GiB on
// `dumpsys meminfo` (simdevice's HugeOutputs), at the default bound: the
// call reads DefaultMaxOutput and fails. It reports the peak of the heap
// in use (peak-heap-MB, sampled every millisecond; the simulated phone's
// and the server's share included) and of the process's resident memory
// (peak-rss-MB, Linux).
func BenchmarkShellHugeOutput(b *testing.B) {
	dev := hugeDevices[0]
	d, _ := endpoints[0].open(b, dev.new(b))
	ctx := context.Background()
	runtime.GC()
	rss := refbench.PeakRSS()
	heap := memwatch.Heap(0)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := d.Shell(ctx, dev.cmd); !errors.Is(err, adbx.ErrOutputTooLarge) {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(memwatch.MB(heap()), "peak-heap-MB")
	if rss != nil {
		b.ReportMetric(rss(), "peak-rss-MB")
	}
}

package stepstats

import (
	"math"
	"testing"

	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/result"
)

// Without /proc/stat an app's CPU is set against wall time × cores: the
// device's between the /proc/uptime reads of two ticks, not the host's
// between their round trips, which a busy host can stretch or shrink.
// Host stamps 1 s apart hold 1.5 s of the device's time, in which the app
// ran 60 ticks of a 4-core phone's 100 Hz clock: 10 %, not 15 %.
func TestAppCPUOnTheDeviceClock(t *testing.T) {
	const s = int64(1e9)
	for _, tc := range []struct {
		name     string
		up0, up1 int64
		pct      float64
		source   string
	}{
		{"uptime", 100 * s, 101*s + s/2, 10, "/proc/<pid>/stat over wall time on the device's /proc/uptime (/proc/stat unreadable)"},
		{"no uptime", 0, 0, 15, "/proc/<pid>/stat over wall time, on the host's clock where a tick had no /proc/uptime (/proc/stat unreadable)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &result.Result{}
			r.Device.Cores, r.Device.ClockTicks = 4, 100
			proc := func(ticks uint64) []procfs.PidStat {
				return []procfs.PidStat{{PID: 4242, Comm: "com.x.y", UTime: ticks, STime: 10, StartTime: 500}}
			}
			r.Samples = []result.Sample{
				{HostNs: 1 * s, UptimeNs: tc.up0, PIDs: []int{4242}, Procs: proc(100)},
				{HostNs: 2 * s, UptimeNs: tc.up1, PIDs: []int{4242}, Procs: proc(160)},
			}
			st := &result.Step{Name: "scroll", HostStartNs: 1*s + s/10, HostEndNs: 2*s - s/10}
			got := CPU(r, st, false)
			if got.Intervals != 1 || math.Abs(got.Mean-tc.pct) > 1e-9 || got.Source != tc.source {
				t.Errorf("cpu %+v, want %.0f %% from %q", got, tc.pct, tc.source)
			}
			// 60 of the app's ticks are tc.pct %: one is a 60th of it.
			if want := tc.pct / 60; math.Abs(got.ResolutionPct-want) > 1e-9 {
				t.Errorf("resolution %g %%, want one tick of the app, %g %%", got.ResolutionPct, want)
			}
		})
	}
}

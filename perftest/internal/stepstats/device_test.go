package stepstats

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/result"
)

// A counter reset between the edges leaves the step's bytes unknown even
// though the edge reads agree; without one, the count and its rate come
// from the edges, on the device's clock where both reads have it.
func TestTraffic(t *testing.T) {
	const s = int64(time.Second)
	ts := []result.TrafficSample{
		{HostNs: 1 * s, UptimeNs: 100 * s, RxBytes: 1000, TxBytes: 500},
		{HostNs: 2 * s, UptimeNs: 101 * s, RxBytes: 10, TxBytes: 5},
		{HostNs: 3 * s, UptimeNs: 102 * s, RxBytes: 5000, TxBytes: 2500},
	}
	if out, back := Traffic(ts, 0, 2); out != nil || back == nil || back.From.HostNs != 1*s || back.To.HostNs != 2*s ||
		!strings.Contains(back.Why("dumpsys netstats"), "traffic: dumpsys netstats: ") || !strings.Contains(back.Why(""), "(rx 1000 → 10, tx 500 → 5 bytes)") {
		t.Errorf("reset: %+v, %+v", out, back)
	}
	ts[1].RxBytes, ts[1].TxBytes = 3000, 1500
	out, back := Traffic(ts, 0, 2)
	if back != nil || out.RxBytes != 4000 || out.TxBytes != 2000 || out.Intervals != 2 || out.Clock != "/proc/uptime" || out.RxBytesPerS != 2000 {
		t.Errorf("traffic %+v, %v", out, back)
	}
}

// A tick is late past half the interval; spacing runs from the tick before
// the window's first.
func TestTicks(t *testing.T) {
	const ms = int64(time.Millisecond)
	samples := []result.Sample{
		{HostNs: 100 * ms, RTTNs: 10 * ms},
		{HostNs: 200 * ms, RTTNs: 20 * ms},
		{HostNs: 360 * ms, RTTNs: 10 * ms, LateNs: 60 * ms},
	}
	ts := Ticks(samples, 100*time.Millisecond, 150*ms, 400*ms)
	if ts.Ticks != 2 || ts.Late != 1 || ts.MaxLateMs != 60 || ts.MaxRTTMs != 20 || ts.MaxSpacingMs != 165 {
		t.Errorf("ticks %+v", ts)
	}
}

// A battery without POWER_SUPPLY_TEMP has its other figures and says why
// it has no temperature.
func TestBatteryWithoutTemperature(t *testing.T) {
	samples := []result.Sample{
		{HostNs: 0, Battery: &result.BatteryReading{LevelPct: 80, NoTemperature: true, CurrentMA: 100}},
		{HostNs: 10, Battery: &result.BatteryReading{LevelPct: 79, NoTemperature: true, CurrentMA: 300}},
	}
	out, why := Battery(samples, &result.Step{HostStartNs: 0, HostEndNs: 10})
	if out == nil || out.StartLevelPct != 80 || out.EndLevelPct != 79 || out.MeanCurrentMA != 200 || !strings.Contains(why, "has no POWER_SUPPLY_TEMP") {
		t.Errorf("battery %+v, %q", out, why)
	}
}

// Two meminfo reads the host saw at one instant (the lane's and the one a
// step asked for, on a clock that did not move) are one point: the step
// keeps its PSS, and its growth needs reads at two times.
func TestMemoryReadsAtOneInstant(t *testing.T) {
	const s = int64(time.Second)
	r := &result.Result{Memory: []result.MemorySample{{HostNs: 0, PSSKB: 120000}, {HostNs: 0, PSSKB: 124000, Steps: []string{"scroll"}}}}
	st := &result.Step{Name: "scroll", HostStartNs: 0, HostEndNs: s}
	m := Memory(r, st, 100*time.Millisecond, time.Second)
	if m.PSSSamples != 1 || m.PSSMaxKB != 124000 || m.PSSLastKB != 124000 {
		t.Errorf("two reads at one instant: %d samples, max %d, last %d; want 1, 124000, 124000", m.PSSSamples, m.PSSMaxKB, m.PSSLastKB)
	}
	r.Memory = append(r.Memory, result.MemorySample{HostNs: s / 2, PSSKB: 125000})
	m = Memory(r, st, 100*time.Millisecond, time.Second)
	if m.PSSSamples != 2 || m.PSSMaxKB != 125000 || math.Abs(m.PSSGrowthKBPerMin-120000) > 1e-6 {
		t.Errorf("and one later: %d samples, max %d, growth %v; want 2, 125000, 120000 KiB/min", m.PSSSamples, m.PSSMaxKB, m.PSSGrowthKBPerMin)
	}
}

// The mean current is of the reads that had current_now: a read without
// it (a source that printed none) holds 0 and does not pull the mean
// toward 0; without any, the step has none.
func TestBatteryMeanCurrent(t *testing.T) {
	samples := []result.Sample{
		{HostNs: 0, Battery: &result.BatteryReading{LevelPct: 80, TemperatureC: 30, CurrentMA: -291}},
		{HostNs: 5, Battery: &result.BatteryReading{LevelPct: 80, TemperatureC: 30}},
		{HostNs: 10, Battery: &result.BatteryReading{LevelPct: 80, TemperatureC: 30, CurrentMA: -309}},
	}
	st := &result.Step{HostStartNs: 0, HostEndNs: 10}
	if out, _ := Battery(samples, st); out == nil || out.MeanCurrentMA != -300 {
		t.Errorf("mean current %+v, want -300 mA (the two reads that had it)", out)
	}
	samples[0].Battery.CurrentMA, samples[2].Battery.CurrentMA = 0, 0
	if out, _ := Battery(samples, st); out == nil || out.MeanCurrentMA != 0 {
		t.Errorf("no current read: %+v, want none", out)
	}
}

package stepstats

import (
	"fmt"
	"slices"
	"time"

	"github.com/perfgate/perfgate/android/dumpsys"
	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/result"
)

// Memory is the step's PSS (dumpsys meminfo, the slow lane's reads every
// slowInterval) and RSS (/proc/<pid>/status, every tick's interval).
func Memory(r *result.Result, st *result.Step, interval, slowInterval time.Duration) result.MemoryStats {
	out := result.MemoryStats{Unit: "KiB", Source: "dumpsys meminfo <pkg> (PSS, App Summary); /proc/<pid>/status VmRSS (RSS)"}
	var rss []dumpsys.MemorySample
	for _, s := range r.Samples {
		if s.HostNs >= st.HostStartNs && s.HostNs <= st.HostEndNs && s.RSSKB > 0 {
			rss = append(rss, dumpsys.MemorySample{At: time.Duration(s.HostNs), KB: s.RSSKB})
		}
	}
	// Likewise a step shorter than a tick may hold no status read.
	if len(rss) == 0 {
		for _, s := range r.Samples {
			if s.HostNs >= st.HostStartNs && s.HostNs <= st.HostEndNs+int64(interval) && s.RSSKB > 0 {
				rss = append(rss, dumpsys.MemorySample{At: time.Duration(s.HostNs), KB: s.RSSKB})
				break
			}
		}
	}
	if m, err := dumpsys.MemorySummarize(oneAtATime(rss)); err == nil {
		out.RSSSamples, out.RSSMaxKB, out.RSSLastKB, out.RSSMeanKB = m.N, m.MaxKB, m.LastKB, m.MeanKB
	}
	var pss []dumpsys.MemorySample
	for _, m := range r.Memory {
		if m.HostNs >= st.HostStartNs && m.HostNs <= st.HostEndNs {
			pss = append(pss, dumpsys.MemorySample{At: time.Duration(m.HostNs), KB: m.PSSKB})
			if m.Summary != nil {
				out.Summary = m.Summary
			}
			out.SummaryMax = summaryMax(out.SummaryMax, m.Summary)
			out.GPUMaxKB = gpuMax(out.GPUMaxKB, m.GPUKB)
		}
	}
	// A step shorter than a meminfo read (or one the lane was late for)
	// may hold no read inside it; the read its start called for stands in,
	// else the first one after it started.
	if len(pss) == 0 {
		for _, m := range r.Memory {
			if slices.Contains(m.Steps, st.Name) || m.HostNs >= st.HostStartNs && m.HostNs <= st.HostEndNs+int64(slowInterval) {
				pss = append(pss, dumpsys.MemorySample{At: time.Duration(m.HostNs), KB: m.PSSKB})
				out.Summary = m.Summary
				out.SummaryMax, out.GPUMaxKB = summaryMax(nil, m.Summary), m.GPUKB
				break
			}
		}
	}
	if m, err := dumpsys.MemorySummarize(oneAtATime(pss)); err == nil {
		out.PSSSamples, out.PSSMaxKB, out.PSSLastKB, out.PSSMeanKB = m.N, m.MaxKB, m.LastKB, m.MeanKB
		out.PSSGrowthKBPerMin = m.GrowthKBPerMin
	}
	return out
}

// Traffic is the byte count between traffic reads ts[a] and ts[b] (a < b,
// the step's bracket), with its rates; Source, Unit and Scope are the
// caller's. A counter that went backwards anywhere between the two reads
// (a reset) leaves the bytes of that interval unknown, even when the edges
// happen to agree: then it returns where.
func Traffic(ts []result.TrafficSample, a, b int) (*result.TrafficStats, *Backwards) {
	counters := func(x result.TrafficSample) procfs.TrafficCounters {
		return procfs.TrafficCounters{RxBytes: x.RxBytes, TxBytes: x.TxBytes, RxPackets: x.RxPackets, TxPackets: x.TxPackets}
	}
	for i := a + 1; i <= b; i++ {
		if _, err := procfs.TrafficDelta(counters(ts[i-1]), counters(ts[i])); err != nil {
			return nil, &Backwards{From: ts[i-1], To: ts[i], Err: err}
		}
	}
	ta, tb := ts[a], ts[b]
	d, err := procfs.TrafficDelta(counters(ta), counters(tb))
	if err != nil {
		return nil, &Backwards{From: ta, To: tb, Err: err}
	}
	out := &result.TrafficStats{RxBytes: d.RxBytes, TxBytes: d.TxBytes, Intervals: b - a}
	elapsed, onDevice := elapsedBetween(ta.HostNs, tb.HostNs, ta.UptimeNs, tb.UptimeNs)
	out.Clock = "host"
	if onDevice {
		out.Clock = "/proc/uptime"
	}
	out.DurationSecs = elapsed.Seconds()
	if rate, err := procfs.TrafficRateOf(d, elapsed); err == nil {
		out.RxBytesPerS, out.TxBytesPerS = rate.RxBytesPerSec, rate.TxBytesPerSec
	}
	return out, nil
}

// Backwards is a traffic counter that went backwards between reads From
// and To (Err says which): the bytes between them are unknown.
type Backwards struct {
	From, To result.TrafficSample
	Err      error
}

// Why is the reason the step has no traffic, for the counters of source.
func (b *Backwards) Why(source string) string {
	return fmt.Sprintf("traffic: %s: %v (rx %d → %d, tx %d → %d bytes)", source, b.Err, b.From.RxBytes, b.To.RxBytes, b.From.TxBytes, b.To.TxBytes)
}

// Battery is the step's battery figures, or nil without two battery reads
// around it; tempWhy is the reason it has no temperature, "" when it has.
func Battery(samples []result.Sample, st *result.Step) (out *result.BatteryStats, tempWhy string) {
	hasB := func(i int) bool { return samples[i].Battery != nil }
	a, b, ok := Bracket(len(samples), func(i int) int64 { return samples[i].HostNs }, hasB, st.HostStartNs, st.HostEndNs)
	if !ok {
		return nil, ""
	}
	out = &result.BatteryStats{Source: dumpsys.BatteryUeventSource}
	out.StartLevelPct = samples[a].Battery.LevelPct
	out.EndLevelPct = samples[b].Battery.LevelPct
	var cur float64
	n, temps := 0, 0
	for i := a; i <= b; i++ {
		if br := samples[i].Battery; br != nil {
			if !br.NoTemperature {
				if temps == 0 || br.TemperatureC > out.MaxTemperatureC {
					out.MaxTemperatureC = br.TemperatureC
				}
				temps++
			}
			// A read without current_now holds 0 (the Result omits
			// it): the mean is of the reads that had it.
			if br.CurrentMA != 0 {
				cur += br.CurrentMA
				n++
			}
		}
	}
	if temps == 0 {
		tempWhy = "battery: " + dumpsys.BatteryUeventSource + " has no POWER_SUPPLY_TEMP"
	}
	if n > 0 {
		out.MeanCurrentMA = cur / float64(n)
	}
	return out, tempWhy
}

// Thermal is the step's hottest zones, or nil without two thermal reads
// around it.
func Thermal(samples []result.Sample, st *result.Step) *result.ThermalStats {
	has := func(i int) bool { return samples[i].ThermalC != nil }
	a, b, ok := Bracket(len(samples), func(i int) int64 { return samples[i].HostNs }, has, st.HostStartNs, st.HostEndNs)
	if !ok {
		return nil
	}
	out := &result.ThermalStats{Source: dumpsys.ThermalZonesCommand, ZoneMaxC: map[string]float64{}}
	for i := a; i <= b; i++ {
		for zone, v := range samples[i].ThermalC {
			if old, seen := out.ZoneMaxC[zone]; !seen || v > old {
				out.ZoneMaxC[zone] = v
			}
			if out.MaxZone == "" || v > out.MaxC || v == out.MaxC && zone < out.MaxZone {
				out.MaxC, out.MaxZone = v, zone
			}
		}
	}
	return out
}

// oneAtATime keeps, of samples taken at one instant, the last: two reads
// the host saw at one time (a step's own read and the lane's, on a clock
// that did not move between them) are one point of the series, not a
// series with no time span, which has no growth and would lose the
// step's other figures too.
func oneAtATime(samples []dumpsys.MemorySample) []dumpsys.MemorySample {
	var out []dumpsys.MemorySample
	for _, x := range samples {
		if n := len(out); n > 0 && out[n-1].At == x.At {
			out[n-1] = x
			continue
		}
		out = append(out, x)
	}
	return out
}

// summaryMax is hi, raised row by row to the App Summary s of one more
// read; nil while no read printed one.
func summaryMax(hi, s map[string]int64) map[string]int64 {
	for k, v := range s {
		if hi == nil {
			hi = map[string]int64{}
		}
		if cur, ok := hi[k]; !ok || v > cur {
			hi[k] = v
		}
	}
	return hi
}

// gpuMax is the higher of two GPU memory figures, either nil when unread.
func gpuMax(a, b *int64) *int64 {
	if a == nil || b != nil && *b > *a {
		return b
	}
	return a
}

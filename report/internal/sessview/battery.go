package sessview

import "github.com/perfgate/perfgate/result"

// BatteryCurrent is the battery current of each read a step's mean takes
// (the last read at or before its start, startNs, those inside, the first
// at or after its end, endNs; a read without current_now left out), in mA
// with the phone's sign, at its time in seconds since the step began,
// kept within the step's stepS: {x, y} pairs.
func BatteryCurrent(samples []result.Sample, startNs, endNs int64, stepS float64) [][2]float64 {
	first, last := -1, len(samples)
	for i, s := range samples {
		if s.Battery == nil {
			continue
		}
		if s.HostNs <= startNs {
			first = i
		}
		if s.HostNs >= endNs && last == len(samples) {
			last = i
		}
	}
	var out [][2]float64
	for i := max(first, 0); i <= min(last, len(samples)-1); i++ {
		if s := samples[i]; s.Battery != nil && s.Battery.CurrentMA != 0 {
			out = append(out, [2]float64{min(max(0, float64(s.HostNs-startNs)/1e9), stepS), s.Battery.CurrentMA})
		}
	}
	return out
}

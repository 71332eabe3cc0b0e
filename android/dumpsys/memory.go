package dumpsys

import (
	"errors"
	"time"
)

// MemorySample is one memory reading (PSS, RSS, a heap, ...) in KiB, At
// time since the session started.
type MemorySample struct {
	At time.Duration
	KB int64
}

// MemorySummary summarises a series of memory samples as the Memory metric
// definition asks: max, last and mean in KiB, and the growth rate.
type MemorySummary struct {
	N      int
	MaxKB  int64
	LastKB int64 // the sample with the latest At
	MeanKB float64
	// GrowthKBPerMin is the least-squares slope of KB over time, in KiB per
	// minute: a steady leak shows as a positive slope even when single
	// samples are noisy (GC, trimming). 0 for a single sample.
	GrowthKBPerMin float64
}

// ErrMemoryNoSamples is returned by MemorySummarize for an empty series.
var ErrMemoryNoSamples = errors.New("memory: no samples")

// ErrMemoryNoTimeSpan is returned when two or more samples all carry the
// same time, so no slope exists.
var ErrMemoryNoTimeSpan = errors.New("memory: all samples at the same time; cannot compute growth")

// MemorySummarize computes max, last, mean and the least-squares growth in
// KiB/min over samples (in any order).
func MemorySummarize(samples []MemorySample) (MemorySummary, error) {
	if len(samples) == 0 {
		return MemorySummary{}, ErrMemoryNoSamples
	}
	s := MemorySummary{N: len(samples), MaxKB: samples[0].KB, LastKB: samples[0].KB}
	last := samples[0].At
	var sumKB, sumT float64
	for _, x := range samples {
		if x.KB > s.MaxKB {
			s.MaxKB = x.KB
		}
		if x.At >= last {
			last, s.LastKB = x.At, x.KB
		}
		sumKB += float64(x.KB)
		sumT += x.At.Minutes()
	}
	n := float64(len(samples))
	s.MeanKB = sumKB / n
	if len(samples) == 1 {
		return s, nil
	}
	meanT := sumT / n
	var sxy, sxx float64
	for _, x := range samples {
		dt := x.At.Minutes() - meanT
		sxy += dt * (float64(x.KB) - s.MeanKB)
		sxx += dt * dt
	}
	if sxx == 0 {
		return MemorySummary{}, ErrMemoryNoTimeSpan
	}
	s.GrowthKBPerMin = sxy / sxx
	return s, nil
}

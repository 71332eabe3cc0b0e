package dumpsys

import (
	"errors"
	"math"
	"testing"
	"time"
)

func TestMemorySummarize(t *testing.T) {
	tests := []struct {
		name    string
		samples []MemorySample
		want    MemorySummary
	}{
		{"steady leak 10 KiB/min", []MemorySample{{0, 100}, {time.Minute, 110}, {2 * time.Minute, 120}, {3 * time.Minute, 130}},
			MemorySummary{N: 4, MaxKB: 130, LastKB: 130, MeanKB: 115, GrowthKBPerMin: 10}},
		// Mean time 1 min, mean 340/3; Σ(dt·dkb) = 10, Σdt² = 2 → 5 KiB/min.
		{"noisy", []MemorySample{{0, 100}, {time.Minute, 130}, {2 * time.Minute, 110}},
			MemorySummary{N: 3, MaxKB: 130, LastKB: 110, MeanKB: 340.0 / 3, GrowthKBPerMin: 5}},
		{"seconds apart", []MemorySample{{0, 1000}, {30 * time.Second, 1010}, {time.Minute, 1020}},
			MemorySummary{N: 3, MaxKB: 1020, LastKB: 1020, MeanKB: 1010, GrowthKBPerMin: 20}},
		{"out of order: last is the latest", []MemorySample{{2 * time.Minute, 90}, {0, 120}, {time.Minute, 105}},
			MemorySummary{N: 3, MaxKB: 120, LastKB: 90, MeanKB: 105, GrowthKBPerMin: -15}},
		{"one sample", []MemorySample{{5 * time.Second, 42}}, MemorySummary{N: 1, MaxKB: 42, LastKB: 42, MeanKB: 42}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := MemorySummarize(tc.samples)
			if err != nil {
				t.Fatal(err)
			}
			if got.N != tc.want.N || got.MaxKB != tc.want.MaxKB || got.LastKB != tc.want.LastKB ||
				math.Abs(got.MeanKB-tc.want.MeanKB) > 1e-9 || math.Abs(got.GrowthKBPerMin-tc.want.GrowthKBPerMin) > 1e-9 {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
	if _, err := MemorySummarize(nil); !errors.Is(err, ErrMemoryNoSamples) {
		t.Errorf("empty: err = %v", err)
	}
	if _, err := MemorySummarize([]MemorySample{{time.Second, 1}, {time.Second, 2}}); !errors.Is(err, ErrMemoryNoTimeSpan) {
		t.Errorf("same time: err = %v", err)
	}
}

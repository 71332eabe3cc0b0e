package threadlog

import (
	"math/rand/v2"
	"testing"
)

// TestEachInOrder: events added out of order, as two CPUs' bundles taking
// turns give them, come back in time order, those of one time in the
// order they were added, without an allocation per event.
func TestEachInOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	var log Log
	var want []Event
	base := int64(1_000_000)
	for chunk := range 500 {
		// Two CPUs' events over the same 20 µs, one CPU's after the
		// other's.
		for cpu := range 2 {
			ts := base
			for range 10 {
				ts += int64(r.IntN(4)) * 1000
				e := Event{Ts: ts, Kind: Kind(1 + r.IntN(3)), St: uint8(cpu)}
				log.Add(e)
				want = append(want, e)
			}
		}
		base += 20_000 + int64(chunk%3)
	}
	var got []Event
	log.Each(func(e Event) { got = append(got, e) })
	if len(got) != len(want) {
		t.Fatalf("%d events back, %d added", len(got), len(want))
	}
	for i := 1; i < len(got); i++ {
		if got[i].Ts < got[i-1].Ts {
			t.Fatalf("event %d at %d after one at %d", i, got[i].Ts, got[i-1].Ts)
		}
	}
	// A stable sort of what was added is the order Each gives.
	sorted := append([]Event(nil), want...)
	for i := 1; i < len(sorted); i++ {
		for j := i; j > 0 && sorted[j].Ts < sorted[j-1].Ts; j-- {
			sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
		}
	}
	for i := range sorted {
		if got[i] != sorted[i] {
			t.Fatalf("event %d: %+v, want %+v", i, got[i], sorted[i])
		}
	}
	allocs := testing.AllocsPerRun(3, func() { log.Each(func(Event) {}) })
	if allocs > 50 {
		t.Errorf("Each allocated %.0f times replaying %d events", allocs, len(want))
	}
}

package changepoint

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// splitTest sets w up for the first test of Splits on x and returns the
// observed statistic and the draw of its permutation test.
func splitTest(w *windows, x []float64, minSize int) (float64, func(*rand.Rand) float64) {
	n := len(x)
	w.bounds = append(w.bounds[:0], 0, n)
	rank := ranksInto(x, w.idx[:n], w.rank[:n])
	for i, r := range rank {
		w.byRank[r] = x[i]
	}
	w.work.totals(w.byRank[:n+1], rank)
	q, _ := w.bestSplit(x, rank, minSize)
	copy(w.pv, x)
	copy(w.pr, rank)
	return q, w.shuffledSplit(minSize)
}

// The fitted tail estimates p where 999 permutations cannot: for steps
// whose p, counted over 50,000 permutations, lies between 2e-4 and 1e-2,
// tailP from the first 999 is no less than a third of it and no more than
// four times it: the fit errs large rather than small.
func TestTailP(t *testing.T) {
	skipUnderRace(t)
	const n, many = 50, 50000
	checked := 0
	for seed := range 16 {
		rng := rand.New(rand.NewPCG(uint64(seed), 77))
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64()
			if i >= 25 {
				x[i] += 0.9 + 0.1*float64(seed%4)
			}
		}
		w := newWindows(n)
		q, draw := splitTest(w, x, 4)
		draws := make([]float64, 0, many)
		reached := 0
		for range many {
			d := draw(rng)
			draws = append(draws, d)
			if d >= q {
				reached++
			}
		}
		counted := float64(1+reached) / float64(1+many)
		if counted < 2e-4 || counted > 1e-2 {
			continue
		}
		checked++
		est := tailP(slices.Clone(draws[:999]), q)
		t.Logf("seed %d: p counted over %d permutations %.2g, from the tail of 999 %.2g", seed, many, counted, est)
		if r := est / counted; r < 1.0/3 || r > 4 {
			t.Errorf("seed %d: tail p %.2g, counted %.2g", seed, est, counted)
		}
	}
	if checked < 5 {
		t.Fatalf("only %d series with p in 2e-4…1e-2", checked)
	}
	if p := tailP([]float64{1, 2, 3}, 10); p != 1 {
		t.Errorf("3 draws: tail p %v, want 1 (too few to fit)", p)
	}
}

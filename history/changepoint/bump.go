package changepoint

import (
	"math"
	"math/rand/v2"
)

// A regression fixed a few runs later is a short segment in the middle of
// a longer one, which no single split separates well: E-divisive's blind
// spot. When no segment splits in two, each segment is scanned for the
// stretch of bumpMin…bumpMaxOf(minSize) runs whose level differs most
// from the rest of it (circular binary segmentation, Olshen et al.,
// Biostatistics 2004), with the same permutation test.

// bumpMaxOf is the longest stretch the scan looks at: longer ones are two
// changes a single split sees one at a time.
func bumpMaxOf(minSize int) int { return 8 * minSize }

// bumpShare is the part of Alpha the scan for bumps is tested at: it runs
// after the test for a split failed, on the same series, and the two
// together may flag a series of noise alone with probability about
// (1 + bumpShare)·Alpha.
const bumpShare = 0.1

// bumpClip bounds each run's part in the scan, in robust standard
// deviations from the segment's median, so that a heavy tail cannot make a
// stretch.
const bumpClip = 3.0

// bestBump prepares every segment's scores (w.u) and returns the largest
// scan statistic over them with the stretch's first run and the run after
// it (-1, -1: no segment holds room for one).
func (w *windows) bestBump(values []float64, minSize int) (float64, int, int) {
	u := w.u[:len(values)]
	best, from, to := math.Inf(-1), -1, -1
	for i := 0; i+1 < len(w.bounds); i++ {
		a, b := w.bounds[i], w.bounds[i+1]
		if b-a < 3*minSize {
			continue
		}
		scores(values[a:b], u[a:b], w.work.dist[:b-a])
		if z, f, t := w.scan(u[a:b], minSize); f >= 0 && z > best {
			best, from, to = z, a+f, a+t
		}
	}
	return best, from, to
}

// shuffledBump returns a draw of the permutation test of bestBump: it
// shuffles every segment's scores and returns the largest statistic.
func (w *windows) shuffledBump(minSize int) func(*rand.Rand) float64 {
	copy(w.pv, w.u)
	return func(rng *rand.Rand) float64 {
		best := math.Inf(-1)
		for i := 0; i+1 < len(w.bounds); i++ {
			a, b := w.bounds[i], w.bounds[i+1]
			if b-a < 3*minSize {
				continue
			}
			su := w.pv[a:b]
			rng.Shuffle(len(su), func(x, y int) { su[x], su[y] = su[y], su[x] })
			if z, f, _ := w.scan(su, minSize); f >= 0 {
				best = max(best, z)
			}
		}
		return best
	}
}

// scores sets u to x's runs as the scan weighs them: their distances from
// x's median in robust standard deviations (from consecutive differences,
// as despike's), clipped to ±bumpClip and centred on zero. buf holds
// len(x) values of scratch.
func scores(x, u, buf []float64) {
	m := len(x)
	copy(buf, x)
	med := median(buf)
	sd := diffSigma(x, buf)
	if sd == 0 {
		for i, v := range x {
			buf[i] = math.Abs(v - med)
		}
		sd = 1.4826 * median(buf)
	}
	if sd == 0 {
		clear(u)
		return
	}
	mean := 0.0
	for i, v := range x {
		u[i] = max(-bumpClip, min(bumpClip, (v-med)/sd))
		mean += u[i]
	}
	mean /= float64(m)
	for i := range u {
		u[i] -= mean
	}
}

// scan returns the largest S²·m/(k(m−k)) over the stretches [from, to)
// of u (centred scores of m runs), S their sum and k their length, with
// at least minSize runs in the stretch and on each side of it.
func (w *windows) scan(u []float64, minSize int) (float64, int, int) {
	m := len(u)
	p := w.work.left[:m+1] // prefix sums
	p[0] = 0
	for i, v := range u {
		p[i+1] = p[i] + v
	}
	kMax := min(bumpMaxOf(minSize), m-2*minSize)
	inv := w.work.right[:kMax+1]
	for k := minSize; k <= kMax; k++ {
		inv[k] = float64(m) / float64(k*(m-k))
	}
	best, from, to := math.Inf(-1), -1, -1
	for i := minSize; i+minSize <= m-minSize; i++ {
		pi := p[i]
		last := min(i+kMax, m-minSize)
		for j := i + minSize; j <= last; j++ {
			s := p[j] - pi
			if z := s * s * inv[j-i]; z > best {
				best, from, to = z, i, j
			}
		}
	}
	return best, from, to
}

// place moves each change point of values (in index order) to the split
// that best separates the levels on either side of it: the medians of up
// to DefaultWindow runs back to the change before and on to the change
// after. Of the splits within minSize runs that keep minSize runs between
// changes, it takes the one with the smallest summed distance of the runs
// between to their side's level, the change's own on a tie. E-divisive's
// split maximises a distance between whole segments, and next to a
// second change close by it can land a run or two into the old level.
func place(values []float64, splits []Split, minSize int) {
	n := len(values)
	buf := make([]float64, 0, 2*DefaultWindow)
	for k := range splits {
		idx, prev, next := splits[k].Index, 0, n
		if k > 0 {
			prev = splits[k-1].Index
		}
		if k+1 < len(splits) {
			next = splits[k+1].Index
		}
		left := median(append(buf[:0], values[max(prev, idx-DefaultWindow):idx]...))
		right := median(append(buf[:0], values[idx:min(next, idx+DefaultWindow)]...))
		lo, hi := max(prev+minSize, idx-minSize), min(next-minSize, idx+minSize)
		if lo >= hi {
			continue
		}
		// cost[t−lo] − cost[0]: runs lo…t−1 move from the right level to
		// the left one.
		cost := make([]float64, hi-lo+1)
		for t := lo; t < hi; t++ {
			cost[t+1-lo] = cost[t-lo] + math.Abs(values[t]-left) - math.Abs(values[t]-right)
		}
		best := max(lo, min(hi, idx))
		for t := lo; t <= hi; t++ {
			if c, bc := cost[t-lo], cost[best-lo]; c < bc || c == bc && abs(t-idx) < abs(best-idx) {
				best = t
			}
		}
		splits[k].Index = best
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

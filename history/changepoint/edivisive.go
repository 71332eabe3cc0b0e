// Package changepoint finds the points where a series of measurements
// changed level: E-divisive means (Matteson & James, "A Nonparametric
// Approach for Multiple Change Point Analysis of Multivariate Data", JASA
// 2014), the method MongoDB's performance CI and Apache Otava use, with its
// permutation significance test. It is pure computation: no I/O, no clock.
//
//	cps := changepoint.Detect(values, changepoint.Options{})
//	for _, cp := range cps {
//		fmt.Printf("changed at %d: %+.1f%% (p = %.3f)\n", cp.Index, cp.ChangePct, cp.P)
//	}
//
// The series is one value per run in commit order (perfgate takes the median
// of a step's iterations as the run's value); runs that did not measure the
// metric are simply absent. Detection is distribution-free: it compares the
// energy distance between the runs before and after each possible split,
// with exponent 1 (mean absolute differences), so a lone outlier moves the
// statistic by its distance rather than by its square.
package changepoint

import (
	"cmp"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
)

// Options shape Detect. The zero value uses the defaults.
type Options struct {
	// Alpha is the significance level of the permutation test; a split is
	// kept when p ≤ Alpha. Default 0.01.
	Alpha float64
	// Permutations is how many random permutations each test draws; p
	// cannot be smaller than 1/(Permutations+1). Default 999.
	Permutations int
	// MinSize is the fewest runs a segment between two change points may
	// hold; default 4. A change in the last MinSize−1 runs cannot be seen
	// yet: it is found once enough runs after it exist.
	MinSize int
	// Seed seeds the permutations. Zero derives the seed from the values,
	// so the same series always gives the same answer.
	Seed uint64
	// MaxChanges bounds how many change points are looked for; 0 means no
	// bound.
	MaxChanges int
}

func (o Options) withDefaults() Options {
	if o.Alpha <= 0 || o.Alpha >= 1 {
		o.Alpha = 0.01
	}
	if o.Permutations <= 0 {
		o.Permutations = 999
	}
	if o.MinSize < 2 {
		o.MinSize = 4
	}
	return o
}

// Split is one change point as the permutation test found it.
type Split struct {
	// Index is the first value of the new level: values[Index-1] is the
	// last of the old one.
	Index int
	// Q is the E-divisive statistic of the split (scaled energy distance
	// between the two sides within their segment).
	Q float64
	// P is the permutation p-value: (1 + permutations whose largest
	// statistic reached Q) / (1 + permutations drawn).
	P float64
	// Order is when the split was found: 0 for the most pronounced.
	Order int
}

// Splits runs E-divisive means on values and returns the significant
// change points in index order. Splitting goes on, hierarchically, while
// the best split of any segment is significant; each test permutes the
// values within every current segment, so earlier change points stay
// where they are. NaN and infinite values are not measurements: the caller
// leaves them out, and a series holding one has no change points.
func Splits(values []float64, o Options) []Split {
	o = o.withDefaults()
	n := len(values)
	if n < 2*o.MinSize {
		return nil
	}
	for _, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
	}
	seed := o.Seed
	if seed == 0 {
		seed = seedOf(values)
	}
	values = despike(values)

	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	bounds := []int{0, n} // segment edges, sorted
	var out []Split
	work := newScratch(n)
	rank := ranks(values)
	pv, pr := make([]float64, n), make([]int, n) // the permuted series and its ranks
	for order := 0; o.MaxChanges == 0 || order < o.MaxChanges; order++ {
		// The best split of every segment.
		bestQ, bestAt := math.Inf(-1), -1
		for i := 0; i+1 < len(bounds); i++ {
			a, b := bounds[i], bounds[i+1]
			if q, at := work.best(values[a:b], rank[a:b], o.MinSize); at >= 0 && q > bestQ {
				bestQ, bestAt = q, a+at
			}
		}
		if bestAt < 0 {
			break
		}
		// The permutation test: how often does the largest statistic over
		// all segments, with each segment's values shuffled, reach bestQ?
		// Drawing stops as soon as p can no longer be ≤ Alpha.
		copy(pv, values)
		copy(pr, rank)
		reached, drawn := 0, 0
		limit := int(o.Alpha * float64(o.Permutations+1)) // p ≤ α ⇔ 1+reached ≤ limit
		for drawn < o.Permutations && 1+reached <= limit {
			drawn++
			maxQ := math.Inf(-1)
			for i := 0; i+1 < len(bounds); i++ {
				a, b := bounds[i], bounds[i+1]
				sv, sr := pv[a:b], pr[a:b]
				rng.Shuffle(len(sv), func(x, y int) {
					sv[x], sv[y] = sv[y], sv[x]
					sr[x], sr[y] = sr[y], sr[x]
				})
				if q, at := work.best(sv, sr, o.MinSize); at >= 0 {
					maxQ = max(maxQ, q)
				}
			}
			if maxQ >= bestQ {
				reached++
			}
		}
		if 1+reached > limit {
			break
		}
		out = append(out, Split{Index: bestAt, Q: bestQ, P: float64(1+reached) / float64(1+drawn), Order: order})
		bounds = append(bounds, bestAt)
		slices.Sort(bounds)
	}
	slices.SortFunc(out, func(a, b Split) int { return cmp.Compare(a.Index, b.Index) })
	return out
}

// ranks returns the rank (1…n) of every value; equal values get distinct
// ranks, which the sums of distances do not notice.
func ranks(values []float64) []int {
	idx := make([]int, len(values))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(values[a], values[b]) })
	r := make([]int, len(values))
	for k, i := range idx {
		r[i] = k + 1
	}
	return r
}

// seedOf hashes the values, so a series gives the same permutations every
// time it is tested.
func seedOf(values []float64) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for _, v := range values {
		u := math.Float64bits(v)
		for i := range b {
			b[i] = byte(u >> (8 * i))
		}
		h.Write(b[:])
	}
	return h.Sum64() | 1
}

// scratch holds the buffers best needs, reused across calls.
type scratch struct {
	left, right []float64 // within-sums of prefixes and suffixes
	cnt, sum    []float64 // Fenwick trees over the series' ranks, all zero between uses
}

func newScratch(n int) *scratch {
	return &scratch{left: make([]float64, n+1), right: make([]float64, n+1), cnt: make([]float64, n+1), sum: make([]float64, n+1)}
}

// naiveUpTo is the segment length up to which the within-sums are summed
// pair by pair; longer segments use Fenwick trees over ranks (O(n log n)).
const naiveUpTo = 96

// best returns the split of x with the largest E-divisive statistic
//
//	Q(τ) = τ(m−τ)/m · [ 2/(τ(m−τ)) Σ|xᵢ−xⱼ| − 2/(τ(τ−1)) Σ|xᵢ−xₖ| − 2/((m−τ)(m−τ−1)) Σ|xⱼ−xₖ| ]
//
// (i, k before τ; j, k from τ on, each pair once), over τ with at least
// minSize values on each side, and its index; -1 when x is too short.
// rank holds the ranks of x's values within the whole series.
func (s *scratch) best(x []float64, rank []int, minSize int) (float64, int) {
	m := len(x)
	if m < 2*minSize {
		return 0, -1
	}
	left, right := s.left[:m+1], s.right[:m+1]
	if m <= naiveUpTo {
		withinNaive(x, left, right)
	} else {
		s.withinFenwick(x, rank, left, right)
	}
	total := left[m]
	bestQ, bestAt := math.Inf(-1), -1
	fm := float64(m)
	for t := minSize; t <= m-minSize; t++ {
		a, b := float64(t), float64(m-t)
		cross := total - left[t] - right[t]
		e := 2*cross/(a*b) - 2*left[t]/(a*(a-1)) - 2*right[t]/(b*(b-1))
		if q := a * b / fm * e; q > bestQ {
			bestQ, bestAt = q, t
		}
	}
	return bestQ, bestAt
}

// withinNaive fills left[t] with the sum of |xᵢ−xₖ| over pairs before t and
// right[t] with that over pairs from t on.
func withinNaive(x, left, right []float64) {
	m := len(x)
	left[0], left[1] = 0, 0
	for t := 1; t < m; t++ {
		d, v := 0.0, x[t]
		for _, u := range x[:t] {
			d += math.Abs(v - u)
		}
		left[t+1] = left[t] + d
	}
	right[m], right[m-1] = 0, 0
	for t := m - 2; t >= 0; t-- {
		d, v := 0.0, x[t]
		for _, u := range x[t+1:] {
			d += math.Abs(v - u)
		}
		right[t] = right[t+1] + d
	}
}

// withinFenwick is withinNaive in O(m log n): the distances of x[t] to the
// values already passed are count·x[t] − sum of those ranked below it,
// plus sum − count·x[t] of those ranked above, with counts and sums kept
// in Fenwick trees indexed by rank.
func (s *scratch) withinFenwick(x []float64, rank []int, left, right []float64) {
	m := len(x)
	left[0] = 0
	s.pass(x, rank, 0, 1, func(k int, d float64) { left[k+1] = left[k] + d })
	right[m] = 0
	s.pass(x, rank, m-1, -1, func(k int, d float64) { right[k] = right[k+1] + d })
}

// pass walks x from start in steps of dir, handing each index and its
// summed distance to the values passed before it to out, and leaves the
// trees zero again.
func (s *scratch) pass(x []float64, rank []int, start, dir int, out func(k int, d float64)) {
	cnt, sum := s.cnt, s.sum
	n := len(cnt) - 1
	seenSum, seen := 0.0, 0.0
	for k := start; k >= 0 && k < len(x); k += dir {
		v, r := x[k], rank[k]
		var c, sm float64
		for j := r; j > 0; j -= j & -j {
			c += cnt[j]
			sm += sum[j]
		}
		out(k, c*v-sm+(seenSum-sm)-(seen-c)*v)
		for j := r; j <= n; j += j & -j {
			cnt[j]++
			sum[j] += v
		}
		seenSum += v
		seen++
	}
	for k := range x {
		for j := rank[k]; j <= n && cnt[j] != 0; j += j & -j {
			cnt[j], sum[j] = 0, 0
		}
	}
}

// Outliers: a run further than spikeK robust standard deviations from the
// median of the 2·spikeW+1 runs around it is replaced by that median
// before splitting (a Hampel filter).
const (
	spikeW = 4
	spikeK = 5.0
)

// despike returns values with lone outliers replaced by the median of
// their neighbourhood, so that one slow run cannot pass for a change of
// level. The standard deviation comes from the median absolute difference
// of consecutive runs, which a change of level barely moves; with noise
// alone the filter touches almost nothing, so the permutation test keeps
// its level. A change that lasts spikeW+1 runs or more is the median of
// its own neighbourhood and is kept.
func despike(values []float64) []float64 {
	n := len(values)
	if n < 3 {
		return values
	}
	d := make([]float64, n-1)
	for i := range d {
		d[i] = math.Abs(values[i+1] - values[i])
	}
	// 1.4826·MAD estimates σ of a Gaussian; a difference of two runs has
	// √2 σ.
	limit := spikeK * 1.4826 * median(d) / math.Sqrt2
	out := values
	buf := make([]float64, 0, 2*spikeW+1)
	for i, v := range values {
		buf = append(buf[:0], values[max(0, i-spikeW):min(n, i+spikeW+1)]...)
		if m := median(buf); math.Abs(v-m) > limit {
			if &out[0] == &values[0] {
				out = slices.Clone(values)
			}
			out[i] = m
		}
	}
	return out
}

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
	// Span is the most runs one test looks at; default DefaultSpan. A
	// longer series is read in overlapping windows of Span runs (see
	// Splits), so detection costs time in proportion to the series' length,
	// not to its length times its number of change points. A negative Span
	// tests the whole series at once, however long.
	Span int
}

// DefaultSpan is Options.Span's default: windows of 200 runs, in which each
// change has up to 50 runs on either side that no other window judges.
const DefaultSpan = 200

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
	if o.Span == 0 {
		o.Span = DefaultSpan
	}
	if o.Span > 0 {
		// A window must hold a change's runs on both sides of it besides
		// the parts it shares with its neighbours.
		o.Span = max(o.Span, 8*o.MinSize)
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
//
// A series longer than o.Span is read in windows of Span runs, each one
// split as above on its own. A window starts at the series' start, at the
// last change point found, or Span/2 runs after the previous window; of
// the change points a window finds it keeps those that are neither in its
// first quarter (the previous window's to judge, unless the window starts
// at a change point) nor in its last (the next window's, where they have
// runs after them), so every run is judged by one window and a change by
// the window that sees the level on both sides of it. Each test then
// costs O(Span log Span) per permutation, and a series of n runs with k
// changes needs about 2n/Span + k windows: time in proportion to n. Within
// a window the test is the same as on a short series; over a long series
// with no change, each window may find a false one with probability
// Alpha, as a short series may. Change points found once do not move as
// runs are added after them: a window sees only the runs up to Span after
// its start.
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
	kept, runs := despike(values)
	if len(kept) < 2*o.MinSize {
		return nil
	}
	var out []Split
	if o.Span < 0 || len(kept) <= o.Span {
		out = splitsIn(kept, o, seed)
	} else {
		out = windowed(kept, o, seed)
	}
	place(kept, out, o.MinSize)
	for i := range out {
		out[i].Index = runOf(runs, out[i].Index)
	}
	return out
}

// runOf maps the first value of a new level among the values despike
// kept to a run of the series: the run itself, or when outliers left out
// lie between it and the value before, the middle one of them. An outlier
// between two levels belongs to neither, and the middle is at most one
// run from either reading.
func runOf(runs []int, k int) int {
	if k <= 0 || k >= len(runs) {
		return runs[min(max(k, 0), len(runs)-1)]
	}
	gap := runs[k] - runs[k-1] - 1
	return runs[k-1] + 1 + gap/2
}

// windowed splits a series longer than o.Span window by window (see
// Splits).
func windowed(values []float64, o Options, seed uint64) []Split {
	n := len(values)
	var out []Split
	lead, margin := o.Span/8, o.Span/8
	start, anchored := 0, true // anchored: start is the series' start or a change point
	w := newWindows(o.Span)
	for {
		end := min(n, start+o.Span)
		from, to := start, end-margin
		if !anchored {
			from += lead
		}
		if end == n {
			to = n
		}
		wo := o
		if o.MaxChanges > 0 {
			wo.MaxChanges = o.MaxChanges - len(out)
		}
		lastKept := -1
		for _, sp := range w.splits(values[start:end], wo, seed^uint64(start)*0x9e3779b97f4a7c15) {
			if sp.Index += start; sp.Index >= from && sp.Index < to {
				sp.Order = len(out)
				out = append(out, sp)
				lastKept = sp.Index
			}
		}
		if end == n || o.MaxChanges > 0 && len(out) >= o.MaxChanges {
			break
		}
		if next := end - margin - lead; lastKept >= next {
			start, anchored = lastKept, true
		} else {
			start, anchored = next, false
		}
	}
	return out
}

// windows holds the buffers splitsIn needs, reused from window to window.
type windows struct {
	work   *scratch
	pv     []float64
	pr     []int
	idx    []int
	rank   []int
	bounds []int
	byRank []float64            // the value of each rank
	u      []float64            // each run's score in the scan for bumps
	stop   map[[2]float64][]int // stopTable's, by α and permutations
	draws  []float64            // the permutations' statistics, for tailP
}

// earlyRisk bounds how likely drawing that stops early, on stopTable's
// rule, ends with another decision than drawing every permutation would.
const earlyRisk = 1e-3

// stopTable returns, for d permutations drawn, how many reaching the
// observed statistic end the test as not significant: limit (then p >
// Alpha whatever the rest give), or fewer when so many would happen by
// d draws with probability under earlyRisk if p were Alpha. A split
// whose true p is near Alpha is where the two rules can disagree; at
// worst (p ≈ 0.8 α with the defaults) they do one time in 2000. Against
// a split with no change, whose p is uniform, about 32 permutations are
// drawn on average instead of 54.
func (w *windows) stopTable(o Options, p float64, limit int) []int {
	key := [2]float64{p, float64(o.Permutations)}
	if stop, ok := w.stop[key]; ok {
		return stop
	}
	stop := make([]int, o.Permutations+1)
	for d := 1; d <= o.Permutations; d++ {
		// The smallest r with P(X ≥ r) ≤ earlyRisk, X ~ Binomial(d, p).
		pmf := math.Pow(1-p, float64(d)) // P(X = 0)
		cdf, r := pmf, 1
		for r < limit && r <= d && 1-cdf > earlyRisk {
			pmf *= float64(d-r+1) / float64(r) * p / (1 - p)
			cdf += pmf
			r++
		}
		stop[d] = min(limit, max(r, 1))
	}
	if w.stop == nil {
		w.stop = map[[2]float64][]int{}
	}
	w.stop[key] = stop
	return stop
}

func newWindows(n int) *windows {
	return &windows{work: newScratch(n), pv: make([]float64, n), pr: make([]int, n), idx: make([]int, n), rank: make([]int, n), u: make([]float64, n), byRank: make([]float64, n+1)}
}

// splitsIn is E-divisive means over the whole of values (already
// despiked), permuting with seed.
func splitsIn(values []float64, o Options, seed uint64) []Split {
	return newWindows(len(values)).splits(values, o, seed)
}

func (w *windows) splits(values []float64, o Options, seed uint64) []Split {
	n := len(values)
	if n < 2*o.MinSize {
		return nil
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	w.bounds = append(w.bounds[:0], 0, n) // segment edges, sorted
	var out []Split
	rank := ranksInto(values, w.idx[:n], w.rank[:n])
	byRank := w.byRank[:n+1]
	for i, r := range rank {
		byRank[r] = values[i]
	}
	for o.MaxChanges <= 0 || len(out) < o.MaxChanges {
		for i := 0; i+1 < len(w.bounds); i++ {
			w.work.totals(byRank, rank[w.bounds[i]:w.bounds[i+1]])
		}
		// The best split of every segment, and how often the largest
		// statistic over all segments, with each segment's values
		// shuffled, reaches it.
		q, at := w.bestSplit(values, rank, o.MinSize)
		if at < 0 {
			break
		}
		copy(w.pv, values)
		copy(w.pr, rank)
		if p, ok := w.test(rng, o, o.Alpha, q, w.shuffledSplit(o.MinSize)); ok {
			out = append(out, Split{Index: at, Q: q, P: p, Order: len(out)})
			w.bounds = append(w.bounds, at)
			slices.Sort(w.bounds)
			continue
		}
		// No segment splits in two: does one hold a short stretch at
		// another level (a regression fixed a few runs later)?
		if o.MaxChanges > 0 && len(out)+2 > o.MaxChanges {
			break
		}
		q, from, to := w.bestBump(values, o.MinSize)
		if from < 0 {
			break
		}
		p, ok := w.test(rng, o, o.Alpha*bumpShare, q, w.shuffledBump(o.MinSize))
		if !ok {
			break
		}
		out = append(out, Split{Index: from, Q: q, P: p, Order: len(out)}, Split{Index: to, Q: q, P: p, Order: len(out) + 1})
		w.bounds = append(w.bounds, from, to)
		slices.Sort(w.bounds)
	}
	slices.SortFunc(out, func(a, b Split) int { return cmp.Compare(a.Index, b.Index) })
	return out
}

// bestSplit returns the largest E-divisive statistic over the splits of
// every segment of values, and where it is (-1: no segment can split).
func (w *windows) bestSplit(values []float64, rank []int, minSize int) (float64, int) {
	bestQ, bestAt := math.Inf(-1), -1
	for i := 0; i+1 < len(w.bounds); i++ {
		a, b := w.bounds[i], w.bounds[i+1]
		if q, at := w.work.best(values[a:b], rank[a:b], minSize); at >= 0 && q > bestQ {
			bestQ, bestAt = q, a+at
		}
	}
	return bestQ, bestAt
}

// shuffledSplit returns a draw of the permutation test of bestSplit: it
// shuffles every segment of the permuted series w.pv (and its ranks w.pr)
// and returns the largest statistic over them.
func (w *windows) shuffledSplit(minSize int) func(*rand.Rand) float64 {
	return func(rng *rand.Rand) float64 {
		maxQ := math.Inf(-1)
		for i := 0; i+1 < len(w.bounds); i++ {
			a, b := w.bounds[i], w.bounds[i+1]
			sv, sr := w.pv[a:b], w.pr[a:b]
			rng.Shuffle(len(sv), func(x, y int) {
				sv[x], sv[y] = sv[y], sv[x]
				sr[x], sr[y] = sr[y], sr[x]
			})
			if q, at := w.work.best(sv, sr, minSize); at >= 0 {
				maxQ = max(maxQ, q)
			}
		}
		return maxQ
	}
}

// test is the permutation test of an observed statistic: draw returns
// the statistic of one random permutation. It reports p and whether p ≤
// alpha.
//
// p is the share of permutations whose statistic reached the observed
// one, (1 + reached) / (1 + drawn), while tailFrom or more did; with
// fewer, it is the tail of the permutation distribution beyond the
// observed statistic as a generalized Pareto distribution fitted to the
// largest draws estimates it (tailP), so that p is not floored at
// 1/(1 + Permutations) where the answer is clearly finer.
//
// Drawing stops as soon as p can no longer be ≤ alpha, or is all but
// certain not to be (stopTable); and, with none reached, at a checkpoint
// (checkpoint) where the tail puts p under alpha/tailMargin: a clear
// change needs 199 draws, or 399, not Permutations.
func (w *windows) test(rng *rand.Rand, o Options, alpha, observed float64, draw func(*rand.Rand) float64) (float64, bool) {
	reached, drawn := 0, 0
	limit := max(1, int(alpha*float64(o.Permutations+1))) // counted, p ≤ α ⇔ 1+reached ≤ limit
	stop := w.stopTable(o, alpha, limit)
	w.draws = w.draws[:0]
	for drawn < o.Permutations && 1+reached <= limit && (drawn == 0 || reached < stop[drawn]) {
		drawn++
		q := draw(rng)
		w.draws = append(w.draws, q)
		if q >= observed {
			reached++
		}
		if reached == 0 && drawn < o.Permutations && checkpoint(drawn) {
			if p := tailP(w.draws, observed); p <= alpha/tailMargin {
				return p, true
			}
		}
	}
	if drawn < o.Permutations || 1+reached > limit {
		return 1, false
	}
	p := float64(1+reached) / float64(1+drawn)
	if reached < tailFrom {
		p = min(p, tailP(w.draws, observed))
	}
	return p, p <= alpha
}

// tailFrom: with this many permutations or more reaching the observed
// statistic, their share is p; with fewer, the fitted tail is.
const tailFrom = 10

// tailMargin: drawing stops early when the tail puts p under
// alpha/tailMargin.
const tailMargin = 10

// pFloor is the smallest p reported: beyond it the fitted tail says
// nothing a reader could use.
const pFloor = 1e-9

// checkpoint reports whether the tail is fitted after d draws: 199, 399
// and 799.
func checkpoint(d int) bool { return d == 199 || d == 399 || d == 799 }

// tailP estimates the probability that a permutation's statistic reaches
// observed from the draws so far (Knijnenburg et al., "Fewer permutations,
// more accurate P-values", Bioinformatics 2009): the largest quarter of
// them, up to 250, exceed a threshold t; their excesses are fitted with a
// generalized Pareto distribution by moments, and p is the share of draws
// beyond t times that distribution's tail beyond observed − t. It sorts
// draws.
func tailP(draws []float64, observed float64) float64 {
	n := len(draws)
	k := min(250, (n+1)/4)
	if k < 10 {
		return 1
	}
	slices.Sort(draws)
	t := (draws[n-k-1] + draws[n-k]) / 2
	mean, sq := 0.0, 0.0
	for _, x := range draws[n-k:] {
		mean += x - t
		sq += (x - t) * (x - t)
	}
	mean /= float64(k)
	v := sq/float64(k) - mean*mean
	if v <= 0 || mean <= 0 {
		return pFloor
	}
	// A bounded tail (ξ < 0) fitted to a few hundred excesses can end
	// short of where the permutation distribution does, and p would come
	// out far too small: the fit is held to ξ ≥ 0, an exponential tail or
	// a heavier one.
	xi := max(0, 0.5*(1-mean*mean/v))
	sigma := mean * (1 - xi) // the mean excess of a GPD is σ/(1−ξ)
	z := (observed - t) / sigma
	var tail float64
	switch {
	case math.Abs(xi) < 1e-9:
		tail = math.Exp(-z)
	case 1+xi*z <= 0: // beyond a bounded tail's end
		tail = 0
	default:
		tail = math.Pow(1+xi*z, -1/xi)
	}
	return max(pFloor, float64(k)/float64(n)*tail)
}

// ranks returns the rank (1…n) of every value; equal values get distinct
// ranks, which the sums of distances do not notice.
func ranks(values []float64) []int {
	return ranksInto(values, make([]int, len(values)), make([]int, len(values)))
}

func ranksInto(values []float64, idx, r []int) []int {
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(values[a], values[b]) })
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
	dist        []float64 // each value's summed distance to those passed
	cnt, sum    []float64 // Fenwick trees over the series' ranks, all zero between uses
	// total holds, by rank, each value's summed distance to every other
	// value of its segment (see totals): the same however the segment is
	// shuffled.
	total  []float64
	sorted []int
	// coef holds best's factors for segments of coefM values.
	coef  []float64
	coefM int
}

func newScratch(n int) *scratch {
	return &scratch{left: make([]float64, n+1), right: make([]float64, n+1), dist: make([]float64, n), cnt: make([]float64, n+1), sum: make([]float64, n+1),
		total: make([]float64, n+1), sorted: make([]int, n)}
}

// totals sets total for the values of one segment, given by their ranks
// (byRank holds the value of each rank): sorted, the k-th of m values v
// is v·k − (the sum of those below) above them and (the sum of those
// above) − v·(m−1−k) below.
func (s *scratch) totals(byRank []float64, rank []int) {
	m := len(rank)
	sorted := s.sorted[:m]
	copy(sorted, rank)
	slices.Sort(sorted)
	all := 0.0
	for _, r := range sorted {
		all += byRank[r]
	}
	below := 0.0
	for k, r := range sorted {
		v := byRank[r]
		s.total[r] = v*float64(k) - below + (all - below - v) - v*float64(m-1-k)
		below += v
	}
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
	coef := s.coefs(m)
	for t := minSize; t <= m-minSize; t++ {
		c := coef[4*t : 4*t+4]
		cross := total - left[t] - right[t]
		e := cross*c[0] - left[t]*c[1] - right[t]*c[2]
		if q := c[3] * e; q > bestQ {
			bestQ, bestAt = q, t
		}
	}
	return bestQ, bestAt
}

// coefs returns, for each split t of m values, best's factors 2/(a·b),
// 2/(a(a−1)), 2/(b(b−1)) and a·b/m, with a = t and b = m − t.
func (s *scratch) coefs(m int) []float64 {
	if s.coefM == m && s.coef != nil {
		return s.coef
	}
	s.coef = slices.Grow(s.coef[:0], 4*(m+1))[:4*(m+1)]
	fm := float64(m)
	for t := 1; t < m; t++ {
		a, b := float64(t), float64(m-t)
		s.coef[4*t], s.coef[4*t+1], s.coef[4*t+2], s.coef[4*t+3] = 2/(a*b), 2/(a*(a-1)), 2/(b*(b-1)), a*b/fm
	}
	s.coefM = m
	return s.coef
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
// in Fenwick trees indexed by rank. The totals of x's values must be set
// (totals).
func (s *scratch) withinFenwick(x []float64, rank []int, left, right []float64) {
	m := len(x)
	// The distances of each value to those before it, summed up from the
	// start; those to the values after it are the rest of its total
	// (totals), summed up from the end.
	d := s.dist[:m]
	s.pass(x, rank, d)
	left[0] = 0
	for k, v := range d {
		left[k+1] = left[k] + v
	}
	right[m] = 0
	for k := m - 1; k >= 0; k-- {
		right[k] = right[k+1] + s.total[rank[k]] - d[k]
	}
}

// pass walks x, setting out[k] to the summed distance of x[k] to the
// values before it, and leaves the trees zero again.
func (s *scratch) pass(x []float64, rank []int, out []float64) {
	cnt, sum := s.cnt, s.sum
	n := len(cnt) - 1
	seenSum, seen := 0.0, 0.0
	for k, v := range x {
		r := rank[k]
		var c, sm float64
		for j := r; j > 0; j &= j - 1 {
			c += cnt[j]
			sm += sum[j]
		}
		out[k] = c*v - sm + (seenSum - sm) - (seen-c)*v
		for j := r; j <= n; j += j & -j {
			cnt[j]++
			sum[j] += v
		}
		seenSum += v
		seen++
	}
	if n <= 8*len(x) {
		clear(cnt)
		clear(sum)
		return
	}
	for k := range x {
		for j := rank[k]; j <= n && cnt[j] != 0; j += j & -j {
			cnt[j], sum[j] = 0, 0
		}
	}
}

// Outliers: a run further than spikeK robust standard deviations from the
// median of the 2·spikeW+1 runs around it, and from the medians of the
// spikeW runs on each side, is left out before splitting (a Hampel
// filter).
const (
	spikeW = 4
	spikeK = 5.0
)

// despike returns values without their lone outliers, and the run of
// each value kept, so that one slow run cannot pass for a change of level.
// The standard deviation comes from the median absolute difference of
// consecutive runs, which a change of level barely moves; with noise
// alone the filter leaves out almost nothing, so the permutation test
// keeps its level. A change that lasts spikeW+1 runs or more is the
// median of its own neighbourhood and is kept. A run is an outlier only
// when it is far from the median of the runs around it and from those of
// the spikeW runs before it and after it: right after a change, the runs
// around one still at the old level are mostly the new level's, but those
// before it are not. An outlier is left out
// rather than replaced by the median around it: next to a change of level
// that median may be the other level's, which would move the change.
func despike(values []float64) (kept []float64, runs []int) {
	n := len(values)
	runs = make([]int, 0, n)
	if n < 3 {
		for i := range values {
			runs = append(runs, i)
		}
		return values, runs
	}
	limit := spikeK * diffSigma(values, make([]float64, n-1))
	buf := make([]float64, 0, 2*spikeW+1)
	kept = values[:0:0]
	near := func(v float64, around []float64) bool {
		return len(around) > 0 && math.Abs(v-median(append(buf[:0], around...))) <= limit
	}
	for i, v := range values {
		lo, hi := max(0, i-spikeW), min(n, i+spikeW+1)
		if near(v, values[lo:hi]) || near(v, values[lo:i]) || near(v, values[i+1:hi]) {
			kept = append(kept, v)
			runs = append(runs, i)
		}
	}
	return kept, runs
}

// diffSigma estimates the standard deviation of x's noise from its
// consecutive differences, which a change of level barely moves:
// 1.4826·MAD estimates σ of a Gaussian, and a difference of two runs has
// √2 σ. buf holds len(x)−1 values of scratch.
func diffSigma(x, buf []float64) float64 {
	d := buf[:len(x)-1]
	for i := range d {
		d[i] = math.Abs(x[i+1] - x[i])
	}
	return 1.4826 * median(d) / math.Sqrt2
}

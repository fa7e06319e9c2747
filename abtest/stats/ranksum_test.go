package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRankSumRExample(t *testing.T) {
	t.Parallel()
	// The two-sample example of R's ?wilcox.test (Hollander & Wolfe 1973,
	// p. 69, permeability constants): wilcox.test(x, y, alternative =
	// "greater") prints W = 35, p-value = 0.1272. R's W is our U with x as
	// sample B; the two-sided p is twice the one-sided.
	x := []float64{0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46}
	y := []float64{1.15, 0.88, 0.90, 0.74, 1.21}
	got, err := RankSum(y, x)
	require.NoError(t, err)
	assert.Equal(t, 35.0, got.U)
	assert.Equal(t, 35.0+55, got.W)
	assert.True(t, got.Exact)
	assert.False(t, got.Ties)
	assert.InDelta(t, 2*0.1272, got.P, 2e-4)
	// Swapping the samples mirrors U and keeps p.
	back, err := RankSum(x, y)
	require.NoError(t, err)
	assert.Equal(t, 50-35.0, back.U)
	assert.InDelta(t, got.P, back.P, 1e-15)
}

func TestRankSumCompleteSeparation(t *testing.T) {
	t.Parallel()
	// All of B above all of A: U is n_a·n_b and only one of the C(N, n_b)
	// rank sets reaches it, so p = 2/C(N, n_b).
	for _, tc := range []struct {
		na, nb int
		p      float64
	}{{3, 3, 2.0 / 20}, {5, 5, 2.0 / 252}, {4, 6, 2.0 / 210}, {1, 1, 1}, {1, 2, 2.0 / 3}, {2, 2, 2.0 / 6}} {
		var a, b []float64
		for i := range tc.na {
			a = append(a, float64(i))
		}
		for i := range tc.nb {
			b = append(b, float64(100+i))
		}
		got, err := RankSum(a, b)
		require.NoError(t, err)
		assert.Equal(t, float64(tc.na*tc.nb), got.U)
		assert.InDelta(t, tc.p, got.P, 1e-15, "%d vs %d", tc.na, tc.nb)
	}
}

func TestRankSumExactMatchesEnumeration(t *testing.T) {
	t.Parallel()
	// Enumerate every choice of n_b of the ranks 1..N, tally U, and compare
	// each two-sided p with the recursion's.
	for n := 2; n <= 12; n++ {
		for nb := 1; nb < n; nb++ {
			na := n - nb
			count := make([]int, na*nb+1)
			total := 0
			for mask := 0; mask < 1<<n; mask++ {
				if popcount(mask) != nb {
					continue
				}
				sum := 0
				for k := range n {
					if mask&(1<<k) != 0 {
						sum += k + 1
					}
				}
				count[sum-nb*(nb+1)/2]++
				total++
			}
			for u := range count {
				lo, hi := 0, 0
				for s, c := range count {
					if s <= u {
						lo += c
					}
					if s >= u {
						hi += c
					}
				}
				want := math.Min(1, 2*float64(min(lo, hi))/float64(total))
				assert.InDelta(t, want, rankSumP(na, nb, u), 1e-12, "na=%d nb=%d u=%d", na, nb, u)
			}
		}
	}
}

func popcount(x int) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

func TestRankSumTieVarianceIsThePermutationVariance(t *testing.T) {
	t.Parallel()
	// With ties, the normal approximation's variance must be the exact
	// variance of U over every assignment of the midranks to the samples.
	a := []float64{1, 2, 2, 3, 3, 3}
	b := []float64{2, 3, 4, 4, 5}
	pool := append(append([]float64{}, a...), b...)
	n, nb := len(pool), len(b)
	ranks := midranks(pool)
	var sum, sum2 float64
	cnt := 0
	for mask := 0; mask < 1<<n; mask++ {
		if popcount(mask) != nb {
			continue
		}
		w := 0.0
		for k := range n {
			if mask&(1<<k) != 0 {
				w += ranks[k]
			}
		}
		u := w - float64(nb*(nb+1)/2)
		sum += u
		sum2 += u * u
		cnt++
	}
	mean := sum / float64(cnt)
	variance := sum2/float64(cnt) - mean*mean
	got, err := RankSum(a, b)
	require.NoError(t, err)
	require.True(t, got.Ties)
	require.False(t, got.Exact)
	assert.InDelta(t, float64(len(a)*nb)/2, mean, 1e-9)
	// Σ(t³−t): 2's (t=3): 24; 3's (t=4): 60; 4's (t=2): 6.
	assert.InDelta(t, variance, rankSumVariance(float64(len(a)), float64(nb), 24+60+6), 1e-9)
	// And the z it reports uses that variance with the continuity correction.
	wantZ := (got.U - mean - 0.5*math.Copysign(1, got.U-mean)) / math.Sqrt(variance)
	assert.InDelta(t, wantZ, got.Z, 1e-9)
}

func midranks(x []float64) []float64 {
	r := make([]float64, len(x))
	for i, v := range x {
		less, eq := 0, 0
		for _, w := range x {
			if w < v {
				less++
			} else if w == v {
				eq++
			}
		}
		r[i] = float64(less) + float64(eq+1)/2
	}
	return r
}

func TestRankSumNormalApproximationNearExact(t *testing.T) {
	t.Parallel()
	// At 50 per arm (where RankSum switches to the normal approximation)
	// the approximation is within 0.005 of the exact p.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5 {
		var a, b []float64
		for range 50 {
			a = append(a, rng.NormFloat64())
			b = append(b, rng.NormFloat64()+0.3)
		}
		got, err := RankSum(a, b)
		require.NoError(t, err)
		require.False(t, got.Exact)
		exact := rankSumP(50, 50, int(got.U))
		assert.InDelta(t, exact, got.P, 0.005)
	}
}

func TestRankSumErrors(t *testing.T) {
	t.Parallel()
	_, err := RankSum(nil, []float64{1})
	assert.ErrorIs(t, err, ErrTooFew)
	_, err = RankSum([]float64{1}, []float64{math.NaN()})
	assert.ErrorIs(t, err, ErrNotFinite)
	got, err := RankSum([]float64{2, 2}, []float64{2, 2, 2})
	require.NoError(t, err)
	assert.Equal(t, 1.0, got.P, "all values equal: no evidence")
}

func TestRankSumNullRejectionRate(t *testing.T) {
	t.Parallel()
	// Under the null the two-sided p falls below 0.05 in at most about 5%
	// of samples (the exact test is conservative).
	rng := rand.New(rand.NewPCG(3, 4))
	rej := 0
	const reps = 2000
	for range reps {
		var a, b []float64
		for range 8 {
			a = append(a, rng.ExpFloat64())
			b = append(b, rng.ExpFloat64())
		}
		r, err := RankSum(a, b)
		require.NoError(t, err)
		if r.P < 0.05 {
			rej++
		}
	}
	assert.InDelta(t, 0.05, float64(rej)/reps, 0.015)
}

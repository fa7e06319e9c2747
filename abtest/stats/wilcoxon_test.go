package stats

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWilcoxonRExample(t *testing.T) {
	t.Parallel()
	// The paired example of R's ?wilcox.test (Hollander & Wolfe 1973, p.
	// 29, depression scale before and after): R prints V = 40,
	// p-value = 0.03906. By hand: the differences ranked by |d| are
	// 0.01 0.08 0.147 0.43 0.49 0.59 0.62 0.952 1.022 with the second and
	// third negative, so W− = 5 and W+ = 40; 10 of the 512 subsets of
	// {1..9} sum to 5 or less, and p = 2·10/512 = 0.0390625.
	x := []float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30}
	y := []float64{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29}
	d := make([]float64, len(x))
	for i := range x {
		d[i] = x[i] - y[i]
	}
	got, err := Wilcoxon(d)
	require.NoError(t, err)
	assert.Equal(t, 9, got.N)
	assert.Equal(t, 40.0, got.WPlus)
	assert.Equal(t, 5.0, got.WMinus)
	assert.True(t, got.Exact)
	assert.True(t, math.IsNaN(got.Z))
	assert.InDelta(t, 20.0/512, got.P, 1e-15)
}

func TestWilcoxonPublishedCriticalValues(t *testing.T) {
	t.Parallel()
	// Two-sided α = 0.05 critical values T of the signed-rank statistic
	// (e.g. Zar 2010, Biostatistical Analysis, 5th ed., Table B.12; the
	// same in every textbook table): the test rejects when min(W+, W−) ≤ T,
	// so P at T is at most 0.05 and P at T + 1 above it.
	table := map[int]int{6: 0, 7: 2, 8: 3, 9: 5, 10: 8, 11: 10, 12: 13, 13: 17, 14: 21, 15: 25,
		16: 29, 17: 34, 18: 40, 19: 46, 20: 52, 25: 89, 30: 137}
	for n, crit := range table {
		assert.LessOrEqual(t, signedRankP(n, crit), 0.05, "n = %d, T = %d", n, crit)
		assert.Greater(t, signedRankP(n, crit+1), 0.05, "n = %d, T + 1 = %d", n, crit+1)
	}
	// n = 5 has no critical value: even W+ = 0 gives 2/32.
	assert.InDelta(t, 0.0625, signedRankP(5, 0), 1e-15)
}

func TestWilcoxonExactMatchesEnumeration(t *testing.T) {
	t.Parallel()
	// Enumerate all 2ⁿ sign patterns of ranks 1..n, tally W+ and compare
	// every two-sided p with the recursion's.
	for n := 1; n <= 12; n++ {
		maxS := n * (n + 1) / 2
		count := make([]int, maxS+1)
		for mask := 0; mask < 1<<n; mask++ {
			w := 0
			for k := range n {
				if mask&(1<<k) != 0 {
					w += k + 1
				}
			}
			count[w]++
		}
		for w := 0; w <= maxS; w++ {
			var lo, hi int
			for s, c := range count {
				if s <= w {
					lo += c
				}
				if s >= w {
					hi += c
				}
			}
			want := math.Min(1, 2*float64(min(lo, hi))/float64(int(1)<<n))
			assert.InDelta(t, want, signedRankP(n, w), 1e-15, "n = %d, W+ = %d", n, w)
		}
	}
}

func TestWilcoxonNormalApproximation(t *testing.T) {
	t.Parallel()
	t.Run("ties", func(t *testing.T) {
		// d = 1 −1 2 2 2 3 −4 5 6 and a zero. The zero is dropped (N = 9).
		// Ranks by |d|: the two 1s share 1.5, the three 2s share 4, then
		// 6 7 8 9. W+ = 1.5 + 3·4 + 6 + 8 + 9 = 36.5, W− = 8.5. Mean
		// 9·10/4 = 22.5; variance 9·10·19/24 − ((2³−2) + (3³−3))/48 =
		// 71.25 − 0.625 = 70.625; z = (36.5 − 22.5 − 0.5)/√70.625 =
		// 1.606403; p = 2·(1 − Φ(z)) = 0.108185.
		got, err := Wilcoxon([]float64{1, -1, 2, 2, 2, 3, -4, 5, 6, 0})
		require.NoError(t, err)
		assert.Equal(t, 9, got.N)
		assert.Equal(t, 1, got.Zeros)
		assert.True(t, got.Ties)
		assert.False(t, got.Exact)
		assert.Equal(t, 36.5, got.WPlus)
		assert.Equal(t, 8.5, got.WMinus)
		assert.InDelta(t, 1.606403, got.Z, 1e-6)
		assert.InDelta(t, 0.108185, got.P, 1e-6)
	})
	t.Run("more than 50", func(t *testing.T) {
		// n = 60 with ranks 1..10 negative: W− = 55, W+ = 1775, mean 915,
		// SD √(60·61·121/24) = 135.83, z = (1775 − 915 − 0.5)/135.83 =
		// 6.327298, p = 2.494916e-10.
		d := make([]float64, 60)
		for i := range d {
			d[i] = float64(i + 1)
			if i < 10 {
				d[i] = -d[i]
			}
		}
		got, err := Wilcoxon(d)
		require.NoError(t, err)
		assert.False(t, got.Exact)
		assert.False(t, got.Ties)
		assert.Equal(t, 1775.0, got.WPlus)
		assert.InDelta(t, 6.327298, got.Z, 1e-6)
		assert.InDelta(t, 2.494916e-10, got.P, 1e-15)
	})
	t.Run("agrees with exact at 50", func(t *testing.T) {
		for _, w := range []int{300, 450, 637} {
			exact := signedRankP(50, w)
			mean, sd := 50.0*51/4, math.Sqrt(50.0*51*101/24)
			z := (math.Abs(float64(w)-mean) - 0.5) / sd
			approx := math.Erfc(z / math.Sqrt2)
			assert.InDelta(t, exact, approx, 0.002, "W+ = %d", w)
		}
	})
	t.Run("continuity correction never crosses the mean", func(t *testing.T) {
		// d = 1 −1 2 −2: midranks 1.5 1.5 3.5 3.5, W+ = 5, exactly the mean
		// 4·5/4. The correction moves W+ by min(|W+ − mean|, 0.5) = 0, so
		// z = 0 and p = 1, not a correction past the mean.
		got, err := Wilcoxon([]float64{1, -1, 2, -2})
		require.NoError(t, err)
		assert.Equal(t, 5.0, got.WPlus)
		assert.Equal(t, 0.0, got.Z)
		assert.Equal(t, 1.0, got.P)
	})
}

func TestWilcoxonEdges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		d     []float64
		err   error
		n     int
		zeros int
		p     float64
	}{
		{name: "empty", d: nil, err: ErrTooFew, p: math.NaN()},
		{name: "NaN", d: []float64{1, math.NaN()}, err: ErrNotFinite, p: math.NaN()},
		{name: "Inf", d: []float64{math.Inf(-1)}, err: ErrNotFinite, p: math.NaN()},
		{name: "one", d: []float64{0.1}, n: 1, p: 1},
		{name: "two", d: []float64{0.1, 0.2}, n: 2, p: 0.5},
		{name: "all zero", d: []float64{0, 0, 0}, zeros: 3, p: 1},
		{name: "zeros dropped", d: []float64{0, 1, 2, 0, 3, 4, 5, 6}, n: 6, zeros: 2, p: 0.03125},
		{name: "five unanimous", d: []float64{-1, -2, -3, -4, -5}, n: 5, p: 0.0625},
		{name: "two tied", d: []float64{1, 1}, n: 2, p: math.Erfc((3 - 1.5 - 0.5) / math.Sqrt(1.25-0.125) / math.Sqrt2)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Wilcoxon(tc.d)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				assert.Contains(t, err.Error(), "wilcoxon signed-rank test: ")
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tc.n, got.N)
			assert.Equal(t, tc.zeros, got.Zeros)
			assertSame(t, tc.p, got.P, "P")
		})
	}
}

func TestSignTest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		k, n int
		want float64
	}{
		{5, 5, 0.0625},    // 2/2⁵: unanimity over 5 rounds is not a 5% test
		{0, 5, 0.0625},    // the same, the other way
		{6, 6, 0.03125},   // 2/2⁶
		{3, 6, 1},         // capped at 1
		{8, 10, 0.109375}, // 2·(45 + 10 + 1)/1024
		{2, 10, 0.109375},
		{9, 10, 0.021484375}, // 2·11/1024
		{0, 0, 1},
		{1, 1, 1},
		{500, 1000, 1},
		{60, 100, 0.05688793364098079}, // 2·Σ_{i≤40} C(100, i)/2¹⁰⁰; R's binom.test(60, 100) prints 0.05689
		{-1, 3, math.NaN()},
		{4, 3, math.NaN()},
		{0, -1, math.NaN()},
	}
	for _, tc := range tests {
		assertSame(t, tc.want, SignTest(tc.k, tc.n), "SignTest")
	}
}

func TestSignTestExactAgreesWithBeta(t *testing.T) {
	t.Parallel()
	// The integer count (n ≤ 62) and gonum's incomplete beta (above) agree.
	for n := 1; n <= exactSignMaxN; n++ {
		for k := 0; k <= n; k++ {
			beta := math.Min(1, 2*distuv.Binomial{N: float64(n), P: 0.5}.CDF(float64(n-max(k, n-k))))
			assert.InDelta(t, beta, SignTest(k, n), 1e-12, "k = %d, n = %d", k, n)
		}
	}
}

func TestSignAgreement(t *testing.T) {
	t.Parallel()
	d := []float64{1, 2, -1, 0, 3}
	got := signAgreement(d, 0.5)
	assert.Equal(t, SignResult{Agree: 3, N: 4, Zeros: 1, P: SignTest(3, 4)}, got)
	got = signAgreement(d, -0.5)
	assert.Equal(t, 1, got.Agree)
	got = signAgreement(d, 0)
	assert.Equal(t, 3, got.Agree, "Δ = 0 reports the larger side")
}

func TestHolm(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		p    []float64
		want []float64
	}{
		// Holm 1979's procedure on the example of Wikipedia's
		// "Holm–Bonferroni method" and R's p.adjust(p, "holm"):
		// sorted 0.005 0.01 0.03 0.04 times 4 3 2 1 is 0.02 0.03 0.06 0.04,
		// made monotone 0.02 0.03 0.06 0.06.
		{"textbook", []float64{0.01, 0.04, 0.03, 0.005}, []float64{0.03, 0.06, 0.06, 0.02}},
		{"capped at 1", []float64{0.5, 0.4, 0.9}, []float64{1, 1, 1}},
		{"one", []float64{0.03}, []float64{0.03}},
		{"empty", []float64{}, []float64{}},
		{"ties", []float64{0.01, 0.01, 0.2}, []float64{0.03, 0.03, 0.2}},
		{"NaN is not a test", []float64{0.01, math.NaN(), 0.02}, []float64{0.02, math.NaN(), 0.02}},
		{"out of range is not a test", []float64{-0.1, 0.02, 1.5}, []float64{math.NaN(), 0.02, math.NaN()}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := append([]float64(nil), tc.p...)
			got := Holm(tc.p)
			require.Len(t, got, len(tc.want))
			for i := range got {
				assertSame(t, tc.want[i], got[i], "adjusted p")
			}
			for i := range in {
				assertSame(t, in[i], tc.p[i], "input left alone")
			}
		})
	}
}

package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomRounds draws R rounds of positive block statistics with a random
// effect, noise and, half the time, values rounded to make ties and zero
// differences common.
func randomRounds(rng *rand.Rand) (a, b []float64) {
	r := 2 + rng.IntN(40)
	effect := rng.NormFloat64() * 0.05
	noise := 0.001 + 0.05*rng.Float64()
	round := rng.IntN(2) == 0
	a = make([]float64, r)
	b = make([]float64, r)
	for i := range a {
		base := 100 * math.Exp(0.2*rng.NormFloat64())
		a[i] = base * math.Exp(noise*rng.NormFloat64())
		b[i] = base * math.Exp(effect+noise*rng.NormFloat64())
		if round {
			a[i], b[i] = math.Round(a[i]), math.Round(b[i])
			a[i], b[i] = math.Max(a[i], 1), math.Max(b[i], 1)
		}
	}
	return a, b
}

func TestPropertySwapArms(t *testing.T) {
	t.Parallel()
	// Swapping A and B negates every log-ratio: ln(1+Δ) and the interval's
	// log bounds change sign and swap, the tests' p-values are unchanged,
	// and a faster call becomes a slower one.
	rng := rand.New(rand.NewPCG(11, 12))
	for i := range 2000 {
		a, b := randomRounds(rng)
		ab, err := Paired(a, b, PairedOptions{})
		require.NoError(t, err)
		ba, err := Paired(b, a, PairedOptions{})
		require.NoError(t, err)
		assert.InDelta(t, -ab.LogMean, ba.LogMean, 1e-12, "case %d", i)
		assert.InDelta(t, 1, (1+ab.Delta)*(1+ba.Delta), 1e-12, "case %d", i)
		assert.InDelta(t, -math.Log1p(ab.CI.Hi), math.Log1p(ba.CI.Lo), 1e-9, "case %d", i)
		assert.InDelta(t, -math.Log1p(ab.CI.Lo), math.Log1p(ba.CI.Hi), 1e-9, "case %d", i)
		assert.InDelta(t, ab.SW, ba.SW, 1e-12, "case %d", i)
		assert.Equal(t, ab.Wilcoxon.WPlus, ba.Wilcoxon.WMinus, "case %d", i)
		assert.InDelta(t, ab.Wilcoxon.P, ba.Wilcoxon.P, 1e-12, "case %d", i)
		assert.Equal(t, ab.Sign.Agree, ba.Sign.Agree, "case %d", i)
		assert.Equal(t, ab.Sign.P, ba.Sign.P, "case %d", i)
		if Decide(ab.Delta, ab.CI, ab.R, DefaultMargin).Call == Faster {
			assert.Equal(t, Slower, Decide(ba.Delta, ba.CI, ba.R, DefaultMargin).Call, "case %d", i)
		}
	}
}

func TestPropertyIntervalsAndScale(t *testing.T) {
	t.Parallel()
	// The interval contains Δ; multiplying both arms by one constant
	// (another time unit) changes nothing.
	rng := rand.New(rand.NewPCG(13, 14))
	for i := range 2000 {
		a, b := randomRounds(rng)
		p, err := Paired(a, b, PairedOptions{Bootstrap: 50, Seed: uint64(i)})
		require.NoError(t, err)
		assert.True(t, p.CI.Lo <= p.Delta && p.Delta <= p.CI.Hi, "case %d: %v not in %v", i, p.Delta, p.CI)
		assert.LessOrEqual(t, p.Boot.Lo, p.Boot.Hi, "case %d", i)
		assert.True(t, p.Wilcoxon.P > 0 && p.Wilcoxon.P <= 1, "case %d", i)
		assert.True(t, p.Sign.P > 0 && p.Sign.P <= 1, "case %d", i)
		const c = 1e-3
		sa, sb := scaled(a, c), scaled(b, c)
		q, err := Paired(sa, sb, PairedOptions{})
		require.NoError(t, err)
		assert.InDelta(t, p.Delta, q.Delta, 1e-12, "case %d", i)
		assert.InDelta(t, p.CI.Hi, q.CI.Hi, 1e-12, "case %d", i)
	}
}

func TestPropertyDescribe(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(15, 16))
	for i := range 2000 {
		n := 1 + rng.IntN(60)
		x := make([]float64, n)
		for j := range x {
			x[j] = math.Round(10*rng.ExpFloat64()) / 2
		}
		trim := rng.IntN(n/2 + 1)
		s, err := Describe(x, trim)
		if 2*trim >= n {
			require.ErrorIs(t, err, ErrTooFew)
			continue
		}
		require.NoError(t, err)
		assert.LessOrEqual(t, s.Min, s.Median, "case %d", i)
		assert.LessOrEqual(t, s.Median, s.Max, "case %d", i)
		assert.LessOrEqual(t, s.Min, s.TrimmedMean+1e-12, "case %d", i)
		assert.LessOrEqual(t, s.TrimmedMean, s.Max+1e-12, "case %d", i)
		if trim == 0 {
			assert.InDelta(t, s.Mean, s.TrimmedMean, 1e-12, "case %d", i)
		}
	}
}

func TestPropertyHolm(t *testing.T) {
	t.Parallel()
	// Adjusted p-values are at least the raw ones, at most 1, and keep the
	// raw order.
	rng := rand.New(rand.NewPCG(17, 18))
	for i := range 1000 {
		p := make([]float64, rng.IntN(12))
		for j := range p {
			p[j] = rng.Float64() * rng.Float64()
		}
		adj := Holm(p)
		for j := range p {
			assert.GreaterOrEqual(t, adj[j], p[j], "case %d", i)
			assert.LessOrEqual(t, adj[j], 1.0, "case %d", i)
			for k := range p {
				if p[j] < p[k] {
					assert.LessOrEqual(t, adj[j], adj[k], "case %d", i)
				}
			}
		}
	}
}

func TestPropertyTinySamples(t *testing.T) {
	t.Parallel()
	// n = 0, 1, 2 with ties and zeros: nothing panics, and every failure is
	// an error rather than a number.
	samples := [][]float64{nil, {}, {1}, {0}, {-1}, {2, 2}, {1, 2}, {0, 0}, {3, -3}, {1, 1, 1}}
	for _, x := range samples {
		assert.NotPanics(t, func() {
			for trim := -1; trim <= 2; trim++ {
				s, err := Describe(x, trim)
				if err == nil {
					assert.False(t, math.IsNaN(s.TrimmedMean))
				}
			}
			w, err := Wilcoxon(x)
			if err == nil {
				assert.True(t, w.P >= 0 && w.P <= 1, "P = %v", w.P)
			}
			_ = Holm(x)
			if _, err := Lag1(x); len(x) < 3 {
				assert.ErrorIs(t, err, ErrTooFew)
			}
			if _, err := DriftSlope(x); len(x) < 2 {
				assert.ErrorIs(t, err, ErrTooFew)
			}
			for _, y := range samples {
				p, err := Paired(x, y, PairedOptions{Bootstrap: 10})
				if err == nil {
					assert.True(t, p.CI.Contains(p.Delta))
				} else {
					assert.True(t, math.IsNaN(p.Delta))
				}
				_, _ = DeltaMin(x, y, PairedOptions{})
			}
		}, "sample %v", x)
	}
	for n := -1; n <= 2; n++ {
		for k := -1; k <= 3; k++ {
			assert.NotPanics(t, func() { _ = SignTest(k, n) })
		}
		assert.NotPanics(t, func() { _ = MDE(0.01, n) })
	}
}

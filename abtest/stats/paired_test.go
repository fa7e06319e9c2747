package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// handRounds returns block statistics whose log-ratios are handSample/100:
// A is 1 in every round and B is exp(x/100).
func handRounds() (a, b []float64) {
	a = make([]float64, len(handSample))
	b = make([]float64, len(handSample))
	for i, x := range handSample {
		a[i] = 1
		b[i] = math.Exp(x / 100)
	}
	return a, b
}

func TestPairedKnownAnswer(t *testing.T) {
	t.Parallel()
	// d = handSample/100, so TestTrimmedTKnownAnswer scaled by 1/100:
	// trimmed mean 0.0666667, interval [0.0318023, 0.1015311] on the log
	// scale, and on the Δ scale exp(·) − 1: Δ = 0.0689391,
	// CI [0.0323134, 0.1068643].
	a, b := handRounds()
	got, err := Paired(a, b, PairedOptions{})
	require.NoError(t, err)
	assert.Equal(t, 10, got.R)
	assert.Equal(t, 0.95, got.Level)
	assert.InDelta(t, 0.0666667, got.LogMean, 1e-7)
	assert.InDelta(t, 0.0689391, got.Delta, 1e-7)
	assert.InDelta(t, 0.0323134, got.CI.Lo, 1e-7)
	assert.InDelta(t, 0.1068643, got.CI.Hi, 1e-7)
	assert.InDelta(t, 0.02573368, got.SW, 1e-8)
	assert.Equal(t, 5, got.DF)
	// All ten differences are positive and distinct: W+ = 55, p = 2/1024.
	assert.Equal(t, 55.0, got.Wilcoxon.WPlus)
	assert.InDelta(t, 2.0/1024, got.Wilcoxon.P, 1e-15)
	assert.Equal(t, SignResult{Agree: 10, N: 10, P: 2.0 / 1024}, got.Sign)
	// σ_d is the plain SD of d: sum 0.88, sum of squares 0.142, variance
	// (0.142 − 0.88²/10)/9 = 0.0071733.
	assert.InDelta(t, math.Sqrt((0.142-0.88*0.88/10)/9), got.SigmaD, 1e-12)
	// The MDE is (t(0.975, 5) + t(0.80, 5))·se with se = 0.01356284.
	assert.InDelta(t, math.Expm1((2.570582+0.919544)*0.01356284), got.MDE, 1e-6)
	assert.True(t, math.IsNaN(got.Boot.Lo) && math.IsNaN(got.Boot.Hi), "no bootstrap unless asked")
}

func TestPairedLevel(t *testing.T) {
	t.Parallel()
	a, b := handRounds()
	p95, err := Paired(a, b, PairedOptions{})
	require.NoError(t, err)
	p80, err := Paired(a, b, PairedOptions{Level: 0.8})
	require.NoError(t, err)
	assert.Equal(t, p95.Delta, p80.Delta)
	assert.Greater(t, p80.CI.Lo, p95.CI.Lo)
	assert.Less(t, p80.CI.Hi, p95.CI.Hi)
}

func TestPairedBootstrap(t *testing.T) {
	t.Parallel()
	a, b := handRounds()
	opts := PairedOptions{Bootstrap: 2000, Seed: 42}
	first, err := Paired(a, b, opts)
	require.NoError(t, err)
	again, err := Paired(a, b, opts)
	require.NoError(t, err)
	assert.Equal(t, first.Boot, again.Boot, "a seed reproduces the interval")
	opts.Seed = 43
	other, err := Paired(a, b, opts)
	require.NoError(t, err)
	assert.NotEqual(t, first.Boot, other.Boot, "another seed draws other resamples")
	// The resamples' trimmed means lie between the smallest and largest
	// rounds, and the percentile interval brackets the estimate here.
	assert.Greater(t, first.Boot.Lo, math.Expm1(0.01))
	assert.Less(t, first.Boot.Hi, math.Expm1(0.30))
	assert.True(t, first.Boot.Contains(first.Delta))
	assert.Equal(t, first.CI, other.CI, "the bootstrap leaves the trimmed-t interval alone")
}

func TestPairedEdges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b []float64
		opts PairedOptions
		err  error
	}{
		{name: "no rounds", a: nil, b: nil, err: ErrTooFew},
		{name: "one round", a: []float64{1}, b: []float64{2}, err: ErrTooFew},
		{name: "lengths differ", a: []float64{1, 2}, b: []float64{1}, err: ErrBadArg},
		{name: "zero", a: []float64{1, 0}, b: []float64{1, 1}, err: ErrNonPositive},
		{name: "negative", a: []float64{1, 1}, b: []float64{1, -1}, err: ErrNonPositive},
		{name: "NaN", a: []float64{1, math.NaN()}, b: []float64{1, 1}, err: ErrNotFinite},
		{name: "Inf", a: []float64{1, 1}, b: []float64{math.Inf(1), 1}, err: ErrNotFinite},
		{name: "level 1", a: []float64{1, 1}, b: []float64{1, 1}, opts: PairedOptions{Level: 1}, err: ErrBadArg},
		{name: "level NaN", a: []float64{1, 1}, b: []float64{1, 1}, opts: PairedOptions{Level: math.NaN()}, err: ErrBadArg},
		{name: "negative bootstrap", a: []float64{1, 1}, b: []float64{1, 1}, opts: PairedOptions{Bootstrap: -1}, err: ErrBadArg},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Paired(tc.a, tc.b, tc.opts)
			require.ErrorIs(t, err, tc.err)
			assert.Contains(t, err.Error(), "paired analysis: ")
			for _, v := range []float64{got.Delta, got.CI.Lo, got.CI.Hi, got.LogMean, got.SW, got.SigmaD, got.MDE, got.Wilcoxon.P, got.Sign.P} {
				assert.True(t, math.IsNaN(v), "numbers of a failed analysis are NaN, not a plausible 0")
			}
			assert.Equal(t, Inconclusive, Decide(got.Delta, got.CI, got.R, DefaultMargin).Call)
		})
	}
}

func TestPairedSmallSamples(t *testing.T) {
	t.Parallel()
	t.Run("two rounds", func(t *testing.T) {
		// g = 0, h = 2, df = 1: the interval is the t interval of two values.
		got, err := Paired([]float64{1, 1}, []float64{math.Exp(0.01), math.Exp(0.03)}, PairedOptions{})
		require.NoError(t, err)
		assert.Equal(t, 1, got.DF)
		assert.InDelta(t, 0.02, got.LogMean, 1e-12)
		// s_w = √2·0.01, se = s_w/(0.6·√2) = 0.01/0.6, t(0.975, 1) = 12.706205.
		assert.InDelta(t, math.Expm1(0.02+12.706205*0.01/0.6), got.CI.Hi, 1e-6)
		assert.True(t, got.CI.Contains(got.Delta))
	})
	t.Run("identical arms", func(t *testing.T) {
		a := []float64{5, 6, 7, 5, 6, 7}
		got, err := Paired(a, a, PairedOptions{})
		require.NoError(t, err)
		assert.Equal(t, 0.0, got.Delta)
		assert.Equal(t, Interval{0, 0}, got.CI)
		assert.Equal(t, 6, got.Wilcoxon.Zeros)
		assert.Equal(t, 1.0, got.Wilcoxon.P)
		assert.Equal(t, SignResult{Zeros: 6, P: 1}, got.Sign)
		assert.Equal(t, NoChange, Decide(got.Delta, got.CI, got.R, DefaultMargin).Call)
	})
	t.Run("tied ratios", func(t *testing.T) {
		got, err := Paired([]float64{1, 2, 4, 1, 2}, []float64{1.1, 2.2, 4.4, 1.1, 1.8}, PairedOptions{})
		require.NoError(t, err)
		assert.True(t, got.Wilcoxon.Ties, "four rounds share the ratio 1.1")
		assert.False(t, got.Wilcoxon.Exact)
		assert.True(t, got.CI.Contains(got.Delta))
	})
}

func TestDeltaMin(t *testing.T) {
	t.Parallel()
	aMin := []float64{10, 9, 11, 10, 12, 10}
	bMin := []float64{9.5, 9.2, 10, 9.4, 11, 9.7}
	got, err := DeltaMin(aMin, bMin, PairedOptions{})
	require.NoError(t, err)
	assert.InDelta(t, 9.2/9-1, got.Global, 1e-15, "min(B)/min(A) − 1")
	want, err := Paired(aMin, bMin, PairedOptions{})
	require.NoError(t, err)
	assert.Equal(t, want.Delta, got.Delta)
	assert.Equal(t, want.CI, got.CI)
	assert.Equal(t, want.Wilcoxon.P, got.Wilcoxon.P)
	assert.Equal(t, want.Sign, got.Sign)

	one, err := DeltaMin([]float64{10}, []float64{9}, PairedOptions{})
	require.ErrorIs(t, err, ErrTooFew)
	assert.Contains(t, err.Error(), "block minima: paired analysis: ")
	assert.InDelta(t, -0.1, one.Global, 1e-15, "the global ratio needs one round only")
	assert.True(t, math.IsNaN(one.Delta))

	bad, err := DeltaMin([]float64{10, 0}, []float64{9, 9}, PairedOptions{})
	require.ErrorIs(t, err, ErrNonPositive)
	assert.True(t, math.IsNaN(bad.Global))
}

func TestLogRatios(t *testing.T) {
	t.Parallel()
	d, err := LogRatios([]float64{1, 2, 1e-300}, []float64{math.E, 1, 1e300})
	require.NoError(t, err)
	assert.InDelta(t, 1, d[0], 1e-15)
	assert.InDelta(t, -math.Ln2, d[1], 1e-15)
	assert.InDelta(t, 600*math.Ln10, d[2], 1e-9, "no overflow in the quotient")
	_, err = LogRatios([]float64{1}, nil)
	require.ErrorIs(t, err, ErrBadArg)
	assert.Contains(t, err.Error(), "paired log-ratios: ")
	_, err = LogRatios([]float64{1}, []float64{0})
	require.ErrorIs(t, err, ErrNonPositive)
	assert.Contains(t, err.Error(), "arm B")
}

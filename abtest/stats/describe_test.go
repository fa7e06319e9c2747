package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// handSample is worked by hand in the comments of the tests that use it.
// Sorted: 1 2 4 5 6 7 8 10 15 30. Sum 88.
var handSample = []float64{2, 4, 5, 7, 8, 10, 15, 30, 1, 6}

func TestDescribeKnownAnswers(t *testing.T) {
	t.Parallel()
	// Trim 2: the mean of 4 5 6 7 8 10 is 40/6. Winsorized: 4 4 4 5 6 7 8
	// 10 10 10, mean 6.8, squared deviations 3·7.84 + 3.24 + 0.64 + 0.04 +
	// 1.44 + 3·10.24 = 59.6, so s_w = √(59.6/9).
	s, err := Describe(handSample, 2)
	require.NoError(t, err)
	assert.Equal(t, 10, s.N)
	assert.Equal(t, 2, s.Trim)
	assert.InDelta(t, 8.8, s.Mean, 1e-12)
	assert.InDelta(t, 6.5, s.Median, 1e-12)
	assert.Equal(t, 1.0, s.Min)
	assert.Equal(t, 30.0, s.Max)
	assert.InDelta(t, 40.0/6, s.TrimmedMean, 1e-12)
	assert.InDelta(t, math.Sqrt(59.6/9), s.WinsorizedSD, 1e-12)
	assert.Equal(t, []float64{2, 4, 5, 7, 8, 10, 15, 30, 1, 6}, handSample, "input left alone")
}

func TestDescribeCommunityRecipe(t *testing.T) {
	t.Parallel()
	// "Drop 10 and 10 of 50": passes 1..50 keep 11..40, whose mean is 25.5.
	passes := make([]float64, 50)
	for i := range passes {
		passes[i] = float64(50 - i)
	}
	s, err := Describe(passes, 10)
	require.NoError(t, err)
	assert.InDelta(t, 25.5, s.TrimmedMean, 1e-12)
	assert.InDelta(t, 25.5, s.Median, 1e-12)
	assert.Equal(t, 1.0, s.Min)
}

func TestDescribeEdges(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	tests := []struct {
		name    string
		passes  []float64
		trim    int
		err     error
		want    Summary // compared field by field, NaN matching NaN
		partial bool    // with err, N/Mean/Median/Min/Max are still set
	}{
		{name: "empty", passes: nil, err: ErrTooFew, want: Summary{Mean: nan, Median: nan, Min: nan, Max: nan, TrimmedMean: nan, WinsorizedSD: nan}},
		{name: "one", passes: []float64{3}, want: Summary{N: 1, Mean: 3, Median: 3, Min: 3, Max: 3, TrimmedMean: 3, WinsorizedSD: nan}},
		{name: "two", passes: []float64{3, 5}, want: Summary{N: 2, Mean: 4, Median: 4, Min: 3, Max: 5, TrimmedMean: 4, WinsorizedSD: math.Sqrt2}},
		{name: "two trimmed away", passes: []float64{3, 5}, trim: 1, err: ErrTooFew, partial: true,
			want: Summary{N: 2, Trim: 1, Mean: 4, Median: 4, Min: 3, Max: 5, TrimmedMean: nan, WinsorizedSD: nan}},
		{name: "three trim one", passes: []float64{9, 1, 5}, trim: 1, want: Summary{N: 3, Trim: 1, Mean: 5, Median: 5, Min: 1, Max: 9, TrimmedMean: 5, WinsorizedSD: 0}},
		{name: "ties", passes: []float64{2, 2, 2, 2}, trim: 1, want: Summary{N: 4, Trim: 1, Mean: 2, Median: 2, Min: 2, Max: 2, TrimmedMean: 2, WinsorizedSD: 0}},
		{name: "negative trim", passes: []float64{1, 2}, trim: -1, err: ErrBadArg,
			want: Summary{N: 2, Trim: -1, Mean: nan, Median: nan, Min: nan, Max: nan, TrimmedMean: nan, WinsorizedSD: nan}},
		{name: "NaN", passes: []float64{1, nan}, err: ErrNotFinite,
			want: Summary{N: 2, Mean: nan, Median: nan, Min: nan, Max: nan, TrimmedMean: nan, WinsorizedSD: nan}},
		{name: "Inf", passes: []float64{math.Inf(1), 1}, err: ErrNotFinite,
			want: Summary{N: 2, Mean: nan, Median: nan, Min: nan, Max: nan, TrimmedMean: nan, WinsorizedSD: nan}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Describe(tc.passes, tc.trim)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				assert.Contains(t, err.Error(), "describing passes: ")
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tc.want.N, got.N)
			assert.Equal(t, tc.want.Trim, got.Trim)
			for name, pair := range map[string][2]float64{
				"Mean": {tc.want.Mean, got.Mean}, "Median": {tc.want.Median, got.Median},
				"Min": {tc.want.Min, got.Min}, "Max": {tc.want.Max, got.Max},
				"TrimmedMean": {tc.want.TrimmedMean, got.TrimmedMean}, "WinsorizedSD": {tc.want.WinsorizedSD, got.WinsorizedSD},
			} {
				assertSame(t, pair[0], pair[1], name)
			}
		})
	}
}

// assertSame checks got against want within 1e-12, NaN matching only NaN.
func assertSame(t *testing.T, want, got float64, msg string) {
	t.Helper()
	if math.IsNaN(want) {
		assert.True(t, math.IsNaN(got), "%s: want NaN, got %v", msg, got)
		return
	}
	assert.InDelta(t, want, got, 1e-12, msg)
}

func TestTrimmedTKnownAnswer(t *testing.T) {
	t.Parallel()
	// handSample, n = 10: g = ⌊0.2·10⌋ = 2, h = 6, df = 5. Trimmed mean 40/6,
	// s_w = √(59.6/9) = 2.573368 (TestDescribeKnownAnswers), standard error
	// s_w/(0.6·√10) = 1.356284, t(0.975, 5) = 2.570582 (any t table), so the
	// 95% interval is 6.666667 ± 3.486426 = [3.180228, 10.153106].
	got, err := trimmedT("test", handSample, 0.95)
	require.NoError(t, err)
	assert.InDelta(t, 40.0/6, got.est, 1e-12)
	assert.InDelta(t, 2.573368, got.sw, 1e-6)
	assert.Equal(t, 5, got.df)
	assert.InDelta(t, 1.356284, got.se, 1e-6)
	assert.InDelta(t, 3.180228, got.lo, 1e-5)
	assert.InDelta(t, 10.153106, got.hi, 1e-5)

	_, err = trimmedT("test", []float64{1}, 0.95)
	require.ErrorIs(t, err, ErrTooFew)
}

func TestTrimCount(t *testing.T) {
	t.Parallel()
	// ⌊0.2·R⌋ without floating point: 0.2·5 must be exactly 1.
	for r, want := range map[int]int{0: 0, 1: 0, 4: 0, 5: 1, 9: 1, 10: 2, 20: 4, 49: 9, 50: 10} {
		assert.Equal(t, want, trimCount(r), "R = %d", r)
	}
}

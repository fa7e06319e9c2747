package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Five equally spaced looks at two-sided α = 0.05: the first boundary is
// the spending function's own quantile, the last is above 1.96, and a
// seeded simulation of 100,000 random walks crosses them 5% of the time.
func TestBoundariesOBFFiveLooks(t *testing.T) {
	t.Parallel()
	n := []int{10, 20, 30, 40, 50}
	c, err := Boundaries(n, 50, 0.05)
	require.NoError(t, err)
	assert.InDelta(t, 1.959964/math.Sqrt(0.2), c[0], 1e-6)
	for k := 1; k < len(c); k++ {
		assert.Less(t, c[k], c[k-1])
	}
	assert.InDelta(t, 2.06, c[4], 0.01)
	rng := rand.New(rand.NewPCG(24, 3))
	const walks = 100000
	crossed := 0
	for range walks {
		s, at := 0.0, 0
		for k, nk := range n {
			for ; at < nk; at++ {
				s += rng.NormFloat64()
			}
			if math.Abs(s)/math.Sqrt(float64(nk)) >= c[k] {
				crossed++
				break
			}
		}
	}
	assert.InDelta(t, 0.05, float64(crossed)/walks, 0.002)
}

func TestBoundariesOneLookIsFixed(t *testing.T) {
	t.Parallel()
	c, err := Boundaries([]int{20}, 20, 0.05)
	require.NoError(t, err)
	assert.InDelta(t, 1.959964, c[0], 1e-5)
}

func TestBoundariesRefuse(t *testing.T) {
	t.Parallel()
	for _, n := range [][]int{{5, 5}, {10, 5}, {0, 5}} {
		_, err := Boundaries(n, 20, 0.05)
		assert.ErrorIs(t, err, ErrBadArg, "%v", n)
	}
	_, err := Boundaries([]int{5}, 0, 0.05)
	assert.ErrorIs(t, err, ErrBadArg)
	_, err = Boundaries([]int{5}, 20, 1)
	assert.ErrorIs(t, err, ErrBadArg)
}

// A re-plan to a larger nMax makes earlier looks' spending exceed the new
// function's: such a look spends nothing.
func TestBoundariesReplanSpendsNothing(t *testing.T) {
	t.Parallel()
	c, err := Boundaries([]int{5, 10, 15}, 1000, 0.05)
	require.NoError(t, err)
	for _, v := range c {
		assert.Greater(t, v, 6.0)
	}
}

func TestSpendOBF(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 0.0, SpendOBF(0, 0.05))
	assert.Equal(t, 0.05, SpendOBF(1, 0.05))
	assert.InDelta(t, 0.05, SpendOBF(0.999999, 0.05), 1e-6)
	assert.Less(t, SpendOBF(0.2, 0.05), 1e-4)
}

func TestUpperPowerMatchesFixed(t *testing.T) {
	t.Parallel()
	// One look: the power of a two-sided 5% test at drift θ over n rounds.
	c, err := Boundaries([]int{16}, 16, 0.05)
	require.NoError(t, err)
	p := UpperPower([]int{16}, c, 0.71)
	assert.InDelta(t, 0.81, p, 0.01) // Φ(0.71·√16 − 1.96)
	// Student's t on the trimmed mean's degrees of freedom needs more than
	// the normal rule's 16; a huge effect still needs 2 rounds or more.
	n := FixedRounds(0.71, 0.05, p)
	assert.Greater(t, n, 16)
	assert.Less(t, n, 22)
	assert.Equal(t, 4, FixedRounds(10, 0.05, 0.999)) // ν = 3: (3.18 + 10.2)/2 ≤ 10
	assert.Zero(t, FixedRounds(0, 0.05, 0.8))
	assert.Zero(t, FixedRounds(1, 0.05, 1))
}

func TestLookAt(t *testing.T) {
	t.Parallel()
	d := []float64{0.5, 0.52, 0.49, 0.51, 0.5, 0.48}
	l, err := LookAt(d, 3, 0.01)
	require.NoError(t, err)
	assert.Equal(t, Slower, l.Verdict.Call)
	assert.Greater(t, l.RCI.Lo, 0.5)
	l, err = LookAt(d, math.Inf(1), 0.01)
	require.NoError(t, err)
	assert.Equal(t, Inconclusive, l.Verdict.Call)
	_, err = LookAt(d[:4], 3, 0.01)
	assert.ErrorIs(t, err, ErrTooFew)
	_, err = LookAt([]float64{1, 2, math.NaN(), 3, 4}, 3, 0.01)
	assert.ErrorIs(t, err, ErrNotFinite)
}

// StopWithin calls an inconclusive look Bounded when its equivalence
// interval lies within ±w, and leaves every other look as it was.
func TestStopWithin(t *testing.T) {
	t.Parallel()
	inc := Look{N: 10, Verdict: Verdict{Call: Inconclusive, ExtraRounds: 4}, RCI: Interval{-0.06, 0.05}}
	for _, tc := range []struct {
		name string
		l    Look
		eq   Interval
		w    float64
		want Call
	}{
		{"inside", inc, Interval{-0.04, 0.03}, 0.05, Bounded},
		{"on the bound", inc, Interval{-0.05, 0.05}, 0.05, Bounded},
		{"past the upper bound", inc, Interval{-0.04, 0.051}, 0.05, Inconclusive},
		{"past the lower bound", inc, Interval{-0.06, 0.01}, 0.05, Inconclusive},
		{"off", inc, Interval{-0.001, 0.001}, 0, Inconclusive},
		{"slower stays slower", Look{Verdict: Verdict{Call: Slower}}, Interval{0.02, 0.03}, 0.05, Slower},
		{"no change stays no change", Look{Verdict: Verdict{Call: NoChange}}, Interval{-0.005, 0.005}, 0.05, NoChange},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := StopWithin(tc.l, tc.eq, tc.w)
			assert.Equal(t, tc.want, got.Verdict.Call)
			assert.Equal(t, tc.want != Inconclusive, got.Decided())
		})
	}
}

// SequentialLook tests "no change of w or more" on the repeated CI at
// level 1 − 2α, which is narrower than the efficacy RCI it decides on.
func TestSequentialLookStopsWithin(t *testing.T) {
	t.Parallel()
	d := make([]float64, 20)
	for i := range d {
		d[i] = 0.02 * float64(i%5-2) // mean 0, SD about 3%
	}
	n := []int{5, 10, 15, 20}
	off, err := SequentialLook(d, n, 40, Alpha, DefaultMargin, 0)
	require.NoError(t, err)
	assert.Equal(t, Inconclusive, off.Verdict.Call)
	assert.Zero(t, off.EqRCI)
	on, err := SequentialLook(d, n, 40, Alpha, DefaultMargin, 0.05)
	require.NoError(t, err)
	assert.Equal(t, Bounded, on.Verdict.Call)
	assert.Less(t, on.EqRCI.Hi, on.RCI.Hi, "the 1 − 2α interval is the narrower")
	assert.Greater(t, on.EqRCI.Lo, on.RCI.Lo)
	assert.Equal(t, off.RCI, on.RCI, "the efficacy RCI is the same")
}

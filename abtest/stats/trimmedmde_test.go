package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestTrimmedMDEIsPairedMDE: Paired's MDE is TrimmedMDE of its own s_w.
func TestTrimmedMDEIsPairedMDE(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 24))
	for _, r := range []int{3, 6, 10, 17, 40} {
		a, b := make([]float64, r), make([]float64, r)
		for i := range a {
			a[i] = 100 * math.Exp(0.1*rng.NormFloat64())
			b[i] = 100 * math.Exp(0.1*rng.NormFloat64())
		}
		p, err := Paired(a, b, PairedOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := TrimmedMDE(p.SW, r); got != p.MDE {
			t.Errorf("R=%d: TrimmedMDE(s_w) = %v, Paired's MDE %v", r, got, p.MDE)
		}
	}
}

// TestTrimmedMDEFallsFromSixRounds: the property TrimmedRoundsFor's
// bisection rests on.
func TestTrimmedMDEFallsFromSixRounds(t *testing.T) {
	t.Parallel()
	prev := TrimmedMDE(0.1, 6)
	for r := 7; r <= 5000; r++ {
		m := TrimmedMDE(0.1, r)
		if !(m < prev) {
			t.Fatalf("TrimmedMDE(0.1, %d) = %v, not below R-1's %v", r, m, prev)
		}
		prev = m
	}
}

// TestTrimmedRoundsForInvertsTrimmedMDE: the rounds asked for are the
// fewest whose MDE is within the effect.
func TestTrimmedRoundsForInvertsTrimmedMDE(t *testing.T) {
	t.Parallel()
	for _, sw := range []float64{0.005, 0.03, 0.1, 0.3} {
		for _, eff := range []float64{0.01, 0.05, 0.1, 0.5} {
			n := TrimmedRoundsFor(sw, eff)
			if n < 2 {
				t.Fatalf("TrimmedRoundsFor(%v, %v) = %d", sw, eff, n)
			}
			if TrimmedMDE(sw, n) > eff {
				t.Errorf("sw %v eff %v: MDE at %d rounds %v > effect", sw, eff, n, TrimmedMDE(sw, n))
			}
			for r := 2; r < n; r++ {
				if TrimmedMDE(sw, r) <= eff {
					t.Errorf("sw %v eff %v: %d rounds already reach it, asked for %d", sw, eff, r, n)
				}
			}
		}
	}
	for _, bad := range [][2]float64{{0, 0.01}, {0.1, 0}, {math.NaN(), 0.01}, {math.Inf(1), 0.01}, {0.1, math.Inf(1)}, {1e6, 1e-9}} {
		if got := TrimmedRoundsFor(bad[0], bad[1]); got != 0 {
			t.Errorf("TrimmedRoundsFor(%v, %v) = %d, want 0", bad[0], bad[1], got)
		}
	}
}

// TestSpreadIntervalCovers: in 4000 seeded samples of normal rounds the
// chi-square interval of the SD holds the true σ 95% of the time, and
// TrimmedMDEInterval holds TrimmedMDE's point value.
func TestSpreadIntervalCovers(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(24, 5))
	const n, sims, sigma = 10, 4000, 0.2
	hit := 0
	x := make([]float64, n)
	for range sims {
		for i := range x {
			x[i] = sigma * rng.NormFloat64()
		}
		s := stdDev(x)
		if SpreadInterval(s, n-1, 0.95).Contains(sigma) {
			hit++
		}
	}
	if cov := float64(hit) / sims; cov < 0.93 || cov > 0.97 {
		t.Errorf("coverage %.3f, want 0.95", cov)
	}
	iv := TrimmedMDEInterval(0.1, 10)
	if !iv.Contains(TrimmedMDE(0.1, 10)) || !(iv.Hi > 2*TrimmedMDE(0.1, 10)) {
		t.Errorf("TrimmedMDEInterval(0.1, 10) = %v around %v: 5 degrees of freedom leave the spread unsure by more than 2×", iv, TrimmedMDE(0.1, 10))
	}
	if !math.IsNaN(SpreadInterval(0.1, 0, 0.95).Lo) || !math.IsNaN(SpreadInterval(math.NaN(), 3, 0.95).Hi) {
		t.Error("SpreadInterval of 0 df or a NaN spread is not NaN")
	}
}

// TestRoundsToPinSpread: the rounds returned are the fewest whose
// interval is within the factor.
func TestRoundsToPinSpread(t *testing.T) {
	t.Parallel()
	for _, f := range []float64{1.1, 1.25, 1.5, 2, 3} {
		r := RoundsToPinSpread(f)
		if r < 2 || SpreadInterval(1, TrimmedDF(r), DefaultLevel).Hi > f {
			t.Fatalf("RoundsToPinSpread(%v) = %d", f, r)
		}
		for q := 2; q < r; q++ {
			if SpreadInterval(1, TrimmedDF(q), DefaultLevel).Hi <= f {
				t.Errorf("factor %v: %d rounds already pin it, asked for %d", f, q, r)
			}
		}
	}
	if RoundsToPinSpread(1) != 0 || RoundsToPinSpread(math.NaN()) != 0 {
		t.Error("a factor of 1 or NaN has no answer")
	}
}

func stdDev(x []float64) float64 {
	var m, s float64
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	return math.Sqrt(s / float64(len(x)-1))
}

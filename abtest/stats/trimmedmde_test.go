package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestTrimmedMDEIsPairedMDE: Paired's MDE is TrimmedMDE of its own s_w.
func TestTrimmedMDEIsPairedMDE(t *testing.T) {
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

package stats

import (
	"errors"
	"math"
	"testing"
)

func TestStratifiedOneStratumIsPaired(t *testing.T) {
	t.Parallel()
	a := []float64{100, 102, 98, 101, 99, 103, 97, 100}
	b := []float64{110, 113, 107, 112, 108, 114, 106, 111}
	d, _ := LogRatios(a, b)
	pr, err := Paired(a, b, PairedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sr, err := Stratified([][]float64{d}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(sr.Delta-pr.Delta) > 1e-12 || math.Abs(sr.CI.Lo-pr.CI.Lo) > 1e-12 || math.Abs(sr.CI.Hi-pr.CI.Hi) > 1e-12 {
		t.Errorf("one stratum: Δ %v CI %v, Paired Δ %v CI %v", sr.Delta, sr.CI, pr.Delta, pr.CI)
	}
	if !math.IsNaN(sr.Q) {
		t.Errorf("Q of one stratum = %v, want NaN", sr.Q)
	}
}

func TestStratifiedWeightsAndHeterogeneity(t *testing.T) {
	t.Parallel()
	// Two agreeing strata, the second noisier: the pooled mean lies
	// nearer the first, and Q finds nothing.
	s1 := []float64{0.40, 0.41, 0.39, 0.40, 0.42, 0.38, 0.40, 0.41}
	s2 := []float64{0.30, 0.50, 0.45, 0.35, 0.40, 0.55, 0.25, 0.42}
	sr, err := Stratified([][]float64{s1, s2}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if sr.R != 16 || len(sr.Strata) != 2 {
		t.Fatalf("R %d, strata %d", sr.R, len(sr.Strata))
	}
	if !(sr.Strata[0].Weight > sr.Strata[1].Weight) {
		t.Errorf("weights %v, %v: the quieter stratum should weigh more", sr.Strata[0].Weight, sr.Strata[1].Weight)
	}
	if !(sr.QP > 0.05) || sr.Strata[0].Outlier || sr.Strata[1].Outlier {
		t.Errorf("agreeing strata: Q %v p %v, outliers %v %v", sr.Q, sr.QP, sr.Strata[0].Outlier, sr.Strata[1].Outlier)
	}
	if !(sr.CI.Lo < sr.Delta && sr.Delta < sr.CI.Hi) || !(sr.P < 0.001) {
		t.Errorf("pooled Δ %v CI %v p %v", sr.Delta, sr.CI, sr.P)
	}
	// A sick stratum: +10% where the other is +50%.
	sick := []float64{0.10, 0.11, 0.09, 0.10, 0.12, 0.08, 0.10, 0.11}
	sr, err = Stratified([][]float64{s1, sick}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !(sr.QP < 0.001) || !(sr.I2 > 0.9) {
		t.Errorf("disagreeing strata: Q %v p %v I² %v", sr.Q, sr.QP, sr.I2)
	}
	if !sr.Strata[1].Outlier {
		t.Errorf("the sick stratum's interval %v should exclude the pooled Δ %v", sr.Strata[1].CI, sr.Delta)
	}
}

func TestStratifiedRefuses(t *testing.T) {
	t.Parallel()
	if _, err := Stratified(nil, 0); !errors.Is(err, ErrTooFew) {
		t.Errorf("no stratum: %v", err)
	}
	if _, err := Stratified([][]float64{{0.1, 0.2}, {0.3}}, 0); !errors.Is(err, ErrTooFew) {
		t.Errorf("one-round stratum: %v", err)
	}
	if r, err := Stratified([][]float64{{0, 0}, {0, 0, 0}}, 0); err != nil || r.Delta != 0 || r.CI.Lo != 0 || r.CI.Hi != 0 || r.R != 5 {
		t.Errorf("constant strata: %+v, %v", r, err)
	}
	if _, err := Stratified([][]float64{{0.1, 0.2}, {0.3, 0.3, 0.3}}, 0); !errors.Is(err, ErrBadArg) {
		t.Errorf("stratum without spread: %v", err)
	}
	if _, err := Stratified([][]float64{{0.1, math.NaN()}}, 0); !errors.Is(err, ErrNotFinite) {
		t.Errorf("NaN: %v", err)
	}
}

package stats

import (
	"cmp"
	"math"
	"slices"
)

// Holm returns Holm's (1979) step-down adjustment of the p-values p, in
// the order given: with the m valid p-values sorted ascending,
// p'(i) = max over j ≤ i of min(1, (m−j+1)·p(j)). Rejecting where the
// adjusted value is below α controls the family-wise error rate at α
// whatever the dependence between the tests. hbgbench applies it to the
// Wilcoxon p-values of the phase metrics.
//
// As in R's p.adjust, a NaN entry is not a test: it stays NaN and does not
// count in m. An entry outside [0, 1] is invalid and is treated the same
// way. The input is not modified.
func Holm(p []float64) []float64 {
	adj := make([]float64, len(p))
	idx := make([]int, 0, len(p))
	for i, v := range p {
		if v >= 0 && v <= 1 { // false for NaN
			idx = append(idx, i)
		} else {
			adj[i] = math.NaN()
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(p[a], p[b]) })
	m := len(idx)
	running := 0.0
	for j, i := range idx {
		running = math.Max(running, math.Min(1, float64(m-j)*p[i]))
		adj[i] = running
	}
	return adj
}

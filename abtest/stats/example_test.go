package stats_test

import (
	"fmt"

	"github.com/hbgkit/hbgkit/abtest/stats"
)

// A campaign engine's use of the package: per round, the block statistic
// of each arm; then the paired analysis, the verdict and the footer.
func Example() {
	// ControlPlane block means (ms) of 10 rounds; B is about 3% slower.
	base := []float64{10.02, 10.21, 9.93, 10.11, 10.04, 10.32, 9.85, 10.07, 10.13, 10.26}
	head := []float64{10.31, 10.45, 10.27, 10.36, 10.29, 10.71, 10.08, 10.19, 10.55, 10.47}
	if len(base) < stats.MinRounds {
		fmt.Println("warning: too few rounds for p < 0.05")
	}
	r, err := stats.Paired(base, head, stats.PairedOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	v := stats.Decide(r.Delta, r.CI, r.R, stats.DefaultMargin)
	fmt.Printf("Δ %+.1f%% [%+.1f%%, %+.1f%%] p=%.4f sign %d/%d: %v\n",
		100*r.Delta, 100*r.CI.Lo, 100*r.CI.Hi, r.Wilcoxon.P, r.Sign.Agree, r.R, v)
	fmt.Printf("σ_d %.2f%%, MDE %.2f%%\n", 100*r.SigmaD, 100*r.MDE)
	// Output:
	// Δ +2.7% [+2.0%, +3.3%] p=0.0020 sign 10/10: slower
	// σ_d 0.85%, MDE 0.89%
}

// Per-arm columns: the community's "drop 10 and 10 of 50" is a trim of 10.
func ExampleDescribe() {
	passes := []float64{12, 10, 11, 30, 10, 11, 12, 9, 11, 10}
	s, err := stats.Describe(passes, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("n=%d mean=%.2f median=%.1f min=%.0f trimmed=%.2f\n", s.N, s.Mean, s.Median, s.Min, s.TrimmedMean)
	// Output:
	// n=10 mean=12.60 median=11.0 min=9 trimmed=10.83
}

// Phase rows: Holm-adjust the phases' Wilcoxon p-values, then let the
// adjusted p gate each interval verdict.
func ExampleHolm() {
	phases := []string{"HostOrch", "Gate", "Upload"}
	p := []float64{0.004, 0.03, 0.2}
	verdicts := []stats.Verdict{{Call: stats.Slower}, {Call: stats.Slower}, {Call: stats.NoChange}}
	for i, adj := range stats.Holm(p) {
		fmt.Printf("%s: p %.3f → %.3f, %v\n", phases[i], p[i], adj, verdicts[i].Gate(adj))
	}
	// Output:
	// HostOrch: p 0.004 → 0.012, slower
	// Gate: p 0.030 → 0.060, inconclusive
	// Upload: p 0.200 → 0.200, no change
}

// Unanimity over five rounds is not a 5% test.
func ExampleSignTest() {
	fmt.Println(stats.SignTest(5, 5), stats.SignTest(6, 6))
	// Output:
	// 0.0625 0.03125
}

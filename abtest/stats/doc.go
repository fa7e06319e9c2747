// Package stats holds the statistics of hbgbench's A/B method: per-arm
// descriptive columns, the paired analysis of rounds (Δ with its
// trimmed-t interval, Wilcoxon signed-rank and sign tests, Holm adjustment,
// Δmin), the verdict against an equivalence margin, and the noise footer
// (σ_d, minimum detectable effect, lag-1 autocorrelation, drift slope).
// The method is specified in docs/ab-method.md.
//
// The package's opinion: the round, not the pass, is the unit of
// inference. Passes inside a block share a process, a cache and a moment in
// time, so they are not independent; only the paired log-ratio of one block
// of each arm per round is analysed, and pass-level numbers are descriptive.
// Estimates are robust (20% trimmed, rank based) because timing noise has
// outliers, and every function says when a number is not computable (an
// error, or NaN where the doc says so) rather than returning a plausible
// wrong one. Functions are pure: no I/O, no global state, and randomness
// (the bootstrap) comes only from a caller's seed.
package stats

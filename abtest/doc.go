// Package abtest runs interleaved A/B campaigns between two arms of
// simpler's runtime (or of its embedded model) and analyses them: the arms,
// the seeded schedule, the append-only journal that makes a campaign
// resumable, the same-ruler check of the arms' [stamp] lines and the host's
// noise preflight, the reduction of each block's log to per-pass metrics,
// and the paired analysis that ends in a verdict.
//
// Its opinion is STATS.md's: the round is the unit of inference, not the
// pass. Passes of one block share a process and are never treated as
// independent samples; the per-arm pass columns are descriptive only.
// Rendering belongs to internal/report: this package builds the
// format-neutral report document and leaves the bytes to that package.
package abtest

package abreport

import (
	"testing"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/stretchr/testify/assert"
)

func TestCostLine(t *testing.T) {
	t.Parallel()
	a := &analysis.Analysis{Cost: &analysis.Cost{Blocks: 80, BlockSeconds: 130.5, RoundSeconds: 3.2625, Failed: 2, FailedSeconds: 4.25, Warmups: 2, WarmupSeconds: 3.1,
		Detectable: []analysis.RoundsMDE{{Rounds: 10, MDE: 0.076}, {Rounds: 20, MDE: 0.052}, {Rounds: 40, MDE: 0.0361}}}}
	assert.Equal(t, "card time: 2 min 10 s in 80 timed blocks (3.26 s a counted round), of which 4.25 s in 2 failed tries; 3.10 s in 2 warm-up blocks; builds, checkouts and checks not included",
		For(a).CostLine())
	assert.Equal(t, "the smallest change this host can detect at 80% power with this spread: 7.6% in 10 rounds, 5.2% in 20 rounds, 3.6% in 40 rounds",
		For(a).DetectableLine())
	a.Cost.Failed, a.Cost.Warmups = 1, 1
	assert.Contains(t, For(a).CostLine(), "of which 4.25 s in 1 failed try; 3.10 s in 1 warm-up block;")
	a.Cost = &analysis.Cost{Blocks: 4, BlockSeconds: 12, RoundSeconds: journal.Num(6)}
	assert.Equal(t, "card time: 12.0 s in 4 timed blocks (6.00 s a counted round); no warm-up block; builds, checkouts and checks not included", For(a).CostLine())
	assert.Empty(t, For(&analysis.Analysis{}).CostLine())
	assert.Empty(t, For(a).DetectableLine())
}

package abreport

import (
	"testing"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/stretchr/testify/assert"
)

// TestAaSuggestionRepeatsTheDesign: aa's suggested command carries the
// flags that shaped the noise its margin rests on (a pinned CPU set, a
// block size, statistic or cold count off the defaults), and nothing for
// a default design.
func TestAaSuggestionRepeatsTheDesign(t *testing.T) {
	t.Parallel()
	def := journal.DefaultConfig()
	assert.Empty(t, designFlags(def))
	c := def
	c.CPUs = "1"
	assert.Equal(t, " --cpus 1", designFlags(c))
	c = def
	c.Block, c.BlockStat = 5, journal.DefaultBlockStat(5, def.Cold)
	assert.Equal(t, " --block 5", designFlags(c))
	c.BlockStat = journal.BlockMean
	c.Cold, c.CPUs = 0, "0-1"
	assert.Equal(t, " --block 5 --cold 0 --block-stat mean --cpus 0-1", designFlags(c))
}

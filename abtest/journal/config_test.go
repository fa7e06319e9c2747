package journal

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"rounds 0", func(c *Config) { c.Rounds = 0 }, "--rounds 0"},
		{"block 1", func(c *Config) { c.Block, c.Cold = 1, 1 }, "--block 1: its only pass is the cold one"},
		{"block 2 cold 2", func(c *Config) { c.Block = 2 }, "--block 2 with --cold 2: every pass of a block is dropped"},
		{"unknown metric", func(c *Config) { c.Metric = "latency" }, `--metric "latency": unknown metric`},
		{"order", func(c *Config) { c.Order = "random" }, "--order"},
		{"block stat", func(c *Config) { c.BlockStat = "p90" }, "--block-stat"},
		{"margin", func(c *Config) { c.Margin = 1.5 }, "--margin"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.mod(&c)
			assert.ErrorContains(t, c.Validate(), tc.want)
		})
	}
	c := DefaultConfig()
	c.Block, c.Cold = 1, 0
	assert.NoError(t, c.Validate(), "--block 1 --keep-first has a pass to analyse")
}

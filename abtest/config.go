package abtest

import (
	"errors"
	"fmt"
	"time"

	"github.com/hbgkit/hbgkit/abtest/stats"
)

// Block statistics: how a block's warm passes become one number per round.
const (
	BlockMedian = "median"
	BlockMean   = "mean"
	BlockMin    = "min"
)

// Config is a campaign's method: everything that decides what is run and
// how it is analysed. It is journaled whole; a resumed campaign must have
// the same one.
type Config struct {
	Rounds    int     `json:"rounds"`     // R, rounds of one block per arm
	Block     int     `json:"block"`      // r, passes per block ({rounds})
	Warmup    int     `json:"warmup"`     // blocks per arm before round 1
	Order     string  `json:"order"`      // rmit, abba, abab
	KeepFirst bool    `json:"keep_first"` // analyse each block's cold pass too
	PerRank   bool    `json:"per_rank"`   // analyse each rank separately
	Metric    string  `json:"metric"`     // primary metric; "" = ControlPlane if HBG data, else Host
	BlockStat string  `json:"block_stat"` // median, mean, min
	Trim      int     `json:"trim"`       // passes dropped from each end per arm; -1 = 20% of its warm passes
	Margin    float64 `json:"margin"`     // equivalence margin, a fraction (0.01 = 1%)
	// Timeout kills a block's process group; 0 = no limit.
	Timeout   time.Duration `json:"timeout_ns"`
	Retries   int           `json:"retries"`   // extra tries of a failed block
	MaxFail   float64       `json:"max_fail"`  // abort when dropped rounds exceed this fraction of Rounds
	Bootstrap int           `json:"bootstrap"` // round resamples for a bootstrap interval; 0 = none
}

// DefaultConfig returns STATS.md's defaults.
func DefaultConfig() Config {
	return Config{
		Rounds: 10, Block: 5, Warmup: 1, Order: OrderRMIT, BlockStat: BlockMedian,
		Trim: -1, Margin: stats.DefaultMargin, Retries: 1, MaxFail: 0.10,
	}
}

// Validate refuses a config that cannot give an analysis, before any
// block runs.
func (c Config) Validate() error {
	switch {
	case c.Rounds < 1:
		return fmt.Errorf("--rounds %d: want at least 1 round (6 or more for a p below 0.05)", c.Rounds)
	case c.Block < 1:
		return fmt.Errorf("--block %d: want at least 1 pass per block", c.Block)
	case c.Block == 1 && !c.KeepFirst:
		return errors.New("--block 1: its only pass is the cold one, which is dropped, so no block would have a warm pass; use --block 2 or more, or --keep-first")
	case c.Warmup < 0:
		return fmt.Errorf("--warmup %d: want 0 or more blocks", c.Warmup)
	case c.Trim < -1:
		return fmt.Errorf("--trim %d: want 0 or more passes", c.Trim)
	case !(c.Margin >= 0 && c.Margin < 1):
		return fmt.Errorf("--margin %v: want a fraction in [0, 1), such as 0.01 for 1%%", c.Margin)
	case c.Timeout < 0:
		return fmt.Errorf("--timeout %v: want a positive duration", c.Timeout)
	case c.Retries < 0:
		return fmt.Errorf("--retries %d: want 0 or more", c.Retries)
	case !(c.MaxFail >= 0 && c.MaxFail <= 1):
		return fmt.Errorf("--max-fail %v: want a fraction in [0, 1]", c.MaxFail)
	case c.Bootstrap < 0:
		return fmt.Errorf("--bootstrap %d: want 0 or more resamples", c.Bootstrap)
	}
	switch c.Order {
	case OrderRMIT, OrderABBA, OrderABAB:
	default:
		return fmt.Errorf("--order %q: want rmit, abba or abab", c.Order)
	}
	switch c.BlockStat {
	case BlockMedian, BlockMean, BlockMin:
	default:
		return fmt.Errorf("--block-stat %q: want median, mean or min", c.BlockStat)
	}
	if c.Metric != "" {
		if _, ok := LookupMetric(c.Metric); !ok {
			return fmt.Errorf("--metric %q: unknown metric; known: %s", c.Metric, metricNames())
		}
	}
	return nil
}

// warmPerBlock is the number of passes a block contributes to the analysis
// of each rank.
func (c Config) warmPerBlock() int {
	if c.KeepFirst {
		return c.Block
	}
	return c.Block - 1
}

// maxDropped is how many rounds may be dropped before the campaign aborts.
func (c Config) maxDropped() int { return int(c.MaxFail * float64(c.Rounds)) }

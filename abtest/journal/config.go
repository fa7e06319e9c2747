package journal

import (
	"errors"
	"fmt"
	"time"

	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/hbgkit/hbgkit/abtest/stats"
	"github.com/hbgkit/hbgkit/runtimeharness"
)

// A BlockStat is how a block's warm passes become one number per round.
type BlockStat string

// The block statistics.
const (
	BlockMedian BlockStat = "median"
	BlockMean   BlockStat = "mean"
	BlockMin    BlockStat = "min"
)

// Config is a campaign's method: everything that decides what is run and
// how it is analysed. It is journaled whole; a resumed campaign must have
// the same one.
type Config struct {
	Rounds int   `json:"rounds"` // R, rounds of one block per arm
	Block  int   `json:"block"`  // r, passes per block ({rounds})
	Warmup int   `json:"warmup"` // blocks per arm before round 1
	Order  Order `json:"order"`  // rmit, abba, abab
	// Cold is how many leading passes of each pid a block drops as cold
	// (--keep-first is 0). See DefaultCold.
	Cold      int       `json:"cold"`
	PerRank   bool      `json:"per_rank"`   // analyse each rank separately
	Metric    string    `json:"metric"`     // primary metric; "" = ControlPlane if HBG data, else Host
	BlockStat BlockStat `json:"block_stat"` // median, mean, min
	Trim      int       `json:"trim"`       // passes dropped from each end per arm; -1 = 20% of its warm passes
	Margin    float64   `json:"margin"`     // equivalence margin, a fraction (0.01 = 1%)
	// Timeout kills a block's process group; 0 = no limit.
	Timeout   time.Duration `json:"timeout_ns"`
	Retries   int           `json:"retries"`   // extra tries of a failed block
	MaxFail   float64       `json:"max_fail"`  // abort when dropped rounds exceed this fraction of Rounds
	Bootstrap int           `json:"bootstrap"` // round resamples for a bootstrap interval; 0 = none
	// CPUs pins every block of both arms, and what it forks, to a CPU
	// list in its canonical form ("0", "0-1", "0,2-3"); "" = not pinned.
	CPUs string `json:"cpus,omitempty"`
	// Load is --load: that many busy processes run beside every block
	// of every arm, started before it and stopped after it, on its CPUs
	// (campaign/load.go); 0 = none.
	Load int `json:"load,omitempty"`
	// LoadCmd is --load-cmd: a shell command run beside every block in
	// place of Load's busy processes, started and killed as they are.
	LoadCmd string `json:"load_cmd,omitempty"`
	// LookEvery is --until-decided's --look-every: the campaign looks
	// after every LookEvery-th round and its last (Rounds is then the most
	// it may run) and stops when decided (sequential.go); 0 = a fixed
	// design.
	LookEvery int `json:"look_every,omitempty"`
	// StopWithin is --until-decided's --stop-within W: a look whose
	// equivalence interval lies within ±W stops the campaign with "no
	// change of W or more" (stats.StopWithin); 0 = only a change or a
	// change inside the margin stops it (every journal before the option).
	StopWithin Num `json:"stop_within,omitempty"`
	// Records is --records: embedded arms write host_phase_records.jsonl
	// into each block's {out}, so that its binds get the lane metrics
	// (metric.FamilyLanes); a command or git arm has them whenever its
	// run leaves that file in {out}.
	Records bool `json:"records,omitempty"`
	// Derive are the --derive NAME=EXPR metrics (metric.ParseDerivation):
	// analysed as any metric, computed per pass from the others when the
	// journal is analysed.
	Derive []string `json:"derive,omitempty"`
}

// DefaultCold is the default number of cold passes dropped per pid and
// block: 2, where the method first dropped 1 (docs/ab-measurements.md
// "Cold passes, measured"). Measured on the embedded model
// (dsv4-pair, AMD EPYC, THP madvise), the minor faults of binds 1, 2, 3, 4,
// 5 of a fresh process are 2934, 2885, 1394, 1391, 1392 with the mirror
// per bind and 2934, 1495, 4, 1, 2 with it retained: the second bind of a
// process is still about 1,490 faults short of steady state (glibc's
// dynamic mmap threshold grows on it), 27 ms instead of 1.2 ms retained.
// Each block is a fresh process, so every block has such a pass; counting
// it as warm biases the per-arm trimmed means.
const DefaultCold = 2

// DefaultBlock is the default passes per block, and MinWarmForMin the
// fewest warm passes whose block takes the minimum as its default
// statistic (DefaultBlockStat). Measured on the embedded model at load 9
// to 23 on 2 cores (docs/ab-measurements.md "How the defaults were chosen", 160
// campaigns): a 20-pass block costs 0.9 s a round against 0.46 s for a
// 5-pass one (process start and the cold binds dominate), and its minimum
// has a fifth of the between-round noise of a 5-pass block's median
// (σ_t 15% against 78%), so a change is decided in far less wall time.
const (
	DefaultBlock  = 20
	MinWarmForMin = 6
)

// DefaultBlockStat is the block statistic of a campaign that names none:
// the minimum when a block keeps at least MinWarmForMin warm passes
// (block − cold), else the median. The minimum measured better at every
// block size, 5 included; the median stays below 6 warm passes only so
// that the flags of the 5-pass recipes written before (--block 5, with or
// without --keep-first) keep the method they were written for.
func DefaultBlockStat(block, cold int) BlockStat {
	if block-cold >= MinWarmForMin {
		return BlockMin
	}
	return BlockMedian
}

// DefaultConfig returns the campaign defaults (docs/ab-reference.md
// "Flags"): the method's first ones, but for DefaultCold, DefaultBlock and
// DefaultBlockStat, which measurements moved.
func DefaultConfig() Config {
	return Config{
		Rounds: 10, Block: DefaultBlock, Warmup: 1, Cold: DefaultCold, Order: OrderRMIT,
		BlockStat: DefaultBlockStat(DefaultBlock, DefaultCold),
		Trim:      -1, Margin: stats.DefaultMargin, Retries: 1, MaxFail: 0.10,
	}
}

// MaxBootstrap bounds --bootstrap: 100,000 resamples of the rounds give
// a percentile interval's bounds to well under a tenth of a percent; more
// only costs time (2,000,000,000 made report hang).
const MaxBootstrap = 100000

// The largest settings a campaign takes: past them it would never end
// (block = 1000000000 and retries = 1000000000 in a recipe were taken),
// and no campaign needs them (docs/ab-reference.md "Flags").
const (
	MaxRounds  = 100_000
	MaxBlock   = 100_000
	MaxWarmup  = 1_000
	MaxRetries = 100
)

// MaxLoad is the most busy processes --load runs beside a block.
const MaxLoad = 256

// Validate refuses a config that cannot give an analysis, or would never
// end, before any block runs.
func (c Config) Validate() error {
	switch {
	case c.Rounds > MaxRounds:
		return fmt.Errorf("--rounds %d: at most %d", c.Rounds, MaxRounds)
	case c.Block > MaxBlock:
		return fmt.Errorf("--block %d: at most %d passes a block", c.Block, MaxBlock)
	case c.Warmup > MaxWarmup:
		return fmt.Errorf("--warmup %d: at most %d blocks", c.Warmup, MaxWarmup)
	case c.Retries > MaxRetries:
		return fmt.Errorf("--retries %d: at most %d more tries of a block", c.Retries, MaxRetries)
	case c.Rounds < 1:
		return fmt.Errorf("--rounds %d: want at least 1 round (6 or more for a p below 0.05)", c.Rounds)
	case c.Block < 1:
		return fmt.Errorf("--block %d: want at least 1 pass per block", c.Block)
	case c.Cold < 0:
		return fmt.Errorf("--cold %d: want 0 or more passes", c.Cold)
	case c.Block <= c.Cold && c.Block == 1:
		return errors.New("--block 1: its only pass is the cold one, which is dropped, so no block would have a warm pass; use --block 2 or more, or --keep-first")
	case c.Block <= c.Cold:
		return fmt.Errorf("--block %d with --cold %d: every pass of a block is dropped as cold, so no block would have a warm pass; use --block %d or more, or a smaller --cold", c.Block, c.Cold, c.Cold+1)
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
	case c.Bootstrap < 0 || c.Bootstrap > MaxBootstrap:
		return fmt.Errorf("--bootstrap %d: want 0 to %d resamples", c.Bootstrap, MaxBootstrap)
	case c.Load < 0 || c.Load > MaxLoad:
		return fmt.Errorf("--load %d: want 0 to %d busy processes", c.Load, MaxLoad)
	case c.Load > 0 && c.LoadCmd != "":
		return fmt.Errorf("--load %d and --load-cmd: give one load", c.Load)
	}
	if err := c.validateSequential(); err != nil {
		return err
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
	if c.CPUs != "" {
		if _, err := runtimeharness.ParseCPUList(c.CPUs); err != nil {
			return fmt.Errorf("--cpus %q: %w", c.CPUs, err)
		}
	}
	if _, err := metric.ParseDerivations(c.Derive); err != nil {
		return err
	}
	if c.Metric != "" {
		if _, ok := metric.LookupMetric(c.Metric); !ok {
			return fmt.Errorf("--metric %q: unknown metric; known: %s", c.Metric, metric.MetricNames())
		}
	}
	return nil
}

// maxDropped is how many rounds may be dropped before the campaign aborts.
func (c Config) MaxDropped() int { return int(c.MaxFail * float64(c.Rounds)) }

// checkCPUs puts --cpus in its canonical form and checks that this
// process may run on every CPU of it (sched_getaffinity), before any
// block runs; journal says the list came from a journal, not the flag.
func (c *Config) CheckCPUs(journal string) error {
	if c.CPUs == "" {
		return nil
	}
	list, err := runtimeharness.CheckCPUList(c.CPUs)
	if err != nil {
		if journal != "" {
			return fmt.Errorf("--cpus %s (the CPUs of %s): %w", c.CPUs, journal, err)
		}
		return fmt.Errorf("--cpus %q: %w", c.CPUs, err)
	}
	c.CPUs = list
	return nil
}

// checkArms refuses what a campaign of more than two arms cannot do yet:
// stop when decided (its looks decide one primary row, and N arms have one
// per arm, Holm-adjusted together) and run as shards (a merge pools one
// base/head pair per shard).
func (c Config) CheckArms(arms int, shard bool) error {
	if arms <= 2 {
		return nil
	}
	switch {
	case c.LookEvery > 0:
		return fmt.Errorf("--until-decided with %d arms: its looks decide one base/head pair; run a fixed design (--rounds), or --until-decided on the pair that matters", arms)
	case shard:
		return fmt.Errorf("--shard with %d arms: a merge pools one base/head pair per shard; run the arms on one card, or shards of the pair that matters", arms)
	}
	return nil
}

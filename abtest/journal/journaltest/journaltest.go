// Package journaltest builds journals and headers for the tests of the
// packages above abtest/journal: synthetic campaigns whose block values
// are given, so an analysis or a report can be checked without running a
// block. Like net/http/httptest, it is imported by tests only.
package journaltest

import (
	"path/filepath"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/stretchr/testify/require"
)

// Synth builds the journal of a campaign whose blocks hold the
// given ControlPlane values in µs (one cold pass of 10× first), round by
// round: vals[i][arm] are the warm passes of that block.
func Synth(t *testing.T, vals [][2][]float64) *journal.Journal {
	t.Helper()
	h := Header(t)
	h.Config.Rounds = len(vals)
	h.Config.Cold = 1
	j := &journal.Journal{Header: h}
	for i, r := range vals {
		round := i + 1
		for arm := range 2 {
			b := journal.BlockRecord{Type: journal.LineBlock, Round: round, Arm: journal.ArmNames[arm], Attempt: 1, Try: 1}
			b.Passes = append(b.Passes, metric.Pass{Pid: 1, Inv: 1, Cold: true, Values: map[string]float64{"ControlPlane": 10 * r[arm][0] * metric.NsPerUs}})
			for k, v := range r[arm] {
				b.Passes = append(b.Passes, metric.Pass{Pid: 1, Inv: uint64(k + 2), Index: k + 1, Values: map[string]float64{
					"ControlPlane": v * metric.NsPerUs, "phase.args": 100 * metric.NsPerUs,
				}})
			}
			j.Blocks = append(j.Blocks, b)
		}
		j.Rounds = append(j.Rounds, journal.RoundRecord{Type: journal.LineRound, Round: round, Attempt: 1, Status: journal.RoundOK})
	}
	return j
}

// Twin is a campaign of 8 rounds of blocks of 1 cold and 3 warm
// passes per rank, head faster than base in every round by a different
// amount, so that every metric has the same exact Wilcoxon p (2/256). Gate
// is ControlPlane and phase.host_orch is HostOrch, pass for pass, unless
// tweak changes a value: tweak(round, arm, rank, pass, values).
func Twin(t *testing.T, ranks int, tweak func(round, arm, rank, pass int, v map[string]float64)) *journal.Journal {
	t.Helper()
	h := Header(t)
	h.Config.Rounds, h.Config.Cold, h.Config.PerRank = 8, 1, ranks > 1
	j := &journal.Journal{Header: h}
	for i := range h.Config.Rounds {
		round := i + 1
		for arm := range 2 {
			b := journal.BlockRecord{Type: journal.LineBlock, Round: round, Arm: journal.ArmNames[arm], Attempt: 1, Try: 1}
			for rank := range ranks {
				for k := range 4 {
					scale := 1.0
					if arm == journal.Head {
						scale = 0.9 - 0.01*float64(i)
					}
					base := (1000 + 3*float64(k) + 5*float64(rank)) * scale * metric.NsPerUs
					v := map[string]float64{
						"ControlPlane": base, "Gate": base,
						"HostOrch": base / 2, "phase.host_orch": base / 2,
						"phase.args": base / 4, "phase.shared_mem": base / 8,
					}
					if tweak != nil {
						tweak(round, arm, rank, k, v)
					}
					b.Passes = append(b.Passes, metric.Pass{Pid: int64(100 + rank), Inv: uint64(k + 1), Rank: rank, Index: k, Cold: k == 0, Values: v})
				}
			}
			j.Blocks = append(j.Blocks, b)
		}
		j.Rounds = append(j.Rounds, journal.RoundRecord{Type: journal.LineRound, Round: round, Attempt: 1, Status: journal.RoundOK})
	}
	return j
}

// Fixture is the path of a file of the repository's fixtures/ directory,
// for a test of a package one level below abtest.
func Fixture(name string) string { return filepath.Join("..", "..", "fixtures", name) }

// Config is the method the unit tests were written for: 5-pass
// blocks reduced by their median (the defaults before issue 24), so that
// what they assert does not move with DefaultConfig.
func Config() journal.Config {
	c := journal.DefaultConfig()
	c.Block, c.BlockStat = 5, journal.BlockMedian
	return c
}

// Header is the header of a base-against-head embedded campaign with
// Config, its primary metric ControlPlane.
func Header(t *testing.T) journal.Header {
	t.Helper()
	h, err := journal.NewHeader(Config(), [2]journal.Arm{journal.DefaultBase, journal.DefaultHead}, 5, "hbgkit test", []string{"hbgbench", "ab"}, journal.Env{Host: "h"})
	require.NoError(t, err)
	h.Primary, h.Ruler = metric.PooledKey("ControlPlane"), "r"
	return h
}

// ArmsHeader is the header of a campaign of the named embedded arms.
func ArmsHeader(t *testing.T, names ...string) journal.Header {
	t.Helper()
	h := Header(t)
	var arms []journal.Arm
	for i, n := range names {
		a, err := journal.ParseEmbedded("embedded:delay_us=" + string(rune('0'+i)))
		require.NoError(t, err)
		a.Name = n
		arms = append(arms, a)
	}
	require.NoError(t, h.SetArms(arms))
	return h
}

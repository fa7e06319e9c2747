package main

import (
	"bytes"
	"io"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// execCaptured runs c with args and buffers for its streams; the command's
// runF has captured its options by then.
func execCaptured(t *testing.T, c *cobra.Command, args ...string) (stdout *bytes.Buffer, err error) {
	t.Helper()
	stdout = &bytes.Buffer{}
	c.SetArgs(args)
	c.SetIn(&bytes.Buffer{})
	c.SetOut(stdout)
	c.SetErr(&bytes.Buffer{})
	c.SilenceUsage, c.SilenceErrors = true, true
	return stdout, c.Execute()
}

// TestFlagsFillOptions checks flag parsing alone: each command's flags and
// arguments land in its options, with the command's streams, and the run
// function is not called (runF replaces it).
func TestFlagsFillOptions(t *testing.T) {
	t.Parallel()
	t.Run("rounds", func(t *testing.T) {
		var got *roundsOptions
		out, err := execCaptured(t, newRoundsCmd(func(o *roundsOptions) error { got = o; return nil }),
			"--per-rank", "--format", "csv", "--records", "r.jsonl", "a.log", "b.log")
		require.NoError(t, err)
		require.NotNil(t, got)
		assert.Equal(t, []string{"a.log", "b.log"}, got.logs)
		assert.True(t, got.perRank)
		assert.Equal(t, formatCSV, got.format)
		assert.Equal(t, []string{"r.jsonl"}, got.records)
		assert.Equal(t, io.Writer(out), got.Stdout, "the run function writes to the command's stdout")
	})
	t.Run("phases", func(t *testing.T) {
		var got *phasesOptions
		_, err := execCaptured(t, newPhasesCmd(func(o *phasesOptions) error { got = o; return nil }),
			"--rounds", "4", "--ranks", "2", "--accounting", "bind.log")
		require.NoError(t, err)
		require.NotNil(t, got)
		assert.Equal(t, []string{"bind.log"}, got.logs)
		assert.Equal(t, 4, got.rounds)
		assert.Equal(t, 2, got.ranks)
		assert.True(t, got.ranksSet)
		assert.True(t, got.accounting)
		assert.False(t, got.keepFirst)
	})
	t.Run("gaps parses --min-gap", func(t *testing.T) {
		var got *gapsOptions
		_, err := execCaptured(t, newGapsCmd(func(o *gapsOptions) error { got = o; return nil }),
			"--min-gap", "50us", "--records", "r.jsonl", "run.log")
		require.NoError(t, err)
		require.NotNil(t, got)
		assert.Equal(t, int64(50_000), got.minGapNs)
		assert.Equal(t, formatText, got.format)
	})
	t.Run("swimlane", func(t *testing.T) {
		var got *swimlaneOptions
		_, err := execCaptured(t, newSwimlaneCmd(func(o *swimlaneOptions) error { got = o; return nil }),
			"-o", "sw.json", "--html", "sw.html", "run.log")
		require.NoError(t, err)
		require.NotNil(t, got)
		assert.Equal(t, "sw.json", got.out)
		assert.Equal(t, "sw.html", got.html)
		assert.Equal(t, []string{"run.log"}, got.logs)
	})
}

// TestUsageErrorsStopBeforeRun checks that a usage error is reported by
// the command itself, before its run function is reached.
func TestUsageErrorsStopBeforeRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cmd  func(t *testing.T) *cobra.Command
		args []string
	}{
		{"gaps --format csv", func(t *testing.T) *cobra.Command {
			return newGapsCmd(func(*gapsOptions) error { t.Error("run function called"); return nil })
		}, []string{"--format", "csv", "run.log"}},
		{"gaps --min-gap 0", func(t *testing.T) *cobra.Command {
			return newGapsCmd(func(*gapsOptions) error { t.Error("run function called"); return nil })
		}, []string{"--min-gap", "0", "run.log"}},
		{"trace without -o", func(t *testing.T) *cobra.Command {
			return newTraceCmd(func(*traceOptions) error { t.Error("run function called"); return nil })
		}, []string{"run.log"}},
		{"pprof without -o", func(t *testing.T) *cobra.Command {
			return newPprofCmd(func(*pprofOptions) error { t.Error("run function called"); return nil })
		}, []string{"run.log"}},
		{"swimlane without -o or --html", func(t *testing.T) *cobra.Command {
			return newSwimlaneCmd(func(*swimlaneOptions) error { t.Error("run function called"); return nil })
		}, []string{"run.log"}},
		{"phases --rounds -1", func(t *testing.T) *cobra.Command {
			return newPhasesCmd(func(*phasesOptions) error { t.Error("run function called"); return nil })
		}, []string{"--rounds", "-1", "bind.log"}},
		{"tpot --format xml", func(t *testing.T) *cobra.Command {
			return newTpotCmd(func(*tpotOptions) error { t.Error("run function called"); return nil })
		}, []string{"--format", "xml", "host.log"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := execCaptured(t, tc.cmd(t), tc.args...)
			var ue *usageError
			assert.ErrorAs(t, err, &ue)
		})
	}
}

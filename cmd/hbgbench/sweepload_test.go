package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --sweep load=0,2 runs one arm under two loads as the two arms of one
// interleaved campaign: the blocks of load-2 ran beside two busy processes
// and say so in their stamps, those of load-0 beside none, the ruler sets
// the load aside as it names the arm, the report names each arm's load,
// and --resume keeps the loads and refuses others.
func TestAbSweepLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j := filepath.Join(dir, "j.jsonl")
	code, out, errText := runCLI("ab", "--journal", j, "--sweep", "load=0,2", "--rounds", "3", "--block", "3", "--warmup", "0", "--seed", "7")
	require.Equal(t, 0, code, errText)
	assert.Contains(t, out, "Under load, arm by arm (--sweep load=): base (load-0): no background load, head (load-2): 2 busy processes beside each block.")
	assert.Contains(t, out, "; load=2: 2 busy processes beside each block")

	jr, err := journal.ReadJournal(j)
	require.NoError(t, err)
	arms := jr.Header.ArmList()
	require.Len(t, arms, 2)
	for i, want := range []int{0, 2} {
		require.NotNil(t, arms[i].Load, "arm %d", i)
		assert.Equal(t, want, *arms[i].Load)
	}
	assert.Equal(t, []string{"load-0", "load-2"}, []string{arms[0].Name, arms[1].Name})
	assert.NotContains(t, jr.Header.Ruler, "load=", "the ruler sets the swept load aside")
	assert.Contains(t, jr.Header.Ruler, journal.ArmPlaceholder)
	counted := map[string]int{}
	for _, b := range jr.Blocks {
		require.Empty(t, b.Error)
		counted[b.Arm]++
		switch b.Arm {
		case "base":
			assert.Empty(t, b.LoadPids, "round %d: load-0 ran beside a load", b.Round)
			assert.Contains(t, b.Stamp, " load=0 ")
		case "head":
			assert.Len(t, b.LoadPids, 2, "round %d: load-2's busy processes", b.Round)
			assert.Positive(t, b.LoadCPUNS)
			assert.Contains(t, b.Stamp, " load=2 ")
		}
	}
	assert.Equal(t, map[string]int{"base": 3, "head": 3}, counted)
	code, bench, errText := runCLI("report", j, "--format", "benchfmt")
	require.Equal(t, 0, code, errText)
	assert.Regexp(t, `(?m)^base: embedded:\S+ load=0$`, bench)
	assert.Regexp(t, `(?m)^head: embedded:\S+ load=2$`, bench)
	code, md, errText := runCLI("report", j, "--format", "markdown")
	require.Equal(t, 0, code, errText)
	assert.Contains(t, md, "base and head: the same arm, embedded:")
	assert.Contains(t, md, "; base under load=0, no background load; head under load=2, 2 busy processes beside each block; on ")

	code, _, errText = runCLI("ab", "--resume", "--journal", j, "--sweep", "load=0,3", "--rounds", "4")
	assert.Equal(t, 1, code)
	assert.Contains(t, errText, "under load=0 vs ")
	assert.Contains(t, errText, "under load=3")
	code, out, errText = runCLI("ab", "--resume", "--journal", j, "--rounds", "4")
	require.Equal(t, 0, code, errText)
	assert.Contains(t, out, "4 of 4 rounds")
}

// --sweep load= refuses a campaign-wide load beside it and a load out of
// bounds, before anything runs.
func TestAbSweepLoadRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"with --load", []string{"--sweep", "load=0,2", "--load", "1"}, "--sweep load=0,2 gives each arm its load: leave out --load and --load-cmd"},
		{"with --load-cmd", []string{"--sweep", "load=0,2", "--load-cmd", "true"}, "leave out --load and --load-cmd"},
		{"too many", []string{"--sweep", "load=0,257"}, `load "257": want 0 to 256 busy processes`},
		{"negative", []string{"--sweep", "load=-1,2"}, `load "-1": want 0 to 256 busy processes`},
		{"not a number", []string{"--sweep", "load=0,two"}, `load "two": want 0 to 256`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := filepath.Join(t.TempDir(), "j.jsonl")
			code, _, errText := runCLI(append([]string{"ab", "--journal", j, "--rounds", "3"}, tc.args...)...)
			assert.Equal(t, 2, code, errText)
			assert.Contains(t, errText, tc.want)
			_, err := os.Stat(j)
			assert.True(t, os.IsNotExist(err), "nothing ran")
		})
	}
}

// A journal of --load written before block stamps named the load (its
// ruler has no load=) resumes: its new blocks stamp load=1, and the ruler
// check sets that word aside for it alone.
func TestAbResumeLoadJournalFromBeforeStampedLoads(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j := filepath.Join(dir, "j.jsonl")
	code, _, errText := runCLI("ab", "--journal", j, "--load", "1", "--rounds", "3", "--block", "3", "--warmup", "0", "--seed", "9")
	require.Equal(t, 0, code, errText)
	b, err := os.ReadFile(j)
	require.NoError(t, err)
	require.Contains(t, string(b), " load=1 ")
	// What main wrote before: the same journal without the stamps' load
	// word, so a ruler (and its hash) without it.
	jr, err := journal.ReadJournal(j)
	require.NoError(t, err)
	oldRuler := strings.Replace(jr.Header.Ruler, " load=1", "", 1)
	old := strings.ReplaceAll(string(b), " load=1 ", " ")
	old = strings.ReplaceAll(old, jr.Header.RulerHash, journal.RulerHash(oldRuler))
	require.NoError(t, os.WriteFile(j, []byte(old), 0o644))

	code, out, errText := runCLI("ab", "--resume", "--journal", j, "--rounds", "4")
	require.Equal(t, 0, code, errText)
	assert.Contains(t, out, "4 of 4 rounds")
	jr, err = journal.ReadJournal(j)
	require.NoError(t, err)
	assert.Equal(t, oldRuler, jr.Header.Ruler)
	last := jr.Blocks[len(jr.Blocks)-1]
	assert.Contains(t, last.Stamp, " load=1 ", "a new block names its load")
	assert.Equal(t, 4, last.Round)
}

// Three loads are three arms, each compared with load-0: every block
// runs beside its own arm's busy processes, and the report and benchfmt
// name each arm's load.
func TestAbSweepLoadThreeArms(t *testing.T) {
	t.Parallel()
	j := filepath.Join(t.TempDir(), "j.jsonl")
	code, out, errText := runCLI("ab", "--journal", j, "--sweep", "load=0,1,2", "--rounds", "3", "--block", "3", "--warmup", "0", "--seed", "3")
	require.Equal(t, 0, code, errText)
	assert.Contains(t, out, "Under load, arm by arm (--sweep load=): load-0: no background load, load-1: 1 busy process beside each block, load-2: 2 busy processes beside each block.")
	assert.Contains(t, out, "arm load-2: embedded:")
	jr, err := journal.ReadJournal(j)
	require.NoError(t, err)
	want := map[string]int{"load-0": 0, "load-1": 1, "load-2": 2}
	for _, b := range jr.Blocks {
		assert.Len(t, b.LoadPids, want[b.Arm], "round %d %s", b.Round, b.Arm)
	}
	assert.Len(t, jr.Blocks, 9)
	code, bench, errText := runCLI("report", j, "--format", "benchfmt")
	require.Equal(t, 0, code, errText)
	assert.Regexp(t, `(?m)^arm-load-1: embedded:\S+ load=1$`, bench)
}

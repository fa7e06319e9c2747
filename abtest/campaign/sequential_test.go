package campaign

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/abreport"
	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/journal/journaltest"
	"github.com/hbgkit/hbgkit/abtest/stats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seqJournal is a synthetic --until-decided campaign of rounds rounds
// (looks every 5), head slower by effect with 5% noise per pass, seeded.
func seqJournal(t *testing.T, rounds int, effect float64) *journal.Journal {
	t.Helper()
	rng := rand.New(rand.NewPCG(24, 3))
	var vals [][2][]float64
	for range rounds {
		var r [2][]float64
		for arm := range 2 {
			for range 3 {
				v := 1000 * (1 + 0.05*rng.NormFloat64())
				if arm == journal.Head {
					v *= 1 + effect
				}
				r[arm] = append(r[arm], v)
			}
		}
		vals = append(vals, r)
	}
	j := journaltest.Synth(t, vals)
	j.Header.Config.LookEvery = 5
	j.Header.Config.Warmup = 0 // no block runs when Run resumes it
	return j
}

// writeJournal writes j's header, then its blocks and round lines round by
// round with, after a round, the look of looks made after it.
func writeJournal(t *testing.T, path string, j *journal.Journal, looks []journal.LookRecord) {
	t.Helper()
	w, err := journal.CreateJournal(path)
	require.NoError(t, err)
	require.NoError(t, w.Append(j.Header))
	for _, r := range j.Rounds {
		for _, b := range j.Blocks {
			if b.Round == r.Round {
				require.NoError(t, w.Append(b))
			}
		}
		require.NoError(t, w.Append(r))
		if l := analysis.LookAfter(looks, r.Round); l != nil {
			require.NoError(t, w.Append(*l))
		}
	}
	require.NoError(t, w.Close())
}

// resumeLooks runs a resumed campaign whose rounds all closed: Run only
// makes the looks the journal lacks. It returns the journal read back.
func resumeLooks(t *testing.T, path string) (*journal.Journal, string) {
	t.Helper()
	w, j, err := journal.OpenJournal(path)
	require.NoError(t, err)
	var warn bytes.Buffer
	require.NoError(t, Run(context.Background(), &Campaign{Header: j.Header, Journal: w, Resumed: j, Warn: &warn}))
	require.NoError(t, w.Close())
	after, err := journal.ReadJournal(path)
	require.NoError(t, err)
	return after, warn.String()
}

// A campaign killed between a round and its look makes the look on
// --resume, on the rounds up to it; one killed after a look does not make
// it again: both reach the decision of the campaign that was not killed.
func TestSequentialResumeMakesTheSameLooks(t *testing.T) {
	t.Parallel()
	j := seqJournal(t, 40, 0.30)
	j.Header.Config.Rounds = 40
	dir := t.TempDir()

	// Killed after every round, before its look: every look is made on
	// resume, in order, and the campaign stops at the decided one.
	all := filepath.Join(dir, "all.jsonl")
	writeJournal(t, all, j, nil)
	ref, warn := resumeLooks(t, all)
	require.NotEmpty(t, ref.Looks)
	last := ref.Looks[len(ref.Looks)-1]
	assert.True(t, last.Decided, "a 30%% slowdown at 5%% noise is decided within 40 rounds: %+v", ref.Looks)
	assert.Equal(t, stats.Slower, last.Decision)
	assert.Less(t, last.Round, 40)
	assert.Contains(t, warn, fmt.Sprintf("look %d after %d rounds", last.Look, last.Round))
	for k, l := range ref.Looks {
		assert.Equal(t, k+1, l.Look)
		assert.Equal(t, 5*(k+1), l.Round)
	}

	// Killed after the first look: it is kept, not made again, and the
	// rest is the same.
	one := filepath.Join(dir, "one.jsonl")
	writeJournal(t, one, j, ref.Looks[:1])
	got, _ := resumeLooks(t, one)
	assert.Equal(t, ref.Looks, got.Looks)

	// A decided campaign resumed again makes no look.
	again, _ := resumeLooks(t, all)
	assert.Equal(t, ref.Looks, again.Looks)

	// The report takes the decision from the journal.
	a := analysis.Analyze(got)
	require.NotNil(t, a.Sequential)
	assert.True(t, a.Sequential.Stopped)
	assert.Equal(t, last.Look, a.Sequential.StopLook)
	assert.Equal(t, "slower", a.PrimaryResult().Verdict.String())
	assert.Positive(t, a.Sequential.FixedRounds)
	// abreport's TestSequentialReport checks what the report says of it.
}

// Identical arms are not called faster or slower: the looks run to the
// last round or stop with no change.
func TestSequentialAANeverFasterOrSlower(t *testing.T) {
	t.Parallel()
	j := seqJournal(t, 20, 0)
	path := filepath.Join(t.TempDir(), "aa.jsonl")
	writeJournal(t, path, j, nil)
	got, _ := resumeLooks(t, path)
	require.NotEmpty(t, got.Looks)
	for _, l := range got.Looks {
		assert.NotContains(t, []stats.Call{stats.Faster, stats.Slower}, l.Decision)
	}
	a := analysis.Analyze(got)
	assert.False(t, a.PrimaryResult().Verdict.IsChange())
	if !got.Looks[len(got.Looks)-1].Decided {
		assert.Equal(t, 20, got.Looks[len(got.Looks)-1].Round)
		assert.Contains(t, abreport.For(a).Headline(), "INCONCLUSIVE")
		assert.Contains(t, abreport.For(a).Headline(), "repeated 95% CI")
		assert.Contains(t, abreport.For(a).Headline(), "--resume --rounds N extends it")
	}
}

// A fixed design's journal has no look line and no sequential part, and
// its header has no look_every: byte-identical to before.
func TestSequentialAbsentFromAFixedDesign(t *testing.T) {
	t.Parallel()
	j := seqJournal(t, 6, 0.3)
	j.Header.Config.LookEvery = 0
	path := filepath.Join(t.TempDir(), "fixed.jsonl")
	writeJournal(t, path, j, nil)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "look_every")
	assert.NotContains(t, string(data), `"type":"look"`)
	a := analysis.Analyze(j)
	assert.Nil(t, a.Sequential)
	assert.Nil(t, abreport.For(a).LooksTable())
	assert.Empty(t, abreport.For(a).SequentialLines())
}

// Look lines that cannot belong are refused, naming the line.
func TestSequentialLookLinesChecked(t *testing.T) {
	t.Parallel()
	j := seqJournal(t, 10, 0.3)
	ok := journal.LookRecord{Type: journal.LineLook, Round: 5, Look: 1, N: 5, MaxRounds: 10, Decision: stats.Inconclusive}
	tests := []struct {
		name  string
		every int
		looks []any
		want  string
	}{
		{"fixed design", 0, []any{ok}, "the campaign is a fixed design"},
		{"numbering", 5, []any{ok, journal.LookRecord{Type: journal.LineLook, Round: 10, Look: 3, N: 10, MaxRounds: 10, Decision: stats.Inconclusive}}, "want look 2"},
		{"rounds", 5, []any{ok, journal.LookRecord{Type: journal.LineLook, Round: 10, Look: 2, N: 5, MaxRounds: 10, Decision: stats.Inconclusive}}, "more than the last look's 5"},
		{"decision", 5, []any{json.RawMessage(`{"type":"look","round":5,"look":1,"n":5,"max_rounds":10,"stat":null,"boundary":null,"crit":null,"delta":null,"rci_lo":null,"rci_hi":null,"decision":"maybe","decided":false}`)}, `decision "maybe"`},
		{"decided", 5, []any{journal.LookRecord{Type: journal.LineLook, Round: 5, Look: 1, N: 5, MaxRounds: 10, Decision: stats.Slower}}, "with decided false"},
		{"after a decision", 5, []any{journal.LookRecord{Type: journal.LineLook, Round: 5, Look: 1, N: 5, MaxRounds: 10, Decision: stats.Slower, Decided: true},
			journal.LookRecord{Type: journal.LineLook, Round: 10, Look: 2, N: 10, MaxRounds: 10, Decision: stats.Inconclusive}}, "after look 1 decided"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			jj := *j
			jj.Header.Config.LookEvery = tc.every
			path := filepath.Join(t.TempDir(), "j.jsonl")
			writeJournal(t, path, &jj, nil)
			w, _, err := journal.OpenJournal(path)
			require.NoError(t, err)
			for _, l := range tc.looks {
				require.NoError(t, w.Append(l))
			}
			require.NoError(t, w.Close())
			_, err = journal.ReadJournal(path)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "look line: ")
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestSequentialConfigRefused(t *testing.T) {
	t.Parallel()
	c := journal.DefaultConfig()
	c.LookEvery = -1
	assert.ErrorContains(t, c.Validate(), "--look-every -1")
	c.LookEvery, c.Rounds = 5, 4
	assert.ErrorContains(t, c.Validate(), "--max-rounds 4: a look needs 5 rounds")
	c.LookEvery, c.Rounds = 12, 10
	assert.ErrorContains(t, c.Validate(), "the first look would come after the last round")
	c.LookEvery, c.PerRank = 5, true
	assert.ErrorContains(t, c.Validate(), "--per-rank")
}

// With --stop-within, identical arms at 5% noise per pass stop for "no
// change of 5% or more" before the last round; a campaign killed after
// any look reaches the same stop on --resume, and the equivalence
// interval it stopped on is journaled with the look.
func TestSequentialStopsWithinOnResume(t *testing.T) {
	t.Parallel()
	j := seqJournal(t, 40, 0)
	j.Header.Config.Rounds = 40
	j.Header.Config.StopWithin = 0.05
	dir := t.TempDir()
	all := filepath.Join(dir, "all.jsonl")
	writeJournal(t, all, j, nil)
	ref, _ := resumeLooks(t, all)
	require.NotEmpty(t, ref.Looks)
	last := ref.Looks[len(ref.Looks)-1]
	require.True(t, last.Decided, "%+v", ref.Looks)
	assert.Equal(t, stats.Bounded, last.Decision)
	assert.Less(t, last.Round, 40)
	assert.GreaterOrEqual(t, float64(last.EqLo), -0.05)
	assert.LessOrEqual(t, float64(last.EqHi), 0.05)
	for _, l := range ref.Looks[:len(ref.Looks)-1] {
		assert.False(t, -0.05 <= float64(l.EqLo) && float64(l.EqHi) <= 0.05, "an earlier look already within: %+v", l)
	}
	one := filepath.Join(dir, "one.jsonl")
	writeJournal(t, one, j, ref.Looks[:1])
	got, _ := resumeLooks(t, one)
	assert.Equal(t, ref.Looks, got.Looks)

	a := analysis.Analyze(got)
	require.NotNil(t, a.Sequential)
	assert.True(t, a.Sequential.Stopped)
	assert.True(t, a.PrimaryResult().Verdict.IsBounded())
	assert.False(t, a.PrimaryResult().Verdict.IsChange())
	assert.Empty(t, a.NoVerdict(), "a stop for no change is a verdict")
	assert.Contains(t, abreport.For(a).Headline(), "NO CHANGE OF 5.0% OR MORE: ")
	for format, want := range map[string][]string{
		"text":     {"NO CHANGE OF 5.0% OR MORE: ", "stops for no change of 5.0% or more", ": bounded; statistic"},
		"markdown": {"NO CHANGE OF 5.0% OR MORE: ", "| bounded |", "bounded: --until-decided stopped for no change: its 90% repeated CI lies within ±5.0%"},
		"json":     {`"stop_within": 0.05`, `"verdict": "bounded"`, `"eq_lo": `},
		"csv":      {",bounded,true"},
		"benchfmt": {`decision="bounded"`},
	} {
		var out bytes.Buffer
		require.NoError(t, abreport.Write(&out, abreport.WriteOptions{Format: format}, a, got))
		for _, w := range want {
			assert.Contains(t, out.String(), w, format)
		}
	}

	// Without the bound the same rounds run to the end.
	j.Header.Config.StopWithin = 0
	off := filepath.Join(dir, "off.jsonl")
	writeJournal(t, off, j, nil)
	noStop, _ := resumeLooks(t, off)
	assert.Equal(t, 40, noStop.Looks[len(noStop.Looks)-1].Round)
}

package campaign

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/hbgkit/hbgkit/abtest/stats"
	"github.com/hbgkit/hbgkit/runtimeharness"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wantOrder is the order a new campaign of h runs its blocks in: the
// warm-ups arm by arm, then each round in its schedule's order.
func wantOrder(h journal.Header) []string {
	names := h.ArmNames()
	var out []string
	for _, n := range names {
		for range h.Config.Warmup {
			out = append(out, n)
		}
	}
	for i := 1; i <= h.Config.Rounds; i++ {
		for _, arm := range h.Schedule.RoundOrder(i) {
			out = append(out, names[arm])
		}
	}
	return out
}

// roundLines maps each round to its round lines' statuses, in order.
func roundLines(j *journal.Journal) map[int][]string {
	out := map[int][]string{}
	for _, r := range j.Rounds {
		out[r.Round] = append(out[r.Round], r.Status)
	}
	return out
}

// TestRunJournalsEveryBlock runs a campaign through fake runners: the
// blocks run in the schedule's order after the warm-ups, each is journaled
// with its place, each round closes with a line that is on disk (read
// back by ReadJournal) before the next round starts, and the logs are kept
// compressed.
func TestRunJournalsEveryBlock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	o := testOptions(dir, 6)
	o.Config.Warmup = 2
	lab := &fakeLab{}
	var progress []int
	var readEachRound []int
	o.Progress = func(done, total int, label string) {
		assert.Equal(t, 2*2+2*6, total)
		progress = append(progress, done)
	}
	o.RoundDone = func(r journal.RoundRecord, total int) {
		assert.Equal(t, 6, total)
		j := readBack(t, o.Journal)
		readEachRound = append(readEachRound, len(j.Rounds))
	}
	s, warn, err := runFake(t, o, lab)
	require.NoError(t, err)
	assert.NotContains(t, warn, "failed")
	assert.Equal(t, 16, s.TotalBlocks())

	j := readBack(t, s.Journal)
	assert.Equal(t, wantOrder(j.Header), lab.ran())
	assert.Equal(t, []int{1, 2, 3, 4, 5, 6}, readEachRound, "every round line is on disk when the round closes")
	assert.Len(t, progress, 16)
	assert.Equal(t, 16, progress[15])
	assert.Equal(t, metric.PooledKey("ControlPlane"), j.Header.Primary, "the first block named the primary metric")
	assert.NotEmpty(t, j.Header.Ruler)
	require.Len(t, j.Blocks, 16)
	for k, b := range j.Blocks {
		assert.Equal(t, k+1, b.Seq)
		assert.Equal(t, 1, b.Try)
		assert.True(t, b.OK(), b.Error)
		assert.Len(t, b.Passes, 5)
		assert.Equal(t, fakeStamp, b.Stamp)
		if k < 4 {
			assert.Zero(t, b.Round)
			assert.Zero(t, b.Attempt, "a warm-up belongs to no attempt")
			assert.Positive(t, b.Warmup)
			continue
		}
		assert.Equal(t, 1, b.Attempt)
		assert.Equal(t, (k-4)/2+1, b.Round)
		assert.Equal(t, (k-4)%2, b.Pos)
		assert.FileExists(t, filepath.Join(s.BlockDir, b.Log))
		assert.True(t, strings.HasSuffix(b.Log, ".log.gz"), b.Log)
	}
	for i := 1; i <= 6; i++ {
		assert.Equal(t, []string{journal.RoundOK}, roundLines(j)[i], "round %d", i)
	}
	assert.Len(t, j.Counted(), 12)
	left, err := filepath.Glob(filepath.Join(s.BlockDir, "*"))
	require.NoError(t, err)
	for _, p := range left {
		assert.True(t, strings.HasSuffix(p, ".log.gz"), "only compressed logs are kept: %s", p)
	}
}

// TestRunOrders: every order runs each round's arms as its schedule says.
func TestRunOrders(t *testing.T) {
	t.Parallel()
	for _, order := range []journal.Order{journal.OrderRMIT, journal.OrderABBA, journal.OrderABAB} {
		t.Run(string(order), func(t *testing.T) {
			t.Parallel()
			o := testOptions(t.TempDir(), 4)
			o.Config.Order = order
			lab := &fakeLab{}
			s, _, err := runFake(t, o, lab)
			require.NoError(t, err)
			assert.Equal(t, wantOrder(s.Header), lab.ran())
		})
	}
}

// TestRunInterruptedThenResumed: a campaign killed in the middle of a
// round (its context cancelled while the block runs) returns
// ErrInterrupted, leaves a journal that reads back whole without the
// block in flight, and --resume runs that round again whole as attempt 2:
// no warm-up again, no round twice, every round counted once.
func TestRunInterruptedThenResumed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	o := testOptions(dir, 5)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Call 2+2*2+2 is round 3's second block.
	lab := &fakeLab{fail: func(n int, arm string, spec runtimeharness.BlockSpec) outcome {
		if n != 8 {
			return nil
		}
		return func(spec runtimeharness.BlockSpec) (runtimeharness.BlockResult, error) {
			cancel() // SIGINT: the block's process group is killed
			res := runtimeharness.BlockResult{ExitCode: -1, Signal: 9}
			return res, res.Err()
		}
	}}
	s, _ := openFake(t, o, lab)
	err := s.Run(ctx)
	require.ErrorIs(t, err, ErrInterrupted)
	s.Close()

	j := readBack(t, o.Journal)
	assert.Len(t, j.Blocks, 7, "the block in flight is not journaled")
	assert.Len(t, j.Rounds, 2)
	assert.Equal(t, 1, j.History().LastAttempt(3), "round 3 started")
	assert.Nil(t, j.History().DoneRound(3))

	ro := o
	ro.Resume, ro.Given = true, map[string]string{}
	again := &fakeLab{}
	s2, warn, err := runFake(t, ro, again)
	require.NoError(t, err)
	assert.Contains(t, warn, "round 3 was interrupted; running it again whole (attempt 2)")
	h := s2.Header
	var want []string
	for i := 3; i <= 5; i++ {
		for _, arm := range h.Schedule.RoundOrder(i) {
			want = append(want, h.ArmNames()[arm])
		}
	}
	assert.Equal(t, want, again.ran(), "no warm-up again; rounds 3 to 5")

	j = readBack(t, o.Journal)
	for i := 1; i <= 5; i++ {
		assert.Equal(t, []string{journal.RoundOK}, roundLines(j)[i], "round %d closed once", i)
	}
	assert.Equal(t, 2, j.History().DoneRound(3).Attempt)
	counted := j.Counted()
	require.Len(t, counted, 10, "every round counted once")
	seen := map[[2]int]bool{}
	for _, c := range counted {
		k := [2]int{c.Block.Round, c.Arm}
		assert.False(t, seen[k], "round %d arm %d counted twice", k[0], k[1])
		seen[k] = true
		if c.Block.Round == 3 {
			assert.Equal(t, 2, c.Block.Attempt, "round 3 counts its second attempt")
		}
	}
	for k, b := range j.Blocks {
		assert.Equal(t, k+1, b.Seq, "the resumed campaign numbers on")
	}
}

// TestResumeFromTheHeaderAlone: a campaign killed in its first block
// leaves a journal of its header alone, written before any block ran,
// with no primary metric or ruler yet; --resume continues it, and the
// first block counted then names both in one ruler line, as in a
// campaign that was not killed (moved here from cmd/hbgbench's
// TestAbKilledInItsFirstBlockResumes, which did it with real signals).
func TestResumeFromTheHeaderAlone(t *testing.T) {
	t.Parallel()
	o := testOptions(t.TempDir(), 3)
	o.Config.Warmup = 1
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lab := &fakeLab{fail: func(n int, arm string, spec runtimeharness.BlockSpec) outcome {
		return func(spec runtimeharness.BlockSpec) (runtimeharness.BlockResult, error) {
			cancel() // SIGKILL or SIGINT in the first block
			res := runtimeharness.BlockResult{ExitCode: -1, Signal: 9}
			return res, res.Err()
		}
	}}
	s, _ := openFake(t, o, lab)
	require.ErrorIs(t, s.Run(ctx), ErrInterrupted)
	s.Close()
	data, err := os.ReadFile(o.Journal)
	require.NoError(t, err)
	require.Equal(t, 1, strings.Count(string(data), "\n"), "the header alone: %s", data)
	j := readBack(t, o.Journal)
	assert.Empty(t, j.Blocks)
	assert.Empty(t, j.Header.Primary.String())
	assert.Empty(t, j.Header.Ruler)

	ro := o
	ro.Resume, ro.Given = true, map[string]string{}
	_, _, err = runFake(t, ro, &fakeLab{})
	require.NoError(t, err)
	j = readBack(t, o.Journal)
	assert.Equal(t, "ControlPlane", j.Header.Primary.String())
	assert.NotEmpty(t, j.Header.Ruler)
	assert.Len(t, j.Rounds, 3)
	for i := 1; i <= 3; i++ {
		assert.Equal(t, []string{journal.RoundOK}, roundLines(j)[i], "round %d", i)
	}
	data, err = os.ReadFile(o.Journal)
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(data), `"type":"ruler"`), "one ruler line")
}

// TestRunInterruptedBetweenBlocks: a context cancelled between two blocks
// stops the campaign before the next one starts.
func TestRunInterruptedBetweenBlocks(t *testing.T) {
	t.Parallel()
	o := testOptions(t.TempDir(), 4)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o.RoundDone = func(r journal.RoundRecord, total int) {
		if r.Round == 2 {
			cancel()
		}
	}
	lab := &fakeLab{}
	s, _ := openFake(t, o, lab)
	require.ErrorIs(t, s.Run(ctx), ErrInterrupted)
	assert.Len(t, lab.ran(), 2+2*2)
	j := readBack(t, o.Journal)
	assert.Len(t, j.Rounds, 2)
}

// TestResumeWarmupsAndDone: a campaign killed in its warm-ups runs the
// missing ones on --resume; a finished one resumed runs nothing.
func TestResumeWarmupsAndDone(t *testing.T) {
	t.Parallel()
	o := testOptions(t.TempDir(), 3)
	o.Config.Warmup = 2
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lab := &fakeLab{fail: func(n int, arm string, spec runtimeharness.BlockSpec) outcome {
		if n == 3 { // head's first warm-up
			cancel()
		}
		return nil
	}}
	s, _ := openFake(t, o, lab)
	require.ErrorIs(t, s.Run(ctx), ErrInterrupted)
	s.Close()
	assert.Len(t, readBack(t, o.Journal).Blocks, 2)

	ro := o
	ro.Resume, ro.Given = true, map[string]string{}
	again := &fakeLab{}
	s2, _, err := runFake(t, ro, again)
	require.NoError(t, err)
	assert.Equal(t, []string{"head", "head"}, again.ran()[:2], "base's warm-ups counted; head's run")
	assert.Len(t, again.ran(), 2+2*3)
	s2.Close()

	done := &fakeLab{}
	_, _, err = runFake(t, ro, done)
	require.NoError(t, err)
	assert.Empty(t, done.ran(), "a finished campaign resumed runs no block")
}

// TestResumeExtends: --resume --rounds N adds rounds to a finished
// campaign from the same seed stream, journaled as an extend line.
func TestResumeExtends(t *testing.T) {
	t.Parallel()
	o := testOptions(t.TempDir(), 4)
	s, _, err := runFake(t, o, &fakeLab{})
	require.NoError(t, err)
	s.Close()

	ro := o
	ro.Resume, ro.Given = true, map[string]string{"rounds": "7"}
	ro.Config.Rounds = 7
	lab := &fakeLab{}
	s, warn, err := runFake(t, ro, lab)
	require.NoError(t, err)
	assert.Contains(t, warn, "extending the campaign from 4 to 7 rounds (same seed stream, ruler and config)")
	assert.Len(t, lab.ran(), 2*3, "rounds 5 to 7 only")

	j := readBack(t, o.Journal)
	assert.Equal(t, 7, j.Header.Config.Rounds)
	assert.Len(t, j.Rounds, 7)
	assert.Len(t, j.Counted(), 14)
	fresh, err := journal.NewSchedule(o.Config.Order, o.Seed, 7, o.Config.Warmup)
	require.NoError(t, err)
	for i := 1; i <= 7; i++ {
		assert.Equal(t, fresh.RoundOrder(i), j.Header.Schedule.RoundOrder(i), "round %d: the order a 7-round campaign draws", i)
	}
	data, err := os.ReadFile(o.Journal)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"type":"extend"`)
	_ = s
}

// TestResumeRefusesAnotherCampaign: a flag given on --resume that
// disagrees with the journal is refused, naming the flag, before any
// block runs; so is a journal that exists without --resume.
func TestResumeRefusesAnotherCampaign(t *testing.T) {
	t.Parallel()
	o := testOptions(t.TempDir(), 3)
	o.Config.Warmup = 0
	s, _, err := runFake(t, o, &fakeLab{})
	require.NoError(t, err)
	s.Close()

	tests := []struct {
		name  string
		given map[string]string
		edit  func(o *Options)
		want  string
	}{
		{"block", map[string]string{"block": "7"}, func(o *Options) { o.Config.Block = 7 }, "--block: journal 5, given 7"},
		{"seed", map[string]string{"seed": "12"}, func(o *Options) { o.Seed = 12 }, "--seed: journal 11, given 12"},
		{"fixed design", map[string]string{"until-decided": ""}, func(o *Options) {}, "--until-decided: the journal is a fixed design"},
		{"arms", map[string]string{"head": "x"}, func(o *Options) { o.Arms[1] = journal.DefaultBase }, "arms: journal "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ro := o
			ro.Resume, ro.Given = true, tc.given
			tc.edit(&ro)
			_, err := Open(context.Background(), ro)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "--resume: "+o.Journal+" is a journal of another campaign:\n  ")
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	_, err = Open(context.Background(), o)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "journal "+o.Journal+" exists: resume it with --resume")
}

// TestRunFailures: a failed block is journaled with its error and retried;
// a block that fails beyond its retries drops its round; too many dropped
// rounds, a failed warm-up and a stamp that differs abort the campaign; a
// host that cannot keep a block's log stops it without blaming the arm.
func TestRunFailures(t *testing.T) {
	t.Parallel()
	boom := exitWith(3, "starting\nboom\n")
	tests := []struct {
		name   string
		rounds int
		warmup int
		fail   func(n int, arm string, spec runtimeharness.BlockSpec) outcome
		// err is a substring of Run's error, "" for none; abort says it
		// is an AbortError.
		err   string
		abort bool
		warn  []string
		check func(t *testing.T, j *journal.Journal)
	}{{
		name: "retried", rounds: 10,
		fail: func(n int, arm string, spec runtimeharness.BlockSpec) outcome {
			if strings.HasSuffix(spec.Log, "r001-base-a1-t1.log") {
				return boom
			}
			return nil
		},
		warn: []string{"block r001-base-a1-t1 failed: block exited with status 3\n  its log ",
			"r001-base-a1-t1.log.gz ends:\n    | starting\n    | boom\n"},
		check: func(t *testing.T, j *journal.Journal) {
			var tries []int
			for _, b := range j.Blocks {
				if b.Round == 1 && b.Arm == "base" {
					tries = append(tries, b.Try)
					if b.Try == 1 {
						assert.Equal(t, "block exited with status 3", b.Error)
						assert.Equal(t, 3, b.Exit)
					}
				}
			}
			assert.Equal(t, []int{1, 2}, tries)
			assert.Equal(t, journal.RoundOK, j.History().DoneRound(1).Status)
			assert.Len(t, j.Counted(), 20)
		},
	}, {
		name: "round dropped", rounds: 10,
		fail: func(n int, arm string, spec runtimeharness.BlockSpec) outcome {
			if strings.Contains(spec.Log, "r002-head") {
				return boom
			}
			return nil
		},
		warn: []string{"round 2 dropped: head block failed after 2 tries: block exited with status 3\n"},
		check: func(t *testing.T, j *journal.Journal) {
			r := j.History().DoneRound(2)
			assert.Equal(t, journal.RoundDropped, r.Status)
			assert.Equal(t, "head block failed after 2 tries: block exited with status 3", r.Reason)
			assert.Len(t, j.Rounds, 10, "the campaign goes on")
			assert.Len(t, j.Counted(), 18)
		},
	}, {
		name: "too many dropped", rounds: 10,
		fail: func(n int, arm string, spec runtimeharness.BlockSpec) outcome {
			if strings.Contains(spec.Log, "r002-head") || strings.Contains(spec.Log, "r005-base") {
				return boom
			}
			return nil
		},
		err: "campaign aborted: 2 of 10 rounds dropped, more than --max-fail 10% allows; last: base block failed after 2 tries: block exited with status 3", abort: true,
		check: func(t *testing.T, j *journal.Journal) {
			assert.Len(t, j.Rounds, 5, "the campaign stopped at the round past --max-fail")
		},
	}, {
		name: "warm-up", rounds: 3, warmup: 1,
		fail: func(n int, arm string, spec runtimeharness.BlockSpec) outcome {
			if arm == "head" {
				return boom
			}
			return nil
		},
		err: "campaign aborted: warm-up block 1 of head failed after 2 tries: block exited with status 3 (its log: ", abort: true,
		check: func(t *testing.T, j *journal.Journal) {
			assert.Len(t, j.Blocks, 3)
			assert.Empty(t, j.Rounds)
		},
	}, {
		name: "stamp mismatch", rounds: 3,
		fail: func(n int, arm string, spec runtimeharness.BlockSpec) outcome {
			if strings.Contains(spec.Log, "r002-") {
				return stamped("another-model v2 --rounds N")
			}
			return nil
		},
		err: "campaign aborted: stamp mismatch: round 2 ", abort: true,
		check: func(t *testing.T, j *journal.Journal) {
			last := j.Blocks[len(j.Blocks)-1]
			assert.Equal(t, "stamp mismatch", last.Error)
			assert.Equal(t, 2, last.Round)
		},
	}, {
		name: "no passes", rounds: 3,
		fail: func(n int, arm string, spec runtimeharness.BlockSpec) outcome {
			if strings.Contains(spec.Log, "r001-head") {
				return func(spec runtimeharness.BlockSpec) (runtimeharness.BlockResult, error) {
					return writeBlock(spec, fakeStamp, 0, nil)
				}
			}
			return nil
		},
		warn: []string{"failed: its log ", "r001-head-a1-t1.log.gz has no passes (no chip.run span and no bind phase= line)",
			"round 1 dropped: head block failed after 2 tries: its log "},
		err: "campaign aborted: 1 of 3 rounds dropped, more than --max-fail 10% allows", abort: true,
	}, {
		name: "a signal and a timeout", rounds: 10,
		fail: func(n int, arm string, spec runtimeharness.BlockSpec) outcome {
			switch {
			case strings.HasSuffix(spec.Log, "r003-base-a1-t1.log"):
				return func(spec runtimeharness.BlockSpec) (runtimeharness.BlockResult, error) {
					res := runtimeharness.BlockResult{ExitCode: -1, Signal: 11}
					return res, res.Err()
				}
			case strings.HasSuffix(spec.Log, "r004-head-a1-t1.log"):
				return func(spec runtimeharness.BlockSpec) (runtimeharness.BlockResult, error) {
					res := runtimeharness.BlockResult{ExitCode: -1, Signal: 9, TimedOut: true}
					return res, res.Err()
				}
			}
			return nil
		},
		warn: []string{"block r003-base-a1-t1 failed: block killed by signal 11", "r003-base-a1-t1.log.gz cannot be read: ",
			"block r004-head-a1-t1 failed: block timed out after 0s and was killed"},
		check: func(t *testing.T, j *journal.Journal) {
			var sig, timedOut int
			for _, b := range j.Blocks {
				sig = max(sig, b.Signal)
				if b.TimedOut {
					timedOut++
				}
			}
			assert.Equal(t, 11, sig)
			assert.Equal(t, 1, timedOut)
			assert.Len(t, j.Counted(), 20)
		},
	}, {
		name: "empty log", rounds: 3,
		fail: func(n int, arm string, spec runtimeharness.BlockSpec) outcome {
			if n == 1 {
				return exitWith(1, "")
			}
			return nil
		},
		warn: []string{"block r001-", "failed: block exited with status 1\n  its log ", "-t1.log.gz is empty\n"},
	}, {
		name: "host failure", rounds: 3,
		fail: func(n int, arm string, spec runtimeharness.BlockSpec) outcome {
			if n == 3 {
				return func(spec runtimeharness.BlockSpec) (runtimeharness.BlockResult, error) {
					return runtimeharness.BlockResult{}, &runtimeharness.LocalError{Op: "writing the block log", Err: errors.New("no space left on device")}
				}
			}
			return nil
		},
		err: "writing the block log: no space left on device; that is this host's failure, not the arm's: free space, then --resume runs the round again",
		check: func(t *testing.T, j *journal.Journal) {
			assert.Len(t, j.Blocks, 2, "the block is not journaled")
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := testOptions(t.TempDir(), tc.rounds)
			o.Config.Warmup = tc.warmup
			s, warn, err := runFake(t, o, &fakeLab{fail: tc.fail})
			if tc.err == "" {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				var abort *AbortError
				assert.Equal(t, tc.abort, errors.As(err, &abort), "an AbortError: %v", err)
			}
			for _, w := range tc.warn {
				assert.Contains(t, warn, w)
			}
			j := readBack(t, s.Journal)
			if tc.check != nil {
				tc.check(t, j)
			}
		})
	}
}

// TestRunPrimaryMissing: a block whose warm passes lack the primary metric
// fails, naming it.
func TestRunPrimaryMissing(t *testing.T) {
	t.Parallel()
	o := testOptions(t.TempDir(), 3)
	o.Config.Warmup, o.Config.MaxFail = 0, 1
	s, warn := openFake(t, o, &fakeLab{})
	s.Header.Primary = metric.PooledKey("Kernel")
	require.NoError(t, s.Run(context.Background()))
	assert.Contains(t, warn.String(), "failed: no warm pass recorded the primary metric Kernel (5 passes, 2 cold)")
}

// TestRunShards: a shard's schedule is drawn from its own seed, its
// journal is named for it in the campaign home, and two shards of one
// campaign run different orders.
func TestRunShards(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var orders [][]string
	for i := range 2 {
		sh, err := journal.NewShard("camp", i, 2, 42, true)
		require.NoError(t, err)
		o := testOptions(dir, 8)
		o.Journal, o.Shard = "", sh
		lab := &fakeLab{}
		s, _, err := runFake(t, o, lab)
		require.NoError(t, err)
		home := filepath.Join(dir, HomeDir)
		assert.Equal(t, journal.ShardJournal(home, sh), s.Journal)
		assert.FileExists(t, filepath.Join(home, ".gitignore"))
		j := readBack(t, s.Journal)
		assert.Equal(t, journal.ShardSeed(42, i), j.Header.Schedule.Seed)
		require.NotNil(t, j.Header.Shard)
		assert.Equal(t, i, j.Header.Shard.Index)
		assert.Len(t, j.Counted(), 16)
		orders = append(orders, lab.ran())
		s.Close()

		// The shard resumes from its journal's name alone.
		ro := o
		ro.Resume, ro.Given = true, map[string]string{}
		_, _, err = runFake(t, ro, &fakeLab{})
		require.NoError(t, err)
	}
	assert.NotEqual(t, orders[0], orders[1])
}

// TestOpenInTheHome: a campaign given no journal gets a new one in the
// campaign home, and --resume given none takes the newest there.
func TestOpenInTheHome(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	o := testOptions(dir, 3)
	o.Journal = ""
	s, _, err := runFake(t, o, &fakeLab{})
	require.NoError(t, err)
	s.Close()
	assert.Equal(t, filepath.Join(dir, HomeDir), filepath.Dir(s.Journal))

	ro := o
	ro.Resume, ro.Given = true, map[string]string{}
	s2, _ := openFake(t, ro, &fakeLab{})
	assert.Equal(t, s.Journal, s2.Journal)
	s2.Close()

	ro.Repo = t.TempDir()
	_, err = Open(context.Background(), ro)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--resume: no campaign journal in ")
}

// TestRunSequentialLooks: an --until-decided campaign journals a look
// after every --look-every rounds and stops at the one that decides; on
// --resume a decided campaign runs no block and refuses --rounds.
func TestRunSequentialLooks(t *testing.T) {
	t.Parallel()
	o := testOptions(t.TempDir(), 40)
	o.Config.LookEvery, o.Config.Warmup = 5, 0
	lab := &fakeLab{effect: map[string]float64{"head": 0.30}, noise: 0.05}
	s, warn, err := runFake(t, o, lab)
	require.NoError(t, err)
	s.Close()

	j := readBack(t, o.Journal)
	require.NotEmpty(t, j.Looks)
	last := j.Looks[len(j.Looks)-1]
	assert.True(t, last.Decided, "a 30%% slowdown at 5%% noise is decided within 40 rounds: %+v", j.Looks)
	assert.Equal(t, stats.Slower, last.Decision)
	assert.Less(t, last.Round, 40)
	assert.Len(t, j.Rounds, last.Round, "the campaign stopped at the deciding look")
	assert.Len(t, lab.ran(), 2*last.Round)
	for k, l := range j.Looks {
		assert.Equal(t, k+1, l.Look)
		assert.Equal(t, 5*(k+1), l.Round)
		assert.Contains(t, warn, fmt.Sprintf("look %d after %d rounds (%d counted, at most 40): ", l.Look, l.Round, l.N))
	}

	ro := o
	ro.Resume, ro.Given = true, map[string]string{}
	again := &fakeLab{}
	_, _, err = runFake(t, ro, again)
	require.NoError(t, err)
	assert.Empty(t, again.ran(), "a decided campaign resumed runs no block")
	assert.Equal(t, j.Looks, readBack(t, o.Journal).Looks, "and makes no look")

	ro.Given = map[string]string{"rounds": "60"}
	ro.Config.Rounds = 60
	_, err = Open(context.Background(), ro)
	var settings *SettingsError
	require.ErrorAs(t, err, &settings)
	assert.Contains(t, err.Error(), fmt.Sprintf("--resume --rounds 60: the campaign was decided (slower) at look %d after %d rounds; a decided campaign is not extended: start a new one", last.Look, last.Round))
}

// TestRunSequentialAA: identical arms run to the last round or stop with
// no change, never faster or slower.
func TestRunSequentialAA(t *testing.T) {
	t.Parallel()
	o := testOptions(t.TempDir(), 20)
	o.Config.LookEvery, o.Config.Warmup = 5, 0
	_, _, err := runFake(t, o, &fakeLab{noise: 0.05})
	require.NoError(t, err)
	j := readBack(t, o.Journal)
	require.NotEmpty(t, j.Looks)
	for _, l := range j.Looks {
		assert.NotContains(t, []string{stats.Faster.String(), stats.Slower.String()}, l.Decision)
	}
}

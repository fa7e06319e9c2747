package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/campaign"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/journal/journaltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// verdicts is an analysis of a finished two-arm campaign of 6 rounds
// whose primary rows have the given verdicts (one per rank), written as
// the report writes them ("" for none).
func verdicts(vs ...string) *analysis.Analysis {
	a := &analysis.Analysis{Complete: 6}
	a.Header.Config.Rounds = 6
	for _, v := range vs {
		verdict := analysis.NoVerdict
		if v != "" {
			if err := verdict.UnmarshalText([]byte(v)); err != nil {
				panic(err)
			}
		}
		a.Metrics = append(a.Metrics, analysis.MetricResult{Name: "ControlPlane", Primary: true, Verdict: verdict})
	}
	return a
}

// TestExitPolicy: how ab and aa end, from how the campaign ended, its
// analysis and the options: the exit status, whether the report is
// printed, and what stderr says before and after it.
func TestExitPolicy(t *testing.T) {
	t.Parallel()
	const j = "/c/j 1.jsonl"
	inconclusive := verdicts("inconclusive")
	inconclusive.Metrics[0].Extra = 10
	partial := verdicts("inconclusive")
	partial.Metrics[0].Extra, partial.Partial = 10, true
	noVerdict := verdicts("")
	noVerdict.Metrics[0].Error = "no warm pass"
	differentWork := verdicts("no change")
	differentWork.WorkDiffs = []analysis.WorkDiff{{Metric: "work.graph_upload.submissions", Text: "head submits 105 Graphs per bind, base 20"}}
	arms := &analysis.Analysis{Complete: 6, Comparisons: []*analysis.Analysis{verdicts("no change"), verdicts("slower")}}
	noRound := verdicts()
	noRound.Complete = 0
	blockFailed := &campaign.AbortError{Err: errors.New("block exited with status 3")}
	resume := "hbgbench: interrupted: the block in flight was killed; resume with: hbgbench ab --resume --journal /c/j 1.jsonl\n"
	tests := []struct {
		name          string
		err           error
		a             *analysis.Analysis
		opts          AbOptions
		code          int
		report        bool
		before, after string
	}{
		{name: "finished, no gate", a: verdicts("slower"), code: exitOK, report: true},
		{name: "fail-on slower matches slower", a: verdicts("slower"), opts: AbOptions{FailOn: "slower"}, code: exitFailOn, report: true},
		{name: "fail-on slower ignores faster", a: verdicts("faster"), opts: AbOptions{FailOn: "slower"}, code: exitOK, report: true},
		{name: "fail-on change matches faster", a: verdicts("faster"), opts: AbOptions{FailOn: "change"}, code: exitFailOn, report: true},
		{name: "fail-on change ignores no change", a: verdicts("no change"), opts: AbOptions{FailOn: "change"}, code: exitOK, report: true},
		{name: "fail-on looks at every rank", a: verdicts("no change", "more CPU"), opts: AbOptions{FailOn: "slower"}, code: exitFailOn, report: true},
		{name: "fail-on looks at every arm", a: arms, opts: AbOptions{FailOn: "slower"}, code: exitFailOn, report: true},
		{name: "no verdict is not a success", a: noVerdict, code: exitNoVerdict, report: true,
			after: "hbgbench: no verdict on ControlPlane: no warm pass\n"},
		{name: "no verdict under a gate", a: noVerdict, opts: AbOptions{FailOn: "change"}, code: exitNoVerdict, report: true,
			after: "hbgbench: no verdict on ControlPlane: no warm pass\n"},
		{name: "no primary metric", a: verdicts(), code: exitNoVerdict, report: true,
			after: "hbgbench: no verdict: no primary metric was measured\n"},
		{name: "inconclusive says how to settle it", a: inconclusive, code: exitOK, report: true,
			after: "hbgbench: to settle it, extend this campaign: hbgbench ab --resume --journal '/c/j 1.jsonl' --rounds 16\n"},
		{name: "aa names itself in the hint", a: inconclusive, opts: AbOptions{Options: campaign.Options{AA: true}}, code: exitOK, report: true,
			after: "hbgbench: to settle it, extend this campaign: hbgbench aa --resume --journal '/c/j 1.jsonl' --rounds 16\n"},
		{name: "a partial campaign is not extended", a: partial, code: exitOK, report: true},
		{name: "different work without the flag", a: differentWork, code: exitOK, report: true},
		{name: "expect-same-work fails on different work", a: differentWork, opts: AbOptions{ExpectSameWork: true}, code: exitFailOn, report: true,
			after: "hbgbench: --expect-same-work: DIFFERENT WORK: the arms did not do the same work, so the verdict below compares different jobs: head submits 105 Graphs per bind, base 20\n"},
		{name: "interrupted prints the partial report", err: campaign.ErrInterrupted, a: verdicts("slower"), opts: AbOptions{FailOn: "slower"},
			code: exitInterrupted, report: true, before: resume},
		{name: "interrupted before any round", err: campaign.ErrInterrupted, a: noRound, code: exitInterrupted, report: true, before: resume},
		{name: "interrupted while building", err: campaign.ErrInterrupted, code: exitInterrupted,
			before: "hbgbench: interrupted while building the worktrees; no block ran, the worktrees are removed\n"},
		{name: "settings refused at open", err: &campaign.SettingsError{Err: errors.New("--cpus 99: not a CPU")}, code: exitUsage},
		{name: "error at open", err: errors.New("journal is in use"), code: exitFailed},
		{name: "error after complete rounds", err: blockFailed, a: verdicts("slower"), opts: AbOptions{FailOn: "slower"}, code: exitFailed, report: true},
		{name: "error before any round", err: blockFailed, a: noRound, code: exitFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			end := exitPolicy(tc.err, tc.a, &tc.opts, j)
			assert.Equal(t, ending{code: tc.code, report: tc.report, before: tc.before, after: tc.after}, end)
		})
	}
}

// fakeSession is a campaign that journaled j when it ran, and ran into err.
type fakeSession struct {
	j      *journal.Journal
	err    error
	ran    bool
	closed bool
}

func (s *fakeSession) Opened() (journal.Header, string) { return s.j.Header, "/c/j.jsonl" }
func (s *fakeSession) TotalBlocks() int                 { return 2 * len(s.j.Rounds) }
func (s *fakeSession) Run(context.Context) error        { s.ran = true; return s.err }
func (s *fakeSession) Read() (*journal.Journal, error)  { return s.j, nil }
func (s *fakeSession) Close()                           { s.closed = true }

// TestAbRunWithAFakeSession runs abRun over sessions that journaled a
// synthetic campaign, head 20% slower in every round: the report, the
// announcement, the exit status and the session closed, with no block run.
func TestAbRunWithAFakeSession(t *testing.T) {
	t.Parallel()
	var vals [][2][]float64
	for i := range 6 {
		d := float64(i)
		vals = append(vals, [2][]float64{{100 + d, 101 + d, 102 + d}, {120 + d, 121 + d, 123 + d}})
	}
	tests := []struct {
		name     string
		runErr   error
		openErr  error
		failOn   string
		want     error
		stdout   string // a prefix of stdout
		stderr   []string
		announce bool
	}{
		{name: "finished", stdout: "SLOWER: ControlPlane", announce: true},
		{name: "fail-on slower", failOn: "slower", want: &exitError{code: exitFailOn}, stdout: "SLOWER: ControlPlane", announce: true},
		{name: "interrupted", runErr: campaign.ErrInterrupted, want: &exitError{code: exitInterrupted}, stdout: "SLOWER: ControlPlane",
			stderr: []string{"resume with: hbgbench ab --resume --journal /c/j.jsonl"}, announce: true},
		{name: "settings refused", openErr: &campaign.SettingsError{Err: errors.New("no such CPU")}, want: &usageError{err: errors.New("no such CPU")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := &fakeSession{j: journaltest.Synth(t, vals), err: tc.runErr}
			var out, errb bytes.Buffer
			opts := newAbOptions([]string{"hbgbench", "ab"})
			opts.Out, opts.Err, opts.Format, opts.FailOn = &out, &errb, "text", tc.failOn
			opts.Context = func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }
			opts.Open = func(_ context.Context, o campaign.Options) (Session, error) {
				assert.Contains(t, o.Arms[journal.Base].Spec, "mirror=per_bind", "no arm given: the default pair")
				if tc.openErr != nil {
					return nil, tc.openErr
				}
				return s, nil
			}
			err := abRun(opts)
			if tc.want == nil {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
				assert.Equal(t, tc.want.Error(), err.Error())
				assert.IsType(t, tc.want, err)
			}
			assert.True(t, strings.HasPrefix(out.String(), tc.stdout), out.String())
			for _, w := range tc.stderr {
				assert.Contains(t, errb.String(), w)
			}
			if tc.announce {
				assert.Contains(t, errb.String(), "6 rounds of 5 passes per arm, journal /c/j.jsonl")
			}
			assert.Equal(t, tc.openErr == nil, s.ran && s.closed, "a session that opened is run and closed")
		})
	}
}

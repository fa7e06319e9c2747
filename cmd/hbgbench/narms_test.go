package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/abreport"
	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/stats"
	"github.com/hbgkit/hbgkit/internal/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// narmsJournal is the journal of a real 3-arm campaign on the embedded
// model (zero and same: delay_us=0, slow: delay_us=100000; 6 rounds of 3
// passes, --cold 1), its passes cut to eight metrics to keep it small.
var narmsJournal = filepath.Join("testdata", "report", "narms.jsonl")

// TestReportGoldenNArms: the report of a campaign of three arms in every
// format, byte for byte: one verdict line and one row of the primary
// table per arm, then each arm's families against the base.
func TestReportGoldenNArms(t *testing.T) {
	t.Parallel()
	for _, f := range abreport.Formats {
		t.Run(f, func(t *testing.T) {
			code, out, errText := runCLI("report", narmsJournal, "--format", f)
			require.Equal(t, 0, code, errText)
			golden.Check(t, filepath.Join("testdata", "report", "narms."+f), normalize(out))
		})
	}
	code, out, errText := runCLI("report", narmsJournal, "--format", "markdown", "--redact")
	require.Equal(t, 0, code, errText)
	golden.Check(t, filepath.Join("testdata", "report", "narms.redact.markdown"), normalize(out))
	assert.NotContains(t, out, "(host vm)")

	code, out, _ = runCLI("report", narmsJournal, "--format", "markdown")
	require.Equal(t, 0, code)
	visible, _ := markdownShape(t, out)
	assert.Len(t, visible, 3, "the arms' table, then one table per arm")

	code, out, _ = runCLI("report", narmsJournal, "--format", "json")
	require.Equal(t, 0, code)
	var a analysis.Analysis
	require.NoError(t, json.Unmarshal([]byte(out), &a))
	require.Len(t, a.Comparisons, 2)
	assert.Equal(t, "same", a.Comparisons[0].Header.Arms[journal.Head].Name)
	assert.Equal(t, "slow", a.Comparisons[1].Header.Arms[journal.Head].Name)
	// The primary p is Holm-adjusted over the two arms.
	var ps []float64
	for _, c := range a.Comparisons {
		require.NotNil(t, c.PrimaryResult())
		ps = append(ps, float64(c.PrimaryResult().P))
	}
	for i, want := range stats.Holm(ps) {
		assert.InDelta(t, want, float64(a.Comparisons[i].PrimaryResult().HolmP), 1e-12)
	}
	assert.Contains(t, out, `"all_arms"`)
}

// TestAbNArmsSweepFindsTheSlowArm: a 3-arm sweep on the embedded model,
// the base and an identical arm at delay_us=0 and one at 200 ms per bind
// (ten times the ControlPlane of the others or more, even under load):
// the slow arm is called slower and fails --fail-on slower (exit 3); the
// identical arm is not called faster or slower. Under a load of 10 or
// more on 2 CPUs a pass's ControlPlane ranges from 6 to 100 ms; the
// block minimum and a ±20% margin keep both calls far from chance.
// Every round ran one block of each arm, in the order its seed draws.
func TestAbNArmsSweepFindsTheSlowArm(t *testing.T) {
	t.Parallel()
	j := filepath.Join(t.TempDir(), "s.jsonl")
	code, out, errText := runCLI("ab", "--sweep", "delay_us=0,0,200000", "--rounds", "8", "--block", "4", "--warmup", "0",
		"--block-stat", "min", "--margin", "20%", "--seed", "3", "--journal", j, "--fail-on", "slower")
	require.Equal(t, exitFailOn, code, "%s\n%s", errText, out)
	assert.Contains(t, errText, "hbgbench: delay_us-0 vs delay_us-0-2 vs delay_us-200000: 8 rounds")
	assert.Regexp(t, `(?m)^SLOWER: delay_us-200000 against delay_us-0: ControlPlane: Δ \+`, out)
	assert.Contains(t, out, "ControlPlane, every arm against base delay_us-0")

	jr, err := journal.ReadJournal(j)
	require.NoError(t, err)
	a := analysis.Analyze(jr)
	require.Len(t, a.Comparisons, 2)
	same, slow := a.Comparisons[0].PrimaryResult(), a.Comparisons[1].PrimaryResult()
	assert.Equal(t, "slower", slow.Verdict.String(), "Δ %.1f%%", 100*float64(slow.Delta))
	assert.Greater(t, float64(slow.Delta), 0.5)
	assert.False(t, same.Verdict.IsChange(), "the identical arm: Δ %.1f%% CI [%.1f%%, %.1f%%]",
		100*float64(same.Delta), 100*float64(same.CILo), 100*float64(same.CIHi))
	assert.Equal(t, 8, a.Complete)

	names := jr.Header.ArmNames()
	assert.Equal(t, []string{"delay_us-0", "delay_us-0-2", "delay_us-200000"}, names)
	for i, o := range jr.Header.Schedule.Orders {
		assert.ElementsMatch(t, []int{0, 1, 2}, o, "round %d", i+1)
	}
	perRound := map[int]map[string]int{}
	for _, b := range jr.Blocks {
		if perRound[b.Round] == nil {
			perRound[b.Round] = map[string]int{}
		}
		perRound[b.Round][b.Arm]++
		assert.Equal(t, names[jr.Header.Schedule.RoundOrder(b.Round)[b.Pos]], b.Arm, "round %d position %d", b.Round, b.Pos)
	}
	for r := 1; r <= 8; r++ {
		assert.Equal(t, map[string]int{names[0]: 1, names[1]: 1, names[2]: 1}, perRound[r], "round %d", r)
	}
}

// TestAbNArmsKilledResumes kills hbgbench (SIGKILL) inside a round of a
// 3-arm campaign: --resume reruns that round whole and ends with every
// round closed once, each with one counted block of every arm in the
// position its seed gives, as an uninterrupted run would.
func TestAbNArmsKilledResumes(t *testing.T) {
	t.Parallel()
	j := filepath.Join(t.TempDir(), "k.jsonl")
	cmd := exec.Command(os.Args[0], "ab", "--journal", j, "--rounds", "3", "--block", "3", "--warmup", "0", "--seed", "23",
		"--arm", "p=embedded:delay_us=150001", "--arm", "q=embedded:delay_us=150001,mirror=retained", "--arm", "r=embedded:delay_us=150002")
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	killMidRound(t, cmd, j)

	before, err := journal.ReadJournal(j)
	require.NoError(t, err)
	interrupted := len(before.Rounds) + 1
	require.Equal(t, interrupted, before.Blocks[len(before.Blocks)-1].Round)

	code, out, errText := runCLI("ab", "--resume", "--journal", j)
	require.Equal(t, 0, code, errText)
	assert.Contains(t, errText, fmt.Sprintf("round %d was interrupted; running it again whole (attempt 2)", interrupted))
	assert.Contains(t, out, "every arm against base p")
	assert.Equal(t, map[int]int{1: 1, 2: 1, 3: 1}, roundsOK(t, j))

	after, err := journal.ReadJournal(j)
	require.NoError(t, err)
	assert.Equal(t, before.Header.Schedule, after.Header.Schedule)
	want, err := journal.NewScheduleN(journal.OrderRMIT, 23, 3, 0, 3)
	require.NoError(t, err)
	assert.Equal(t, want.Orders, after.Header.Schedule.Orders)
	names := after.Header.ArmNames()
	counted := map[int][]string{}
	for _, cb := range after.Counted() {
		b := cb.Block
		counted[b.Round] = append(counted[b.Round], b.Arm)
		assert.Equal(t, names[want.RoundOrder(b.Round)[b.Pos]], b.Arm, "round %d position %d", b.Round, b.Pos)
	}
	for r := 1; r <= 3; r++ {
		assert.Equal(t, names, counted[r], "round %d counts one block of every arm", r)
	}
	a := analysis.Analyze(after)
	assert.Equal(t, 3, a.Complete)
	assert.False(t, a.Partial)
}

// TestAbNArmsExtend: --sweep of an environment variable over one command
// arm makes an arm per value with KEY=VALUE in its environment; the
// campaign extends with --resume --rounds N, the new rounds' orders from
// the same seed stream, and every arm runs in every new round.
func TestAbNArmsExtend(t *testing.T) {
	t.Parallel()
	j := filepath.Join(t.TempDir(), "e.jsonl")
	arm := `cmd:test -n "$HBG_NARMS_T" && ` + catArm(t)
	code, out, errText := runCLI("ab", "--journal", j, "--arm", "c="+arm, "--sweep", "HBG_NARMS_T=x,y,z",
		"--rounds", "3", "--block", "3", "--warmup", "0", "--seed", "4")
	require.Equal(t, 0, code, errText)
	assert.Contains(t, out, "every arm against base HBG_NARMS_T-x")
	before, err := journal.ReadJournal(j)
	require.NoError(t, err)
	require.Len(t, before.Header.AllArms, 3)
	for i, v := range []string{"x", "y", "z"} {
		a := before.Header.AllArms[i]
		assert.Equal(t, journal.KindCommand, a.Kind)
		assert.Equal(t, []string{"HBG_NARMS_T=" + v}, a.Env)
	}

	code, out, errText = runCLI("ab", "--resume", "--journal", j, "--rounds", "5", "--format", "markdown")
	require.Equal(t, 0, code, errText)
	assert.Contains(t, errText, "extending the campaign from 3 to 5 rounds")
	assert.Contains(t, out, "5 of 5 rounds")
	assert.Equal(t, map[int]int{1: 1, 2: 1, 3: 1, 4: 1, 5: 1}, roundsOK(t, j))
	after, err := journal.ReadJournal(j)
	require.NoError(t, err)
	want, err := journal.NewScheduleN(journal.OrderRMIT, 4, 5, 0, 3)
	require.NoError(t, err)
	assert.Equal(t, want.Orders, after.Header.Schedule.Orders)
	assert.Equal(t, before.Header.Schedule.Orders, after.Header.Schedule.Orders[:3])
	n := map[int]int{}
	for _, cb := range after.Counted() {
		n[cb.Block.Round]++
	}
	assert.Equal(t, map[int]int{1: 3, 2: 3, 3: 3, 4: 3, 5: 3}, n)
	// Resuming with the same arm flags runs nothing more; with other
	// arms it is refused, naming them.
	code, _, errText = runCLI("ab", "--resume", "--journal", j, "--arm", "c="+arm, "--sweep", "HBG_NARMS_T=x,y,z")
	require.Equal(t, 0, code, errText)
	assert.Equal(t, map[int]int{1: 1, 2: 1, 3: 1, 4: 1, 5: 1}, roundsOK(t, j))
	code, _, errText = runCLI("ab", "--resume", "--journal", j, "--sweep", "HBG_NARMS_T=x,y", "--arm", "c="+arm)
	assert.Equal(t, 1, code)
	assert.Contains(t, errText, "is a journal of another campaign")
}

// TestAbNArmsUsageErrors: named arms that cannot be a campaign are usage
// errors (exit 2) naming the flag, before anything runs.
func TestAbNArmsUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"one arm", []string{"--arm", "a=embedded:"}, "one --arm: a campaign compares at least two arms"},
		{"duplicate names", []string{"--arm", "a=embedded:", "--arm", "a=embedded:delay_us=5"}, `arm name "a" given twice`},
		{"baseline names no arm", []string{"--arm", "a=embedded:", "--arm", "b=embedded:delay_us=5", "--baseline", "c"}, "--baseline c: no arm has that name; the arms: a, b"},
		{"baseline alone", []string{"--baseline", "a"}, "--baseline names one of the arms of --arm or --sweep"},
		{"arm with base", []string{"--arm", "a=embedded:", "--arm", "b=embedded:", "--base", "embedded:"}, "give the arms with --arm/--sweep or with --base/--head"},
		{"sweep with head-cmd", []string{"--sweep", "delay_us=0,5", "--head-cmd", "true"}, "give the arms with --arm/--sweep or with --base/--head"},
		{"no name", []string{"--arm", "embedded:delay_us=5", "--arm", "b=embedded:"}, `--arm "embedded:delay_us=5": arm name "embedded:delay_us"`},
		{"empty spec", []string{"--arm", "a=", "--arm", "b=embedded:"}, `--arm "a=": want NAME=SPEC`},
		{"bad name", []string{"--arm", "a/b=embedded:", "--arm", "b=embedded:"}, `arm name "a/b"`},
		{"bad embedded spec", []string{"--arm", "a=embedded:", "--arm", "b=embedded:delay_us=x"}, "--arm b: arm \"embedded:delay_us=x\""},
		{"sweep one value", []string{"--sweep", "delay_us=5"}, "want two values or more"},
		{"sweep no key", []string{"--sweep", "0,1,2"}, "want KEY=V1,V2,..."},
		{"sweep unknown key", []string{"--sweep", "nosuch=1,2"}, "nosuch is not a setting of the embedded model"},
		{"sweep bad value", []string{"--sweep", "delay_us=0,-5"}, "--sweep delay_us=0,-5: arm"},
		{"sweep of two arms", []string{"--sweep", "delay_us=0,5", "--arm", "a=embedded:", "--arm", "b=embedded:"}, "--sweep varies one arm"},
		{"sweep env on embedded", []string{"--sweep", "K=1,2", "--arm", "a=embedded:"}, "K is not a setting of the embedded model"},
		{"artifact", []string{"--sweep", "delay_us=0,1,2", "--artifact", "x"}, "--artifact compares the builds of two arms"},
		{"until decided", []string{"--sweep", "delay_us=0,1,2", "--until-decided", "--rounds", "10"}, "--until-decided with 3 arms"},
		{"shard", []string{"--sweep", "delay_us=0,1,2", "--shard", "0/2", "--campaign", "c"}, "--shard with 3 arms"},
		{"a metric the third arm does not write", []string{"--sweep", "epoch=e2,e3,e1", "--metric", "minflt"},
			"--metric minflt: no warm pass of embedded:workload=dsv4-pair,mirror=per_bind,recorders=prewarm=8,graph_pod=current,delay_us=0,args_bytes=4194304,ranks=1,epoch=e1,"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"ab", "--journal", filepath.Join(t.TempDir(), "u.jsonl"), "--rounds", "3"}, tc.args...)
			code, _, errText := runCLI(args...)
			assert.Equal(t, 2, code, errText)
			assert.Contains(t, errText, tc.want)
			assert.NotContains(t, errText, "panic")
		})
	}
}

// TestAbTwoNamedArmsAreATwoArmCampaign: two --arm arms are base and head
// of an ordinary campaign: no arm list in the journal, the two-arm report.
func TestAbTwoNamedArmsAreATwoArmCampaign(t *testing.T) {
	t.Parallel()
	j := filepath.Join(t.TempDir(), "two.jsonl")
	cat := catArm(t)
	code, out, errText := runCLI("ab", "--journal", j, "--arm", "new=cmd:"+cat, "--arm", "old=cmd:"+cat, "--baseline", "old",
		"--rounds", "3", "--block", "3", "--warmup", "0", "--seed", "3")
	require.Equal(t, 0, code, errText)
	jr, err := journal.ReadJournal(j)
	require.NoError(t, err)
	assert.Empty(t, jr.Header.AllArms)
	assert.Equal(t, "old", jr.Header.Arms[journal.Base].Name)
	assert.Equal(t, "new", jr.Header.Arms[journal.Head].Name)
	assert.Equal(t, []string{"base", "head"}, jr.Header.ArmNames())
	assert.Contains(t, out, "ControlPlane *")
	assert.False(t, strings.Contains(out, "every arm against"))
}

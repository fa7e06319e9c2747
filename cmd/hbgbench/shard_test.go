package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/campaign"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The arms of the shard tests: +100% of injected delay (20 ms against
// 40 ms of busy wait a bind), far beyond the noise of a machine at load 15.
var shardArms = []string{"--base", "embedded:mirror=retained,delay_us=20000", "--head", "embedded:mirror=retained,delay_us=40000"}

// startShard starts hbgbench (this test binary as main) in dir as shard
// spec of campaign on host.
func startShard(t *testing.T, dir, host, spec, campaign string, extra ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	args := append([]string{"ab", "--shard", spec, "--campaign", campaign, "--block", "5", "--warmup", "0", "--format", "json"}, extra...)
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), mainEnv+"=1", journal.HostEnv+"="+host, journal.CardEnv+"=")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	return cmd, &errb
}

// mergedReport runs report on args and decodes its json.
func mergedReport(t *testing.T, args ...string) *analysis.Merged {
	t.Helper()
	code, out, errText := runCLI(append(append([]string{"report"}, args...), "--format", "json")...)
	require.Equal(t, 0, code, errText)
	var m analysis.Merged
	require.NoError(t, json.Unmarshal([]byte(out), &m), out)
	return &m
}

// TestShardsMergeAsOneCampaign runs two shards of one campaign as two
// processes with different host identities, merges their journals, and
// checks the pooled Δ against the same rounds analysed as one campaign.
func TestShardsMergeAsOneCampaign(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const rounds = "8"
	a, aErr := startShard(t, dir, "host-a", "0/2", "c25", append([]string{"--rounds", rounds}, shardArms...)...)
	b, bErr := startShard(t, dir, "host-b", "1/2", "c25", append([]string{"--rounds", rounds}, shardArms...)...)
	require.NoError(t, a.Wait(), aErr.String())
	require.NoError(t, b.Wait(), bErr.String())

	home := filepath.Join(dir, campaign.HomeDir, "c25")
	ja := filepath.Join(home, "shard-0of2-host-a.jsonl")
	jb := filepath.Join(home, "shard-1of2-host-b.jsonl")
	m := mergedReport(t, home)
	require.Len(t, m.Shards, 2)
	assert.Equal(t, "host-a", m.Shards[0].Shard.Host)
	assert.Equal(t, "host-b", m.Shards[1].Shard.Host)
	assert.Equal(t, 16, m.Pooled.Complete)
	p := m.Pooled.PrimaryResult()
	require.NotNil(t, p)
	assert.Equal(t, "slower", p.Verdict.String())

	// The same rounds as one campaign: shard 1's rounds after shard 0's,
	// one paired analysis of all 16.
	j0, err := journal.ReadJournal(ja)
	require.NoError(t, err)
	j1, err := journal.ReadJournal(jb)
	require.NoError(t, err)
	assert.NotEqual(t, j0.Header.Schedule.Seed, j1.Header.Schedule.Seed, "each shard draws its own seed stream")
	one := *j0
	one.Header.Config.Rounds = 16
	for _, blk := range j1.Blocks {
		if blk.Round > 0 {
			blk.Round += 8
		}
		one.Blocks = append(one.Blocks, blk)
	}
	for _, r := range j1.Rounds {
		r.Round += 8
		one.Rounds = append(one.Rounds, r)
	}
	single := analysis.Analyze(&one).PrimaryResult()
	require.Equal(t, 16, single.Rounds)
	assert.True(t, float64(single.CILo) <= float64(p.Delta) && float64(p.Delta) <= float64(single.CIHi),
		"pooled Δ %v outside the single campaign's interval [%v, %v]", p.Delta, single.CILo, single.CIHi)

	// Every format merges; text names both shards.
	for _, f := range []string{"text", "markdown", "csv"} {
		code, out, errText := runCLI("report", ja, jb, "--format", f)
		require.Equal(t, 0, code, errText)
		assert.Contains(t, out, "host-a", f)
		assert.Contains(t, out, "host-b", f)
	}
	code, out, _ := runCLI("report", ja, jb)
	require.Equal(t, 0, code)
	assert.Contains(t, out, "pooled: SLOWER: ControlPlane")
	code, _, errText := runCLI("report", ja, jb, "--format", "benchfmt")
	assert.Equal(t, 2, code)
	assert.Contains(t, errText, "benchfmt is per journal")

	// The same shard twice is refused, naming both files.
	dup := filepath.Join(t.TempDir(), "copy.jsonl")
	data, err := os.ReadFile(ja)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(dup, data, 0o644))
	code, _, errText = runCLI("report", ja, jb, dup)
	assert.Equal(t, 1, code)
	assert.Contains(t, errText, "shard 0/2 given twice")
	assert.Contains(t, errText, "copy.jsonl")

	// A hand-edited shard is refused with its file and line: an index
	// past the count or below 0 (which merged as "2 of 2 shards" beside
	// "missing: 1/2"), and a removed ruler line (which merged without the
	// ruler check).
	dataB, err := os.ReadFile(jb)
	require.NoError(t, err)
	edited := func(name, body string) string {
		p := filepath.Join(t.TempDir(), name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	for _, idx := range []string{"5", "-1"} {
		bad := edited("shard.jsonl", strings.Replace(string(dataB), `"index":1,`, `"index":`+idx+`,`, 1))
		code, _, errText = runCLI("report", ja, bad)
		assert.Equal(t, 1, code, errText)
		assert.Contains(t, errText, bad+":1: header: shard.index "+idx+": want 0 to 1 (shard.count is 2)")
	}
	var kept []string
	rulerAt := 0
	for i, l := range strings.SplitAfter(string(dataB), "\n") {
		if strings.Contains(l, `"type":"ruler"`) {
			rulerAt = i + 1
			continue
		}
		kept = append(kept, l)
	}
	require.NotZero(t, rulerAt)
	bad := edited("noruler.jsonl", strings.Join(kept, ""))
	code, _, errText = runCLI("report", ja, bad)
	assert.Equal(t, 1, code, errText)
	assert.Contains(t, errText, fmt.Sprintf("%s:%d: block line: ", bad, rulerAt))
	assert.Contains(t, errText, "no ruler line comes before it")

	// One journal alone is the single-campaign report, as before.
	code, out, errText = runCLI("report", ja)
	require.Equal(t, 0, code, errText)
	assert.NotContains(t, out, "MERGED")
}

func TestShardFlagsNeedEachOther(t *testing.T) {
	t.Parallel()
	code, _, errText := runCLI("ab", "--shard", "0/2", "--rounds", "3")
	assert.Equal(t, 2, code)
	assert.Contains(t, errText, "give --campaign ID as well")
	code, _, errText = runCLI("ab", "--campaign", "x", "--rounds", "3")
	assert.Equal(t, 2, code)
	assert.Contains(t, errText, "give --shard I/N as well")
	code, _, errText = runCLI("ab", "--shard", "2/2", "--campaign", "x")
	assert.Equal(t, 2, code)
	assert.Contains(t, errText, "--shard \"2/2\": want I from 0 to 1")
	code, _, errText = runCLI("ab", "--shard", "0/2", "--campaign", "a/b")
	assert.Equal(t, 2, code)
	assert.Contains(t, errText, "--campaign \"a/b\"")
}

// TestShardsOfGitArms runs two shards of a campaign on git refs at once on
// one host with one --cache: each checks its worktrees out in a cache
// directory of its own, and the merge finds the head slower.
func TestShardsOfGitArms(t *testing.T) {
	t.Parallel()
	repo, c1, _ := testRepo(t)
	dir, cache := t.TempDir(), t.TempDir()
	git := []string{"--repo", repo, "--base", c1[:10], "--head", "pr", "--run", "./run.sh {rounds} {out}", "--rounds", "6", "--cache", cache}
	a, aErr := startShard(t, dir, "git-a", "0/2", "g25", git...)
	b, bErr := startShard(t, dir, "git-b", "1/2", "g25", git...)
	require.NoError(t, a.Wait(), aErr.String())
	require.NoError(t, b.Wait(), bErr.String())
	// The journals go to the campaign home of the repository of the arms.
	m := mergedReport(t, filepath.Join(repo, campaign.HomeDir, "g25"))
	require.Len(t, m.Shards, 2)
	assert.Equal(t, "slower", m.Pooled.PrimaryResult().Verdict.String())
	ents, err := os.ReadDir(cache)
	require.NoError(t, err)
	assert.Empty(t, ents, "each shard's cache directory is removed with its worktrees")
	assert.Equal(t, 1, worktreeCount(t, repo), "a worktree was left")
}

// TestShardsOfCommandArms: a command arm runs as a shard as any other,
// and the shard resumes by its --shard and --campaign alone: the journal
// is found in the campaign home under this host's name. (A kill and a
// resume inside a round are TestAbKilledCampaignResumes; a shard's
// resume from its name is abtest/campaign TestRunShards.)
func TestShardsOfCommandArms(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cat := catArm(t)
	cmds := []string{"--base-cmd", cat, "--head-cmd", cat, "--rounds", "3"}
	a, aErr := startShard(t, dir, "cmd-a", "0/1", "k1", cmds...)
	require.NoError(t, a.Wait(), aErr.String())
	j := filepath.Join(dir, campaign.HomeDir, "k1", "shard-0of1-cmd-a.jsonl")
	jr, err := journal.ReadJournal(j)
	require.NoError(t, err)
	require.NotNil(t, jr.Header.Shard)
	assert.Equal(t, journal.KindCommand, jr.Header.Arms[journal.Base].Kind)
	assert.Equal(t, 3, len(jr.Rounds))

	r, rErr := startShard(t, dir, "cmd-a", "0/1", "k1", "--resume")
	require.NoError(t, r.Wait(), rErr.String())
	assert.Contains(t, rErr.String(), "journal "+j)
	assert.Equal(t, map[int]int{1: 1, 2: 1, 3: 1}, roundsOK(t, j), "a finished shard resumed runs no round")
	m := mergedReport(t, filepath.Join(dir, campaign.HomeDir, "k1"))
	require.Len(t, m.Shards, 1)
	assert.Equal(t, 3, m.Pooled.Complete)
	assert.False(t, m.Pooled.Partial)
}

// asShard returns a journal made shard index of count of campaign: its
// header given a shard.
func asShard(t *testing.T, data []byte, campaign string, index, count int) []byte {
	t.Helper()
	head, rest, _ := bytes.Cut(data, []byte("\n"))
	var h map[string]any
	require.NoError(t, json.Unmarshal(head, &h))
	h["shard"] = journal.ShardInfo{Campaign: campaign, Index: index, Count: count, CampaignSeed: 1, Host: fmt.Sprintf("host-%d", index)}
	b, err := json.Marshal(h)
	require.NoError(t, err)
	return append(append(b, '\n'), rest...)
}

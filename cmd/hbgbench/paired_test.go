package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// primaryOf returns the primary row of a json report: Δ, its CI, the
// verdict and the rounds.
func primaryOf(t *testing.T, js string) (delta, lo, hi float64, verdict string, rounds int) {
	t.Helper()
	var doc struct {
		Metrics []struct {
			Primary bool    `json:"primary"`
			Delta   float64 `json:"delta"`
			CILo    float64 `json:"ci_lo"`
			CIHi    float64 `json:"ci_hi"`
			Verdict string  `json:"verdict"`
			Rounds  int     `json:"rounds"`
		} `json:"metrics"`
	}
	require.NoError(t, json.Unmarshal([]byte(js), &doc), js)
	for _, m := range doc.Metrics {
		if m.Primary {
			return m.Delta, m.CILo, m.CIHi, m.Verdict, m.Rounds
		}
	}
	t.Fatalf("no primary row in %s", js)
	return
}

// TestComparePairedIsAbOnTheSameBlocks: the block logs an ab campaign
// kept, given to compare --paired by a manifest (in the order they ran)
// and by order, give the Δ, CI and verdict of the campaign's own report.
func TestComparePairedIsAbOnTheSameBlocks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j := filepath.Join(dir, "j.jsonl")
	code, _, errText := runCLI("ab", "--base", "embedded:mirror=retained", "--head", "embedded:mirror=retained,delay_us=20000",
		"--rounds", "6", "--block", "6", "--journal", j, "--seed", "3")
	require.Equal(t, 0, code, errText)
	jr, err := journal.ReadJournal(j)
	require.NoError(t, err)
	var manifest strings.Builder
	var base, head []string
	for _, b := range jr.Blocks {
		if b.Round == 0 || !b.OK() {
			continue
		}
		log := filepath.Join("j.d", b.Log)
		fmt.Fprintf(&manifest, "%d %s %s\n", b.Round, b.Arm, log)
		if b.Arm == "base" {
			base = append(base, filepath.Join(dir, log))
		} else {
			head = append(head, filepath.Join(dir, log))
		}
	}
	m := filepath.Join(dir, "manifest.txt")
	require.NoError(t, os.WriteFile(m, []byte("# the campaign's blocks\n"+manifest.String()), 0o644))

	code, want, errText := runCLI("report", j, "--format", "json")
	require.Equal(t, 0, code, errText)
	wd, wlo, whi, wv, wr := primaryOf(t, want)
	require.Equal(t, "slower", wv)
	for name, args := range map[string][]string{
		"manifest": {"compare", "--paired", "--manifest", m, "--format", "json"},
		"order":    append(append(append([]string{"compare", "--paired", "--base"}, base...), "--head"), append(head, "--format", "json")...),
	} {
		code, got, errText := runCLI(args...)
		require.Equal(t, 0, code, "%s: %s", name, errText)
		d, lo, hi, v, r := primaryOf(t, got)
		assert.Equal(t, wd, d, name)
		assert.Equal(t, wlo, lo, name)
		assert.Equal(t, whi, hi, name)
		assert.Equal(t, wv, v, name)
		assert.Equal(t, wr, r, name)
	}
	code, text, errText := runCLI("compare", "--paired", "--manifest", m)
	require.Equal(t, 0, code, errText)
	assert.Contains(t, text, "6 of 6 rounds of logs captured by hand, paired by manifest "+m)
	assert.Regexp(t, `base ran first in [0-6] of 6 rounds`, text)
	assert.Contains(t, text, "SLOWER: ControlPlane")
}

// harnessTo writes one run of the embedded model to path.
func harnessTo(t *testing.T, path string, args ...string) {
	t.Helper()
	code, _, errText := runCLI(append([]string{"harness", "-o", path}, args...)...)
	require.Equal(t, 0, code, errText)
}

// The seeds' hand-interleaved shapes, end to end on harness logs.
func TestComparePairedSeedShapes(t *testing.T) {
	t.Parallel()
	t.Run("#2013 base and retained alternating over two ranks", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		for i := 1; i <= 6; i++ {
			harnessTo(t, filepath.Join(dir, fmt.Sprintf("base-%d.log", i)), "--ranks", "2", "--rounds", "4")
			harnessTo(t, filepath.Join(dir, fmt.Sprintf("retained-%d.log", i)), "--ranks", "2", "--rounds", "4", "--mirror", "retained")
		}
		code, out, errText := runCLI("compare", "--paired", dir, "--per-rank")
		require.Equal(t, 0, code, errText)
		assert.Contains(t, out, "@rank0")
		assert.Contains(t, out, "@rank1")
		assert.Contains(t, out, "paired by names")
	})
	t.Run("#1870 50 runs a side switched every 5, 10 dropped at each end", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		var m strings.Builder
		for r := 1; r <= 10; r++ {
			first, second := "base", "head"
			if r%2 == 0 {
				first, second = "head", "base"
			}
			for _, arm := range []string{first, second} {
				for k := 1; k <= 5; k++ {
					name := fmt.Sprintf("%s-%d-%d.log", arm, r, k)
					args := []string{"--rounds", "3", "--mirror", "retained"}
					if arm == "head" {
						args = append(args, "--delay-us", "3000")
					}
					harnessTo(t, filepath.Join(dir, name), args...)
					fmt.Fprintf(&m, "%d %s %s\n", r, arm, name)
				}
			}
		}
		mf := filepath.Join(dir, "manifest.txt")
		require.NoError(t, os.WriteFile(mf, []byte(m.String()), 0o644))
		code, out, errText := runCLI("compare", "--paired", "--manifest", mf, "--drop-first", "1", "--drop-last", "1", "--format", "json")
		require.Equal(t, 0, code, errText)
		_, _, _, v, rounds := primaryOf(t, out)
		assert.Equal(t, 8, rounds, "10 rounds of 5 runs a side, the first and last dropped")
		assert.Equal(t, "slower", v, "3 ms more in host_orch, 5 processes a block")
		code, text, errText := runCLI("compare", "--paired", "--manifest", mf, "--drop-first", "1", "--drop-last", "1")
		require.Equal(t, 0, code, errText)
		assert.Contains(t, text, "base ran first in 4 of 8 rounds")
	})
	t.Run("#1929 two opposite-order passes", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		for _, n := range []string{"base-1", "head-1", "head-2", "base-2"} {
			args := []string{"--rounds", "6"}
			if strings.HasPrefix(n, "head") {
				args = append(args, "--mirror", "retained")
			}
			harnessTo(t, filepath.Join(dir, n+".log"), args...)
		}
		mf := filepath.Join(dir, "m.txt")
		require.NoError(t, os.WriteFile(mf, []byte("1 base base-1.log\n1 head head-1.log\n2 head head-2.log\n2 base base-2.log\n"), 0o644))
		code, out, errText := runCLI("compare", "--paired", "--manifest", mf)
		require.Equal(t, 0, code, errText)
		assert.Contains(t, out, "2 of 2 rounds of logs captured by hand")
		assert.Contains(t, out, "base ran first in 1 of 2 rounds")
	})
}

// compare --paired --until-decided over logs that keep arriving: too few
// pairs say how many more to capture; enough of a large change decide.
// At most 10 rounds: the first look of 40 (after 5) cannot stop, by
// design (its O'Brien–Fleming boundary is 5.54). The change is 50 ms on
// a bind of about 1 ms, and 10 pairs are given, so that a loaded host's
// outlying rounds cannot keep the last look from deciding (at the first,
// after 5 pairs, the trimmed t has 2 degrees of freedom).
func TestComparePairedUntilDecided(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	add := func(i int) {
		harnessTo(t, filepath.Join(dir, fmt.Sprintf("base-%d.log", i)), "--rounds", "8", "--mirror", "retained")
		harnessTo(t, filepath.Join(dir, fmt.Sprintf("head-%d.log", i)), "--rounds", "8", "--mirror", "retained", "--delay-us", "50000")
	}
	for i := 1; i <= 3; i++ {
		add(i)
	}
	code, out, errText := runCLI("compare", "--paired", dir, "--until-decided", "--max-rounds", "10")
	require.Equal(t, 0, code, errText)
	assert.Contains(t, errText, "hbgbench: not decided after 3 pairs: capture 2 more (the next look is after pair 5, at most 10) and run compare --paired again on all of them")
	assert.Contains(t, out, "UNTIL DECIDED")
	for i := 4; i <= 10; i++ {
		add(i)
	}
	code, out, errText = runCLI("compare", "--paired", dir, "--until-decided", "--max-rounds", "10")
	require.Equal(t, 0, code, errText)
	assert.NotContains(t, errText, "not decided")
	assert.Regexp(t, `(stopped early at look 1 after 5 rounds|ran to --max-rounds: look 2 after 10 rounds): slower`, out)
	assert.Contains(t, out, "SLOWER: ControlPlane")
}

func TestComparePairedUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, n := range []string{"base-1.log", "head-1.log", "base-2.log"} {
		harnessTo(t, filepath.Join(dir, n), "--rounds", "3")
	}
	odd := filepath.Join(dir, "notes.log")
	require.NoError(t, os.WriteFile(odd, []byte("x\n"), 0o644))
	bad := filepath.Join(dir, "bad.txt")
	require.NoError(t, os.WriteFile(bad, []byte("1 base base-1.log\nx head head-1.log\n"), 0o644))
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--manifest", bad}, 2, "--manifest needs --paired"},
		{[]string{"--paired", "--base", filepath.Join(dir, "base-1.log"), filepath.Join(dir, "base-2.log"), "--head", filepath.Join(dir, "head-1.log")}, 1, "2 base logs and 1 head logs"},
		{[]string{"--paired", dir}, 1, "round 2 has no log of head"},
		{[]string{"--paired", odd}, 1, "notes.log: not named ARM-ROUND.log"},
		{[]string{"--paired", "--manifest", bad}, 1, bad + ":2: round \"x\": want a number from 1"},
		{[]string{"--paired", "--manifest", bad, dir}, 1, "--paired takes one of"},
		{[]string{"--paired", dir, "--look-every", "3"}, 2, "--look-every needs --until-decided"},
	} {
		code, _, errText := runCLI(append([]string{"compare"}, tc.args...)...)
		assert.Equal(t, tc.code, code, "%v: %s", tc.args, errText)
		assert.Contains(t, errText, tc.want, "%v", tc.args)
	}
}

// scripts/capture-ab.sh captures alternating runs of two commands in the
// shape compare --paired reads: logs named by arm and round, and a
// manifest in the order they ran.
func TestCaptureScript(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "ab")
	bin := os.Getenv(testBinEnv)
	run := func(extra string) string {
		return fmt.Sprintf("%s=1 %s harness --rounds 6 --mirror retained %s", mainEnv, bin, extra)
	}
	cmd := exec.Command("sh", filepath.Join("..", "..", "scripts", "capture-ab.sh"), "6", dir, run(""), run("--delay-us 20000"))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "capture-ab.sh: 6 pairs in "+dir)
	manifest, err := os.ReadFile(filepath.Join(dir, "manifest.txt"))
	require.NoError(t, err)
	assert.Contains(t, string(manifest), "1 base base-1.log\n1 head head-1.log\n2 head head-2.log\n2 base base-2.log\n")
	code, text, errText := runCLI("compare", "--paired", "--manifest", filepath.Join(dir, "manifest.txt"))
	require.Equal(t, 0, code, errText)
	assert.Contains(t, text, "SLOWER: ControlPlane")
	assert.Contains(t, text, "base ran first in 3 of 6 rounds")

	// A second capture into the same directory is refused.
	cmd = exec.Command("sh", filepath.Join("..", "..", "scripts", "capture-ab.sh"), "1", dir, "true", "true")
	out, err = cmd.CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(out), "manifest.txt exists")
}

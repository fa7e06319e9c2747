package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/campaign"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/internal/procgroup"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startCampaign starts a real hbgbench process (this test binary as main)
// running a slow embedded campaign: every bind of both arms busy-waits
// 150 ms in host_orch, so a block takes about half a second.
func startCampaign(t *testing.T, journal string, extra ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	args := append([]string{"ab", "--journal", journal, "--rounds", "4", "--block", "3", "--warmup", "0",
		"--seed", "21", "--base", "embedded:delay_us=150000", "--head", "embedded:delay_us=150000,mirror=retained"}, extra...)
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	return cmd, &out, &errb
}

// waitJournal polls the journal until cond holds on its lines.
func waitJournal(t *testing.T, path string, cond func(lines []string) bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(path)
		var lines []string
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasSuffix(l, "}") {
				lines = append(lines, l)
			}
		}
		if cond(lines) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("journal %s never reached the state the test waits for", path)
}

// midRound holds when the last journal line is a block of a round not yet
// closed: the campaign is inside a round.
func midRound(lines []string) bool {
	if len(lines) < 3 {
		return false
	}
	last := lines[len(lines)-1]
	return strings.Contains(last, `"type":"block"`) && strings.Contains(lines[len(lines)-2], `"type":"round"`)
}

// blockProcesses lists the live processes whose command line names the
// campaign's block directory: the embedded children.
func blockProcesses(dir string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		cl := strings.ReplaceAll(string(b), "\x00", " ")
		if strings.Contains(cl, dir) && strings.Contains(cl, "__harness-child") {
			// A zombie has an empty cmdline; a live child shows its args.
			out = append(out, e.Name()+": "+cl)
		}
	}
	return out
}

func waitNoOrphans(t *testing.T, dir string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if len(blockProcesses(dir)) == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("block processes outlived hbgbench: %v", blockProcesses(dir))
}

// TestAbKilledCampaignResumes kills hbgbench with SIGKILL inside a round:
// its block's child dies with it (Pdeathsig), the lock dies with it, and
// --resume completes the campaign with the same schedule, the interrupted
// round rerun whole as a new attempt, no round lost or counted twice.
func TestAbKilledCampaignResumes(t *testing.T) {
	t.Parallel()
	j := filepath.Join(t.TempDir(), "c.jsonl")
	cmd, _, _ := startCampaign(t, j)
	killMidRound(t, cmd, j)

	before, err := journal.ReadJournal(j)
	require.NoError(t, err)
	interrupted := len(before.Rounds) + 1
	last := before.Blocks[len(before.Blocks)-1]
	// The kill came within a poll (20 ms) of the round's first block; a
	// block takes half a second, so the round is open.
	require.Equal(t, interrupted, last.Round, "the kill should land inside round %d", interrupted)

	code, out, errText := runCLI("ab", "--resume", "--journal", j)
	require.Equal(t, 0, code, errText)
	assert.Contains(t, errText, fmt.Sprintf("round %d was interrupted; running it again whole (attempt 2)", interrupted))
	assert.Contains(t, out, "ControlPlane *")
	assert.Equal(t, map[int]int{1: 1, 2: 1, 3: 1, 4: 1}, roundsOK(t, j))

	after, err := journal.ReadJournal(j)
	require.NoError(t, err)
	assert.Equal(t, before.Header.Schedule, after.Header.Schedule)
	for _, r := range after.Rounds {
		want := 1
		if r.Round == interrupted {
			want = 2
		}
		assert.Equal(t, want, r.Attempt, "round %d", r.Round)
	}
	// Every counted block ran in its round's scheduled position.
	for _, b := range after.Blocks {
		if b.Round == 0 || !b.OK() {
			continue
		}
		first := after.Header.Schedule.Firsts[b.Round-1]
		assert.Equal(t, b.Arm == first, b.Pos == 0, "round %d %s at position %d", b.Round, b.Arm, b.Pos)
	}
	a := analysis.Analyze(after)
	assert.Equal(t, 4, a.Complete)
	assert.False(t, a.Partial)
}

// TestAbInterruptPrintsPartialReport sends SIGINT inside a round: the
// block in flight is killed, the partial report printed, exit status 130.
func TestAbInterruptPrintsPartialReport(t *testing.T) {
	t.Parallel()
	j := filepath.Join(t.TempDir(), "c.jsonl")
	cmd, out, errb := startCampaign(t, j)
	waitJournal(t, j, midRound)
	start := time.Now()
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err := cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "stderr: %s", errb.String())
	assert.Equal(t, 130, ee.ExitCode(), errb.String())
	assert.Less(t, time.Since(start), 20*time.Second, "the block in flight is killed, not waited for")
	assert.Contains(t, errb.String(), "interrupted: the block in flight was killed; resume with: hbgbench ab --resume --journal "+j)
	// The signal lands inside round 2 (or, on a very slow machine, just
	// after it closed).
	assert.Regexp(t, `PARTIAL: [12] of 4 rounds complete`, out.String())
	assert.Contains(t, out.String(), "ControlPlane *")
	waitNoOrphans(t, campaign.BlockDir(j))
	_, err = os.Stat(journal.LockPath(j))
	assert.True(t, os.IsNotExist(err), "Ctrl-C leaves the journal's lock file: %v", err)
}

// TestAbKilledTakesTheBlocksBackgroundProcesses: `kill -9` of hbgbench
// mid-block kills what the block's command started in the background as
// well as the command itself (internal/procgroup's watchdog).
func TestAbKilledTakesTheBlocksBackgroundProcesses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	arm := `sleep 60 & echo $! > "` + dir + `/bg.tmp"; mv "` + dir + `/bg.tmp" "` + dir + `/bg"; wait`
	cmd := exec.Command(os.Args[0], "ab", "--journal", filepath.Join(dir, "j.jsonl"), "--base-cmd", arm, "--head-cmd", arm,
		"--rounds", "3", "--block", "3", "--warmup", "0")
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	require.NoError(t, cmd.Start())
	var pid int
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(filepath.Join(dir, "bg")); err == nil {
			pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
			require.NoError(t, err)
			break
		}
		require.True(t, time.Now().Before(deadline), "the block never started")
	}
	require.True(t, procgroup.Running(pid))
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_, _ = cmd.Process.Wait()
	for deadline := time.Now().Add(10 * time.Second); procgroup.Running(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the block's background sleep %d outlived the killed hbgbench", pid)
		}
	}
}

// TestAbFullDiskIsNotTheArms: the campaign's disk fills mid-campaign (a
// small tmpfs, mounted for the test). That is hbgbench's failure, not the
// arm's: the campaign stops with a clear error, no round is dropped or
// blamed on an arm, and once space is freed --resume completes every
// round.
func TestAbFullDiskIsNotTheArms(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs (a disk that fills) needs root; CI runs as root")
	}
	mnt := filepath.Join(t.TempDir(), "disk")
	require.NoError(t, os.Mkdir(mnt, 0o755))
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", mnt).Run() })
	j := filepath.Join(mnt, "c.jsonl")
	code, _, errText := runCLI("ab", "--journal", j, "--rounds", "8", "--block", "3", "--warmup", "0", "--seed", "2")
	require.Equal(t, 1, code, errText)
	t.Logf("the campaign on a full disk:\n%s", errText)
	assert.Contains(t, errText, "no space left on device")
	assert.NotContains(t, errText, "dropped")
	assert.Contains(t, errText, "not the arm's: free space, then --resume runs the round again")
	for _, m := range readJSONL(t, j) {
		assert.NotEqual(t, "dropped", m["status"], "a round blamed on an arm: %v", m)
		assert.Nil(t, m["error"], "a block blamed on an arm: %v", m)
	}
	require.NoError(t, exec.Command("mount", "-o", "remount,size=64m", mnt).Run())
	code, _, errText = runCLI("ab", "--resume", "--journal", j)
	require.Equal(t, 0, code, errText)
	assert.Equal(t, map[int]int{1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 7: 1, 8: 1}, roundsOK(t, j))
}

// TestAbExtend: --resume --rounds N adds rounds to a finished campaign:
// the same seed stream, ruler and config; one campaign in the report. An
// inconclusive one says how to extend it; a campaign is never shrunk.
func TestAbExtend(t *testing.T) {
	t.Parallel()
	j := filepath.Join(t.TempDir(), "j.jsonl")
	cat := catArm(t)
	// 6 rounds cannot settle it.
	head := alternatingHead(t, cat)
	code, _, errText := abCmd(t, j, cat, head, "--rounds", "6")
	require.Equal(t, 0, code, errText)
	require.Regexp(t, `hbgbench: to settle it, extend this campaign: hbgbench ab --resume --journal \S+ --rounds \d+\n`, errText)
	before, err := journal.ReadJournal(j)
	require.NoError(t, err)

	code, out, errText := runCLI("ab", "--resume", "--journal", j, "--rounds", "8", "--format", "markdown")
	require.Equal(t, 0, code, errText)
	assert.Contains(t, errText, "hbgbench: extending the campaign from 6 to 8 rounds (same seed stream, ruler and config)")
	assert.Contains(t, out, "8 of 8 rounds")
	assert.Equal(t, map[int]int{1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 7: 1, 8: 1}, roundsOK(t, j))
	after, err := journal.ReadJournal(j)
	require.NoError(t, err)
	assert.Equal(t, 8, after.Header.Config.Rounds)
	assert.Equal(t, before.Header.Schedule.Firsts, after.Header.Schedule.Firsts[:6], "the first rounds' schedule is kept")
	want, err := journal.NewSchedule(before.Header.Schedule.Order, before.Header.Schedule.Seed, 8, 0)
	require.NoError(t, err)
	assert.Equal(t, want.Firsts, after.Header.Schedule.Firsts, "the new rounds come from the same seed stream")
	for _, b := range after.Blocks {
		if b.Round > 6 {
			assert.Equal(t, want.RoundArms(b.Round)[b.Pos], map[string]int{"base": 0, "head": 1}[b.Arm], "round %d pos %d", b.Round, b.Pos)
		}
	}
	assert.Equal(t, before.Header.Ruler, after.Header.Ruler)

	// Shrinking is refused as a shrink, naming the flag.
	code, _, errText = runCLI("ab", "--resume", "--journal", j, "--rounds", "7")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errText, "--resume --rounds 7: the campaign has 8 rounds, and a campaign is never shrunk")
}

// killMidRound waits until the campaign of journal j is in the middle of a
// round, kills it with SIGKILL (no cleanup of its own) and waits until
// none of its blocks' processes is left.
func killMidRound(t *testing.T, cmd *exec.Cmd, j string) {
	t.Helper()
	waitJournal(t, j, midRound)
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_, _ = cmd.Process.Wait()
	waitNoOrphans(t, campaign.BlockDir(j))
}

// alternatingHead is a command arm that prints, every other block, the
// E1 fixture with every segment ten times as long (a digit appended to
// each dur_ns), and otherwise runs cat: a head no number of rounds
// settles, deterministically (no timing noise).
func alternatingHead(t *testing.T, cat string) string {
	t.Helper()
	counter := filepath.Join(t.TempDir(), "n")
	return fmt.Sprintf("n=$(cat %s 2>/dev/null || echo 0); echo $((n+1)) > %s; "+
		"if [ $((n %% 2)) = 0 ]; then sed 's/dur_ns=\\([0-9]*\\)/dur_ns=\\15/' %s; else %s; fi",
		counter, counter, fixtureLog(t, "hbg-e1.log"), cat)
}

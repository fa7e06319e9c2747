package deploy

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// requireSlurm is the variable that makes a Slurm test that cannot start
// Slurm fail instead of skipping (.ci/run sets it).
const requireSlurm = "HBGKIT_REQUIRE_SLURM"

// cannot skips the test, or fails it under HBGKIT_REQUIRE_SLURM=1.
func cannot(t *testing.T, format string, a ...any) {
	t.Helper()
	msg := fmt.Sprintf("one-node Slurm cannot start: "+format, a...)
	if os.Getenv(requireSlurm) == "1" {
		t.Fatal(msg + " (" + requireSlurm + "=1)")
	}
	t.Skip(msg + " (install slurm-wlm and munge as root, as .ci/run does)")
}

// freePort returns a TCP port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// A cluster is a one-node Slurm of this test: munged, slurmctld and
// slurmd in the foreground, every file in dir, its own ports and munge
// socket, so that it collides with nothing else on the machine.
type cluster struct {
	dir, conf string
	env       []string
}

// startCluster starts the cluster and stops it (every daemon it started,
// by its process) when the test ends, however it ends.
func startCluster(t *testing.T) *cluster {
	t.Helper()
	if os.Geteuid() != 0 {
		cannot(t, "not root")
	}
	// The daemons live in /usr/sbin, which a user's PATH may lack.
	t.Setenv("PATH", os.Getenv("PATH")+":/usr/sbin:/sbin")
	for _, b := range []string{"munged", "slurmctld", "slurmd", "sbatch", "sinfo", "scontrol"} {
		if _, err := exec.LookPath(b); err != nil {
			cannot(t, "%s not installed", b)
		}
	}
	dir, err := os.MkdirTemp("", "hbgkit-slurm-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	c := &cluster{dir: dir, conf: filepath.Join(dir, "slurm.conf")}
	key := make([]byte, 1024)
	_, _ = rand.Read(key)
	keyFile := filepath.Join(dir, "munge.key")
	if err := os.WriteFile(keyFile, key, 0o400); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "munge.sock")
	c.daemon(t, "munged", "--foreground", "--force", "--socket="+sock, "--key-file="+keyFile,
		"--pid-file="+filepath.Join(dir, "munged.pid"), "--log-file="+filepath.Join(dir, "munged.log"),
		"--seed-file="+filepath.Join(dir, "munged.seed"))
	waitFor(t, 20*time.Second, "munged's socket", func() bool { _, err := os.Stat(sock); return err == nil })

	host, _ := os.Hostname()
	host, _, _ = strings.Cut(host, ".")
	for _, d := range []string{"state", "spool"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	conf := fmt.Sprintf(`ClusterName=hbgkit%d
SlurmctldHost=%[2]s
SlurmctldPort=%d
SlurmdPort=%d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%s
CredType=cred/munge
StateSaveLocation=%[6]s/state
SlurmdSpoolDir=%[6]s/spool
SlurmctldPidFile=%[6]s/slurmctld.pid
SlurmdPidFile=%[6]s/slurmd.pid
SlurmctldLogFile=%[6]s/slurmctld.log
SlurmdLogFile=%[6]s/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MailProg=/bin/true
NodeName=%[2]s CPUs=2 RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=%[2]s Default=YES MaxTime=INFINITE State=UP
`, os.Getpid(), host, freePort(t), freePort(t), sock, dir)
	if err := os.WriteFile(c.conf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	c.env = append(os.Environ(), "SLURM_CONF="+c.conf)
	c.daemon(t, "slurmctld", "-D", "-f", c.conf)
	c.daemon(t, "slurmd", "-D", "-f", c.conf)
	waitFor(t, 60*time.Second, "the node idle in sinfo", func() bool {
		out, _ := c.run("sinfo", "-h", "-o", "%T")
		return strings.TrimSpace(out) == "idle"
	})
	return c
}

// daemon starts a daemon in the foreground and kills it when the test
// ends; its output goes to dir/NAME.out.
func (c *cluster) daemon(t *testing.T, name string, args ...string) {
	t.Helper()
	out, err := os.Create(filepath.Join(c.dir, name+".out"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Env = c.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		out.Close()
		cannot(t, "starting %s: %v", name, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		out.Close()
		if t.Failed() {
			for _, f := range []string{name + ".out", name + ".log"} {
				if b, err := os.ReadFile(filepath.Join(c.dir, f)); err == nil {
					t.Logf("%s:\n%s", f, lastLines(string(b), 30))
				}
			}
		}
	})
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(ls[max(0, len(ls)-n):], "\n")
}

// run runs a Slurm client command against the cluster.
func (c *cluster) run(name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = c.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("waited %v for %s", limit, what)
}

// jobState is a job's JobState from scontrol.
var jobStateRe = regexp.MustCompile(`JobState=(\S+)`)

func (c *cluster) jobStates(id string) []string {
	out, _ := c.run("scontrol", "show", "job", id)
	var states []string
	for _, m := range jobStateRe.FindAllStringSubmatch(out, -1) {
		states = append(states, m[1])
	}
	return states
}

// buildHbgbench builds hbgbench into dir.
func buildHbgbench(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "hbgbench")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/hbgkit/hbgkit/cmd/hbgbench")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building hbgbench: %v\n%s", err, out)
	}
	return bin
}

// embeddedRecipe is the Slurm recipe with its run command changed to the
// embedded arms (+100% of injected delay), and, for this 2-CPU node
// without GRES, no --gres and one CPU a task.
func embeddedRecipe(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("slurm", "hbgbench-shard.sbatch"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	changed := 0
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(l, "ARMS=("):
			l = "ARMS=(--base embedded:mirror=retained,delay_us=20000 --head embedded:mirror=retained,delay_us=40000 --block 5 --warmup 0)"
			changed++
		case strings.HasPrefix(l, "#SBATCH --gres="):
			continue
		case strings.HasPrefix(l, "#SBATCH --cpus-per-task="):
			l = "#SBATCH --cpus-per-task=1"
		}
		out = append(out, l)
	}
	if changed != 1 {
		t.Fatalf("the recipe has %d ARMS=( lines, want 1", changed)
	}
	p := filepath.Join(dir, "shard.sbatch")
	if err := os.WriteFile(p, []byte(strings.Join(out, "\n")), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// submit runs the recipe's submit.sh for shards shards of rounds rounds
// in work, waits for the merge job, and returns the campaign, its merged
// report and the time from submission to the merge job's end.
func (c *cluster) submit(t *testing.T, work, bin, recipe string, shards, rounds int) (string, string, time.Duration) {
	t.Helper()
	submit, err := filepath.Abs(filepath.Join("slurm", "submit.sh"))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cmd := exec.Command(submit, recipe)
	cmd.Dir = work
	cmd.Env = append(c.env, "HBGBENCH="+bin, fmt.Sprintf("SHARDS=%d", shards), fmt.Sprintf("ROUNDS=%d", rounds), "LOCKDIR="+work)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("submit.sh: %v\n%s", err, out)
	}
	var campaign, merge string
	if _, err := fmt.Sscanf(strings.TrimSpace(string(out)), "campaign %s merge %s", &campaign, &merge); err != nil {
		t.Fatalf("submit.sh said %q", out)
	}
	var final string
	waitFor(t, 10*time.Minute, "the merge job "+merge, func() bool {
		for _, s := range c.jobStates(merge) {
			switch s {
			case "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY":
				final = s
				return true
			}
		}
		return false
	})
	took := time.Since(start)
	if final != "COMPLETED" {
		logs, _ := filepath.Glob(filepath.Join(work, "*.out"))
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			t.Logf("%s:\n%s", filepath.Base(l), lastLines(string(b), 20))
		}
		t.Fatalf("merge job %s ended %s; array %v", merge, final, c.jobStates(campaign))
	}
	rep, err := os.ReadFile(filepath.Join(work, "hbgbench-"+campaign+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	return campaign, string(rep), took
}

// TestSlurmShardsAndMerge runs the Slurm recipe on a one-node Slurm: a job
// array of two shards on the embedded harness, then the dependent merge
// job, and checks its report.
func TestSlurmShardsAndMerge(t *testing.T) {
	c := startCluster(t)
	work := filepath.Join(c.dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := buildHbgbench(t, c.dir)
	recipe := embeddedRecipe(t, c.dir)
	campaign, rep, took := c.submit(t, work, bin, recipe, 2, 12)
	t.Logf("campaign %s: 2 shards × 12 rounds, submission to merged report %v; load %s\n%s", campaign, took.Round(time.Second), loadavg(), rep)
	for _, want := range []string{
		fmt.Sprintf("MERGED: campaign %s, 2 of 2 shard(s), 24 of 24 rounds", campaign),
		"pooled: SLOWER: ControlPlane",
		"shard-0of2-", "shard-1of2-",
	} {
		if !strings.Contains(rep, want) {
			t.Errorf("the merged report lacks %q", want)
		}
	}
	for _, row := range []string{`(?m)^ 0/2 `, `(?m)^ 1/2 `} {
		if !regexp.MustCompile(row).MatchString(rep) {
			t.Errorf("the merged report has no shard row %q", row)
		}
	}
	if os.Getenv("HBGKIT_SLURM_MEASURE") == "1" {
		// Side by side, interleaved: 2 shards of 8 rounds against 1 shard
		// of 16, twice each.
		for i := 0; i < 2; i++ {
			_, _, one := c.submit(t, work, bin, recipe, 1, 16)
			_, _, two := c.submit(t, work, bin, recipe, 2, 8)
			t.Logf("measure %d: 1 shard × 16 rounds %v; 2 shards × 8 rounds %v; load %s", i+1, one.Round(100*time.Millisecond), two.Round(100*time.Millisecond), loadavg())
		}
	}
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.TrimSpace(string(b))
}

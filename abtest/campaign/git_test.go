package campaign

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/internal/gittest"
	"github.com/hbgkit/hbgkit/internal/procgroup"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gitRepo makes a repository of two commits, c1 on main and c2 on pr
// (checked out), each with a README of its own.
func gitRepo(t *testing.T) (repo, c1, c2 string) {
	t.Helper()
	repo = t.TempDir()
	gittest.Git(t, repo, "init", "-q", "-b", "main")
	require.NoError(t, os.WriteFile(filepath.Join(repo, "README"), []byte("one\n"), 0o644))
	gittest.Git(t, repo, "add", ".")
	gittest.Git(t, repo, "commit", "-q", "-m", "c1")
	c1 = gittest.Git(t, repo, "rev-parse", "HEAD")
	gittest.Git(t, repo, "checkout", "-q", "-b", "pr")
	require.NoError(t, os.WriteFile(filepath.Join(repo, "README"), []byte("two\n"), 0o644))
	gittest.Git(t, repo, "commit", "-q", "-am", "c2")
	c2 = gittest.Git(t, repo, "rev-parse", "HEAD")
	return repo, c1, c2
}

// kill forgets w's worktrees as a killed process does: their locks are
// dropped (the kernel closes a dead process's descriptors), the worktrees
// and the lock files stay.
func kill(w *Worktrees) {
	for path, lock := range w.held {
		lock.Close()
		delete(w.held, path)
	}
}

func worktreeCount(t *testing.T, repo string) int {
	return strings.Count(gittest.Git(t, repo, "worktree", "list", "--porcelain"), "worktree ")
}

// TestWorktreesAfterAKill: a killed campaign's worktree is reused by the
// next Ensure of its sha, and removed by CleanStale when nobody holds it;
// one a live manager holds is neither taken nor removed.
func TestWorktreesAfterAKill(t *testing.T) {
	t.Parallel()
	repo, c1, c2 := gitRepo(t)
	cache := t.TempDir()
	ctx := context.Background()

	dead := NewWorktrees(repo, cache)
	p1, err := dead.Ensure(ctx, c1)
	require.NoError(t, err)
	again, err := dead.Ensure(ctx, c1)
	require.NoError(t, err)
	assert.Equal(t, p1, again)
	readme, err := os.ReadFile(filepath.Join(p1, "README"))
	require.NoError(t, err)
	assert.Equal(t, "one\n", string(readme))
	kill(dead)

	live := NewWorktrees(repo, cache)
	p2, err := live.Ensure(ctx, c2)
	require.NoError(t, err)
	defer live.Close()
	_, err = NewWorktrees(repo, cache).Ensure(ctx, c2)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "worktree "+p2+" is in use by another hbgbench")

	// The next run of the killed campaign takes its worktree back as it is.
	marker := filepath.Join(p1, "built")
	require.NoError(t, os.WriteFile(marker, nil, 0o644))
	next := NewWorktrees(repo, cache)
	back, err := next.Ensure(ctx, c1)
	require.NoError(t, err)
	assert.Equal(t, p1, back)
	assert.FileExists(t, marker, "reused, not checked out again")
	kill(next)

	// kill closes the flock's file here, but a process another parallel
	// test forks in that instant holds a copy of it until its exec: the
	// lock is free a moment later, as a killed process's is at once.
	var removed []string
	require.Eventually(t, func() bool {
		var err error
		removed, err = NewWorktrees(repo, cache).CleanStale()
		require.NoError(t, err)
		return len(removed) > 0
	}, 10*time.Second, 20*time.Millisecond, "the killed campaign's worktree was never found stale")
	assert.Equal(t, []string{p1}, removed)
	assert.NoDirExists(t, p1)
	assert.NoFileExists(t, p1+".lock")
	assert.DirExists(t, p2, "a live campaign's worktree stays")
	assert.Equal(t, 2, worktreeCount(t, repo), "the repository's own and the live one")

	live.Close()
	assert.NoDirExists(t, p2)
	assert.Equal(t, 1, worktreeCount(t, repo))
	removed, err = NewWorktrees(repo, filepath.Join(cache, "none")).CleanStale()
	assert.NoError(t, err)
	assert.Empty(t, removed)
}

// TestWorktreesBuild: a build runs once per (sha, command, toolchain), a
// failed one says its command and its output's end, and Ctrl-C during a
// checkout or a build is ErrInterrupted.
func TestWorktreesBuild(t *testing.T) {
	t.Parallel()
	repo, c1, _ := gitRepo(t)
	ctx := context.Background()
	w := NewWorktrees(repo, t.TempDir())
	defer w.Close()
	p, err := w.Ensure(ctx, c1)
	require.NoError(t, err)

	var log strings.Builder
	build := "echo x >> count"
	require.NoError(t, w.Build(ctx, p, c1, build, "go1", nil, &log))
	require.NoError(t, w.Build(ctx, p, c1, build, "go1", nil, &log))
	count, err := os.ReadFile(filepath.Join(p, "count"))
	require.NoError(t, err)
	assert.Equal(t, "x\n", string(count), "built once")
	assert.Contains(t, log.String(), "building "+c1[:12]+" in "+p+": "+build)
	require.NoError(t, w.Build(ctx, p, c1, build, "go2", nil, nil))
	count, _ = os.ReadFile(filepath.Join(p, "count"))
	assert.Equal(t, "x\nx\n", string(count), "another toolchain builds again")
	require.NoError(t, w.Build(ctx, p, c1, "  ", "go1", nil, nil), "no command builds nothing")

	err = w.Build(ctx, p, c1, "echo $WHO; for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22; do echo line $i; done; exit 4", "go1", []string{"WHO=me"}, nil)
	var be *BuildError
	require.ErrorAs(t, err, &be)
	assert.Contains(t, err.Error(), "building "+c1[:12]+` with "echo $WHO;`)
	assert.Contains(t, err.Error(), "failed (exit status 4); its output ends:\n  line 3\n")
	assert.NotContains(t, err.Error(), "me\n", "only the last 20 lines")
	assert.True(t, strings.HasSuffix(err.Error(), "  line 22"), err.Error())

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	assert.ErrorIs(t, w.Build(cancelled, p, c1, "sleep 5", "go1", nil, nil), ErrInterrupted)
	_, err = NewWorktrees(repo, t.TempDir()).Ensure(cancelled, c1)
	assert.ErrorIs(t, err, ErrInterrupted)
}

// TestWorktreesBuildLeavesABackgroundProcess: a build that starts a
// background process holding its output (a compiler server) succeeds once
// it exits: the wait for its output is bounded by outputWaitDelay, the
// process is killed with the build's group (it lived on, ppid 1, before),
// and the log says so (moved here from cmd/hbgbench, which waited the full
// delay of 3 s twice). Not parallel: it lowers outputWaitDelay.
func TestWorktreesBuildLeavesABackgroundProcess(t *testing.T) {
	saved := outputWaitDelay
	outputWaitDelay = 200 * time.Millisecond
	t.Cleanup(func() { outputWaitDelay = saved })
	repo, c1, _ := gitRepo(t)
	ctx := context.Background()
	w := NewWorktrees(repo, t.TempDir())
	defer w.Close()
	p, err := w.Ensure(ctx, c1)
	require.NoError(t, err)
	pidFile := filepath.Join(t.TempDir(), "bg")
	t.Cleanup(func() {
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	var log strings.Builder
	start := time.Now()
	err = w.Build(ctx, p, c1, "sleep 60 & echo $! > "+pidFile+"; echo built", "go1", nil, &log)
	require.NoError(t, err, log.String())
	assert.Less(t, time.Since(start), 30*time.Second, "the build's background process was waited for")
	assert.Contains(t, log.String(), "the build of "+c1[:12]+" left a process holding its output; killed with its process group")
	b, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	assert.Eventually(t, func() bool { return !procgroup.Running(pid) }, 5*time.Second, 20*time.Millisecond, "the build's background process outlived it")
}

// TestGitHelpers: refs, the repository root, the changes a campaign does
// not measure (hbgbench's own files left out) and artifact hashes.
func TestGitHelpers(t *testing.T) {
	t.Parallel()
	repo, c1, _ := gitRepo(t)
	sha, err := ResolveRef(repo, "main")
	require.NoError(t, err)
	assert.Equal(t, c1, sha)
	_, err = ResolveRef(repo, "-x")
	assert.ErrorContains(t, err, `ref "-x": a ref cannot start with -`)
	_, err = ResolveRef(repo, "nope")
	assert.ErrorContains(t, err, `ref "nope" names no commit in `+repo)

	root, err := RepoRoot(filepath.Join(repo, ".git", ".."))
	require.NoError(t, err)
	assert.Equal(t, repo, root)
	_, err = RepoRoot(t.TempDir())
	assert.ErrorContains(t, err, "is not inside a git repository (give --repo DIR): git rev-parse --show-toplevel: ")

	assert.Empty(t, RepoChanges(repo))
	own := filepath.Join(repo, "mine.jsonl")
	for _, f := range []string{"new.txt", "hbgbench-1.jsonl", "mine.jsonl", "README"} {
		require.NoError(t, os.WriteFile(filepath.Join(repo, f), []byte("changed\n"), 0o644))
	}
	gittest.Git(t, repo, "mv", "README", "README.md")
	assert.Equal(t, []string{"RM README.md", "?? new.txt"}, RepoChanges(repo, own))
	assert.Nil(t, RepoChanges(t.TempDir()))

	assert.Equal(t, "a, b", listSome([]string{"a", "b"}, 2))
	assert.Equal(t, "a, b and 2 more", listSome([]string{"a", "b", "c", "d"}, 2))

	dir := t.TempDir()
	h, err := HashArtifacts(dir, "*.so")
	require.NoError(t, err)
	assert.Empty(t, h, "nothing matches")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.so"), []byte("a"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "d.so"), 0o755))
	h1, err := HashArtifacts(dir, "*.so")
	require.NoError(t, err)
	assert.Len(t, h1, 32)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.so"), []byte("b"), 0o644))
	h2, _ := HashArtifacts(dir, "*.so")
	assert.NotEqual(t, h1, h2, "the contents are hashed")
	_, err = HashArtifacts(dir, "[")
	assert.ErrorContains(t, err, `--artifact "["`)
}

// TestRunGitArms: a campaign of two commits checks each out in a worktree
// of the cache and builds it before any block, warns of the uncommitted
// changes it does not measure, hashes the artifacts, removes what a killed
// campaign left, runs each arm's blocks in its worktree, and leaves no
// worktree when it closes.
func TestRunGitArms(t *testing.T) {
	t.Parallel()
	repo, c1, c2 := gitRepo(t)
	cache := t.TempDir()
	left := NewWorktrees(repo, cache)
	stale, err := left.Ensure(context.Background(), c1)
	require.NoError(t, err)
	kill(left)
	// A file the commits do not have: a change the campaign does not measure.
	require.NoError(t, os.WriteFile(filepath.Join(repo, "dirty"), nil, 0o644))

	run := "./run.sh {rounds} {out}"
	base, err := journal.GitArm("main", c1, "echo built > art.bin", run, nil)
	require.NoError(t, err)
	head, err := journal.GitArm("pr", c2, "echo built > art.bin", run, nil)
	require.NoError(t, err)
	o := testOptions(t.TempDir(), 3)
	o.Arms, o.Repo, o.Cache, o.Artifact = [2]journal.Arm{base, head}, repo, cache, "*.bin"
	lab := &fakeLab{}
	s, warn := openFake(t, o, lab)
	assert.Contains(t, warn.String(), repo+" has uncommitted changes; they are not measured: the arms are base main ("+c1[:7])
	assert.Contains(t, warn.String(), "uncommitted: ?? dirty")
	assert.NotContains(t, warn.String(), "removed", "the killed campaign's worktree of c1 is this one's")
	assert.Equal(t, cache, s.Header.Cache)
	require.Len(t, s.Header.ArtifactHashes, 2)
	assert.NotEmpty(t, s.Header.ArtifactHashes[0])
	assert.Equal(t, stale, s.wt.Path(c1))
	assert.FileExists(t, filepath.Join(stale, "art.bin"))
	require.NoError(t, s.Run(context.Background()))
	s.Close()
	assert.Equal(t, 1, worktreeCount(t, repo))
	assert.Len(t, readBack(t, o.Journal).Counted(), 6)

	// A worktree a killed campaign of other commits left is removed.
	other := NewWorktrees(repo, cache)
	gone, err := other.Ensure(context.Background(), gittest.Git(t, repo, "rev-parse", "HEAD~1"))
	require.NoError(t, err)
	kill(other)
	require.NoError(t, os.Remove(filepath.Join(repo, "dirty")))
	o2 := o
	o2.Journal = filepath.Join(t.TempDir(), "c.jsonl")
	o2.Arms[0] = head
	s2, warn2 := openFake(t, o2, &fakeLab{})
	assert.Contains(t, warn2.String(), "removed 1 worktree(s) a killed campaign left: "+gone)
	assert.NotContains(t, warn2.String(), "uncommitted")
	s2.Close()

	// A build that fails is the session's error; nothing is left open.
	bad, err := journal.GitArm("pr", c2, "exit 9", run, nil)
	require.NoError(t, err)
	o3 := o
	o3.Journal = filepath.Join(t.TempDir(), "c.jsonl")
	o3.Arms[1] = bad
	_, err = Open(context.Background(), o3)
	var be *BuildError
	require.True(t, errors.As(err, &be), "%v", err)
	assert.Equal(t, 1, worktreeCount(t, repo))
}

// TestWorktreesOfConcurrentCampaigns: campaigns checking out, removing
// and pruning worktrees of one repository at once (shards on one host,
// each with a cache of its own) never break each other's `git worktree
// add`: a prune between another's add and its lock used to delete the
// entry ("could not open '.git/worktrees/…/locked'").
func TestWorktreesOfConcurrentCampaigns(t *testing.T) {
	t.Parallel()
	repo, c1, c2 := gitRepo(t)
	errs := make(chan error, 64)
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 4 {
				w := NewWorktrees(repo, filepath.Join(t.TempDir(), "cache"))
				if _, err := w.CleanStale(); err != nil {
					errs <- err
				}
				for _, sha := range []string{c1, c2}[(g+i)%2:] {
					if _, err := w.Ensure(context.Background(), sha); err != nil {
						errs <- err
					}
				}
				w.Close()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	assert.Equal(t, 1, worktreeCount(t, repo), "every worktree removed")
}

// TestWorktreeLockSettles: a worktree lock released a moment after the
// Ensure that wants it (as when a child forked before the release still
// shares the descriptor until its exec) is taken, not refused as another
// campaign's; one held longer is refused.
func TestWorktreeLockSettles(t *testing.T) {
	t.Parallel()
	repo, c1, _ := gitRepo(t)
	w := NewWorktrees(repo, t.TempDir())
	path := w.Path(c1)
	require.NoError(t, os.MkdirAll(w.Cache, 0o755))
	held, err := journal.FlockFile(path + ".lock")
	require.NoError(t, err)
	go func() {
		time.Sleep(100 * time.Millisecond)
		held.Close()
	}()
	_, err = w.Ensure(context.Background(), c1)
	require.NoError(t, err)
	w.Close()

	held, err = journal.FlockFile(path + ".lock")
	require.NoError(t, err)
	defer held.Close()
	_, err = NewWorktrees(repo, w.Cache).Ensure(context.Background(), c1)
	assert.ErrorContains(t, err, "is in use by another hbgbench")
}

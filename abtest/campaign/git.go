package campaign

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/internal/procgroup"
)

// git runs git in dir and returns its trimmed stdout; a failure's error
// carries git's stderr.
func git(dir string, args ...string) (string, error) {
	out, err := gitRaw(dir, args...)
	return strings.TrimSpace(out), err
}

// gitRaw is git without the trimming, for output whose leading blanks
// mean something (git status --porcelain).
func gitRaw(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
	}
	return out.String(), nil
}

// RepoRoot returns the top directory of the git repository holding dir.
func RepoRoot(dir string) (string, error) {
	root, err := git(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", fmt.Errorf("%s is not inside a git repository (give --repo DIR): %w", dir, err)
	}
	return root, nil
}

// ResolveRef returns the commit sha a ref names in repo.
func ResolveRef(repo, ref string) (string, error) {
	if strings.HasPrefix(ref, "-") {
		return "", fmt.Errorf("ref %q: a ref cannot start with -", ref)
	}
	sha, err := git(repo, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil || sha == "" {
		return "", fmt.Errorf("ref %q names no commit in %s", ref, repo)
	}
	return sha, nil
}

// RepoChanges returns what git status shows uncommitted in repo's
// working tree (which a campaign on refs does not measure), as
// "XY path" entries, leaving out hbgbench's own files: the paths given
// (a journal, its lock and block directory) and what is under them, and
// the journals and block directories earlier versions left in the
// current directory (hbgbench-*.jsonl, .jsonl.lock, .d).
func RepoChanges(repo string, own ...string) []string {
	out, err := gitRaw(repo, "status", "--porcelain=v1", "-z", "--untracked-files=normal")
	if err != nil || out == "" {
		return nil
	}
	ours := func(rel string) bool {
		rel = strings.TrimSuffix(rel, "/")
		base := filepath.Base(rel)
		if strings.HasPrefix(base, "hbgbench-") && (strings.HasSuffix(base, ".jsonl") ||
			strings.HasSuffix(base, ".jsonl.lock") || strings.HasSuffix(base, ".d")) {
			return true
		}
		p := filepath.Join(repo, rel)
		for _, o := range own {
			if o != "" && (p == o || strings.HasPrefix(p, o+string(filepath.Separator))) {
				return true
			}
		}
		return false
	}
	var changes []string
	fields := strings.Split(out, "\x00")
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if len(f) < 4 {
			continue
		}
		xy, path := f[:2], f[3:]
		if xy[0] == 'R' || xy[0] == 'C' {
			i++ // the entry's original path follows
		}
		if !ours(path) {
			changes = append(changes, strings.TrimSpace(xy)+" "+path)
		}
	}
	return changes
}

// DefaultWorktreeCache is where worktrees go: $XDG_CACHE_HOME/hbgkit/worktrees,
// else ~/.cache/hbgkit/worktrees.
func DefaultWorktreeCache() string {
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			home = os.TempDir()
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "hbgkit", "worktrees")
}

// Worktrees checks commits of one repository out as detached worktrees
// under a cache directory, builds them, and removes them. It never touches
// the repository's own working tree, index, stash, branches or HEAD: git
// worktree add --detach writes only the new directory and .git/worktrees.
// Each worktree in use is held by an flock on PATH.lock, so that a later
// run can tell a dead campaign's leftovers (free locks) from a live one's.
type Worktrees struct {
	Repo  string
	Cache string
	held  map[string]*os.File // worktree path -> its lock
}

// NewWorktrees returns the worktree manager of repo under cache.
func NewWorktrees(repo, cache string) *Worktrees {
	return &Worktrees{Repo: repo, Cache: cache, held: map[string]*os.File{}}
}

// repoKey names the repository in worktree directory names.
func (w *Worktrees) repoKey() string {
	h := sha256.Sum256([]byte(w.Repo))
	return hex.EncodeToString(h[:4])
}

// Path returns the worktree directory of sha.
func (w *Worktrees) Path(sha string) string {
	return filepath.Join(w.Cache, w.repoKey()+"-"+sha[:min(12, len(sha))])
}

// tryLock takes path's lock; ok is false when another process holds it.
func tryLock(path string) (*os.File, bool, error) {
	f, err := journal.FlockFile(path)
	var held *journal.ErrLockHeld
	if errors.As(err, &held) {
		return nil, false, nil
	}
	return f, err == nil, err
}

// CleanStale removes the worktrees of this repository that a killed run
// left in the cache (their locks are free) and prunes git's records of
// them. It returns the paths it removed.
func (w *Worktrees) CleanStale() ([]string, error) {
	ents, err := os.ReadDir(w.Cache)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the worktree cache: %w", err)
	}
	var removed []string
	defer w.adminLock()()
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() || !strings.HasPrefix(name, w.repoKey()+"-") {
			continue
		}
		path := filepath.Join(w.Cache, name)
		if _, mine := w.held[path]; mine {
			continue
		}
		lock, ok, err := tryLock(path + ".lock")
		if err != nil || !ok {
			continue // a live campaign holds it
		}
		w.remove(path)
		lock.Close()
		os.Remove(path + ".lock")
		removed = append(removed, path)
	}
	_, _ = git(w.Repo, "worktree", "prune")
	return removed, nil
}

// adminLock serialises the worktree administration of the repository
// (add, remove, prune) across hbgbench processes and campaigns: a `git
// worktree prune` run while another's `git worktree add` has made its
// entry but not yet locked it deletes the entry, and the add fails
// ("could not open '.git/worktrees/NAME/locked' for writing"). The lock
// is a file in the repository's common git directory, which git status
// never shows, taken with flock (released by the kernel if hbgbench
// dies). It returns the release; when the lock cannot be had, a no-op,
// and git's own behaviour runs unserialised.
func (w *Worktrees) adminLock() func() {
	dir, err := git(w.Repo, "rev-parse", "--git-common-dir")
	if err != nil {
		return func() {}
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(w.Repo, dir)
	}
	f, err := os.OpenFile(filepath.Join(dir, "hbgbench-worktrees.lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return func() {}
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return func() {}
	}
	return func() { f.Close() }
}

func (w *Worktrees) remove(path string) {
	if _, err := git(w.Repo, "worktree", "remove", "--force", path); err != nil {
		_ = os.RemoveAll(path)
	}
	os.Remove(path + ".build")
}

// Ensure returns a worktree of sha, reusing one a previous (killed) run of
// this campaign left when it is still at sha, and holds its lock.
func (w *Worktrees) Ensure(ctx context.Context, sha string) (string, error) {
	path := w.Path(sha)
	if _, ok := w.held[path]; ok {
		return path, nil
	}
	if err := os.MkdirAll(w.Cache, 0o755); err != nil {
		return "", fmt.Errorf("creating the worktree cache: %w", err)
	}
	lock, ok, err := tryLock(path + ".lock")
	if err != nil {
		return "", fmt.Errorf("locking worktree %s: %w", path, err)
	}
	if !ok {
		return "", fmt.Errorf("worktree %s is in use by another hbgbench", path)
	}
	if head, err := git(path, "rev-parse", "HEAD"); err == nil && head == sha {
		w.held[path] = lock
		return path, nil
	}
	unlock := w.adminLock()
	w.remove(path)
	_, _ = git(w.Repo, "worktree", "prune")
	// git runs the repository's post-checkout hook, which may be slow:
	// it runs watched, so that a kill -9 of hbgbench takes it along.
	add := exec.CommandContext(ctx, "git", "-C", w.Repo, "worktree", "add", "--detach", path, sha)
	var out bytes.Buffer
	add.Stdout, add.Stderr = &out, &out
	err = watchedRun(add)
	unlock()
	if err != nil && !errors.Is(err, exec.ErrWaitDelay) {
		lock.Close()
		if ctx.Err() != nil {
			w.remove(path)
			return "", ErrInterrupted
		}
		return "", fmt.Errorf("checking out %s: git worktree add: %w: %s", sha[:12], err, strings.TrimSpace(out.String()))
	}
	w.held[path] = lock
	return path, nil
}

// outputWaitDelay bounds the wait for a build's (or checkout's) output
// once its own process has exited: a background process it started may
// hold the pipe for as long as it lives.
var outputWaitDelay = 3 * time.Second

// watchedRun runs cmd (made with exec.CommandContext) as the leader of its
// own process group, killed whole when the context ends (Ctrl-C) and when
// hbgbench dies, even by SIGKILL (procgroup's watchdog), so that neither
// git nor a build's compilers outlive it; the wait for its output after it
// exits is bounded by outputWaitDelay (exec.ErrWaitDelay).
func watchedRun(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = outputWaitDelay
	if err := cmd.Start(); err != nil {
		return err
	}
	dog, derr := procgroup.Watch(cmd.Process.Pid)
	err := cmd.Wait()
	// What the command left in its group in the background (a build's
	// server, a stray `sleep &`) ends with it.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	dog.Stop()
	if err == nil && derr != nil {
		return derr
	}
	return err
}

// A BuildError is a failed --build, with the tail of its output.
type BuildError struct {
	Sha, Command, Output string
	Err                  error
}

func (e *BuildError) Error() string {
	return fmt.Sprintf("building %s with %q failed (%v); its output ends:\n%s", e.Sha[:min(12, len(e.Sha))], e.Command, e.Err, e.Output)
}

// Build runs command in the worktree of sha once per (sha, command,
// toolchain): a marker beside the worktree remembers a build that
// succeeded, so a resumed campaign does not build again. An empty command
// builds nothing. log (nil: none) gets a line before the build, without
// the program's name, as Options.Warn.
func (w *Worktrees) Build(ctx context.Context, path, sha, command, toolchain string, env []string, log io.Writer) error {
	if strings.TrimSpace(command) == "" {
		return nil
	}
	key := fmt.Sprintf("%s\n%s\n%s\n", sha, command, toolchain)
	if b, err := os.ReadFile(path + ".build"); err == nil && string(b) == key {
		return nil
	}
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.Dir = path
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if log != nil {
		fmt.Fprintf(log, "building %s in %s: %s\n", sha[:min(12, len(sha))], path, command)
	}
	err := watchedRun(cmd)
	warn := log
	if warn == nil {
		warn = io.Discard
	}
	sweep(warn, "the build of "+sha[:min(12, len(sha))])
	if errors.Is(err, exec.ErrWaitDelay) {
		// The build succeeded; what it left running (a compiler server)
		// held its output, and was killed with its process group.
		fmt.Fprintf(warn, "the build of %s left a process holding its output; killed with its process group\n", sha[:min(12, len(sha))])
		err = nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		return &BuildError{Sha: sha, Command: command, Output: tail(out.String(), 20), Err: err}
	}
	return os.WriteFile(path+".build", []byte(key), 0o644)
}

// tail returns the last n lines of s, each indented by two spaces.
func tail(s string, n int) string {
	return "  " + strings.Join(lastLines(s, n), "\n  ")
}

// lastLines returns the last n lines of s (a build's output, a block's
// log), without the final newline.
func lastLines(s string, n int) []string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}

// Close removes every worktree this manager holds, prunes, and drops the
// locks.
func (w *Worktrees) Close() {
	defer w.adminLock()()
	for path, lock := range w.held {
		w.remove(path)
		lock.Close()
		os.Remove(path + ".lock")
		delete(w.held, path)
	}
	_, _ = git(w.Repo, "worktree", "prune")
}

// HashArtifacts hashes the files glob matches under dir (names and
// contents, in name order); "" when nothing matches.
func HashArtifacts(dir, glob string) (string, error) {
	if err := InsidePath(glob); err != nil {
		return "", fmt.Errorf("--artifact: %w", err)
	}
	matches, err := filepath.Glob(filepath.Join(dir, glob))
	if err != nil {
		return "", fmt.Errorf("--artifact %q: %w", glob, err)
	}
	sort.Strings(matches)
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	for _, m := range matches {
		// A link in the worktree may point out of it, at files both arms
		// share: hashing them would call different builds identical.
		real, err := filepath.EvalSymlinks(m)
		if err == nil && real != root && !strings.HasPrefix(real, root+string(filepath.Separator)) {
			return "", fmt.Errorf("--artifact %q: %s is a link to %s, outside the worktree: the arms would share it, and its hash would call them identical", glob, m, real)
		}
	}
	h := sha256.New()
	n := 0
	for _, m := range matches {
		st, err := os.Stat(m)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		f, err := os.Open(m)
		if err != nil {
			return "", err
		}
		rel, _ := filepath.Rel(dir, m)
		fmt.Fprintf(h, "%s\x00%d\x00", rel, st.Size())
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
		n++
	}
	if n == 0 {
		return "", nil
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}

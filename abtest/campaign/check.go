package campaign

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/hbgkit/hbgkit/abtest/journal"
)

// checkTailLines is how much of a check's output its journal line keeps.
const checkTailLines = 20

// runChecks runs, before any block of this run, the correctness check of
// every arm that has one and whose check of the campaign's current plan
// (its rounds) is not journaled: before the first timed block, and again
// after an extension. A check that fails is journaled and warned about,
// and the campaign goes on: the analysis withholds that arm's verdict.
// A check interrupted is not journaled, so that --resume runs it again.
func (st *state) runChecks(ctx context.Context) error {
	c := st.c
	names := c.Header.ArmNames()
	for arm, a := range c.Header.ArmList() {
		if strings.TrimSpace(a.Check) == "" || journal.Checked(st.checks, names[arm], c.Header.Config.Rounds) != nil {
			continue
		}
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		dir, env := c.Dir, []string(nil)
		if w := worktreeOf(c.Runners[arm]); w != "" {
			dir = w
		}
		if a.Kind != journal.KindEmbedded {
			env = a.Env
		}
		env = append(env, "HBGBENCH_ARM="+names[arm], "HBGBENCH_SPEC="+a.Spec, "HBGBENCH_WORKTREE="+dir)
		fmt.Fprintf(c.Warn, "checking %s in %s: %s\n", names[arm], dir, a.Check)
		rec, err := runCheck(ctx, a.Check, dir, env, c.Dir, fmt.Sprintf("check-%s-r%d.log", names[arm], c.Header.Config.Rounds), c.Header.Config.Timeout)
		if err != nil {
			return err
		}
		rec.Arm, rec.Rounds = names[arm], c.Header.Config.Rounds
		if err := st.append(rec); err != nil {
			return err
		}
		st.checks = append(st.checks, *rec)
		if !rec.OK() {
			fmt.Fprintf(c.Warn, "the correctness check of %s failed (%s): %s gets no verdict; its output %s ends:\n    | %s\n",
				names[arm], rec.Status(), names[arm], filepath.Join(c.Dir, rec.Log), strings.Join(rec.Tail, "\n    | "))
		}
	}
	return nil
}

// runCheck runs command with /bin/sh in dir, the environment env added
// to ours, in its own process group (killed whole on Ctrl-C, on timeout
// and when hbgbench dies), its output into logDir/logName. The error is
// for what ends the campaign: an interruption, a log this host cannot
// write.
func runCheck(ctx context.Context, command, dir string, env []string, logDir, logName string, timeout time.Duration) (*journal.CheckRecord, error) {
	rec := &journal.CheckRecord{Type: journal.LineCheck, Command: command, Dir: dir, Log: logName, Start: time.Now().UTC()}
	logPath := filepath.Join(logDir, logName)
	out, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("check log: %w; that is this host's failure, not the arm's", err)
	}
	defer out.Close()
	cctx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		cctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(cctx, "/bin/sh", "-c", command)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = out, out
	runErr := watchedRun(cmd)
	rec.WallNS = int64(time.Since(rec.Start))
	if ctx.Err() != nil {
		return nil, ErrInterrupted
	}
	var exit *exec.ExitError
	switch {
	case runErr == nil || errors.Is(runErr, exec.ErrWaitDelay):
	case cctx.Err() != nil:
		rec.Error = fmt.Sprintf("timed out after %s (--timeout)", timeout)
	case errors.As(runErr, &exit):
		rec.Exit = exit.ExitCode()
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			rec.Signal = int(ws.Signal())
		}
	default:
		rec.Error = "could not run: " + runErr.Error()
	}
	if err := out.Sync(); err != nil {
		return nil, fmt.Errorf("check log %s: %w; that is this host's failure, not the arm's", logPath, err)
	}
	rec.Tail = tailOf(logPath, checkTailLines)
	return rec, nil
}

// tailOf returns the last n lines of the file at path (of its last 64 KB),
// nil when it is empty or cannot be read.
func tailOf(path string, n int) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil
	}
	off := max(st.Size()-64<<10, 0)
	data := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(data, off); err != nil && !errors.Is(err, io.EOF) {
		return nil
	}
	if strings.TrimSpace(string(data)) == "" {
		return nil
	}
	return lastLines(string(data), n)
}

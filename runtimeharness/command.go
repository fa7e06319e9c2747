package runtimeharness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// A CommandRunner runs a real runtime through a shell command, the way
// simpler runs are driven on an Ascend box. The block's log is the command's
// stdout and stderr, after a [stamp] line naming the commit, the arm's
// environment switches and the command.
type CommandRunner struct {
	// Template is a shell command; {worktree}, {rounds} and {out} are
	// replaced by the worktree, the block's rounds and its empty output
	// directory, shell-quoted where needed.
	Template string
	Worktree string   // working directory of the command, and {worktree}
	Env      []string // the arm's environment switches, KEY=VALUE, added to ours
	Commit   string   // the worktree's commit, when known; first in the stamp
	Shell    string   // default /bin/sh
	// WaitDelay bounds the wait for output after the group was killed;
	// default 5s.
	WaitDelay time.Duration
}

// oneLine keeps a stamp on one line.
var oneLine = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ")

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:@%+=,-]+$`)

// shellQuote quotes s for sh unless it is made of safe characters only.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Command returns the template with the block's values filled in.
func (r *CommandRunner) Command(spec BlockSpec) string {
	return strings.NewReplacer(
		"{worktree}", shellQuote(r.Worktree),
		"{rounds}", strconv.Itoa(spec.Rounds),
		"{out}", shellQuote(spec.Out),
	).Replace(r.Template)
}

// Stamp returns the [stamp] text of a block: the commit when known, "env"
// and the environment switches when there are any, then the command, on one
// line (the form of REFERENCE §1.5).
func (r *CommandRunner) Stamp(spec BlockSpec) string {
	var parts []string
	if r.Commit != "" {
		parts = append(parts, r.Commit)
	}
	if len(r.Env) > 0 {
		parts = append(parts, "env")
		parts = append(parts, r.Env...)
	}
	parts = append(parts, r.Command(spec))
	return oneLine.Replace(strings.Join(parts, " "))
}

func (r *CommandRunner) check(spec BlockSpec) error {
	if strings.TrimSpace(r.Template) == "" {
		return errors.New("command runner: empty command template")
	}
	if spec.Out == "" {
		return errors.New("command runner: block spec has no output directory")
	}
	for _, kv := range r.Env {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return fmt.Errorf("command runner: environment entry %q: want KEY=VALUE", kv)
		}
	}
	return checkSpec(spec)
}

// Run runs the command once for the block. The command gets its own
// process group, which dies with this process and is killed as a whole when
// the timeout or ctx ends; processes it leaves behind are killed when it
// exits.
func (r *CommandRunner) Run(ctx context.Context, spec BlockSpec) (BlockResult, error) {
	res := BlockResult{Log: spec.Log, ExitCode: -1}
	if err := r.check(spec); err != nil {
		return res, err
	}
	if err := prepareOut(spec.Out); err != nil {
		return res, err
	}
	log, err := os.Create(spec.Log)
	if err != nil {
		return res, &LocalError{Op: "creating the block log", Err: err}
	}
	res.Stamp = r.Stamp(spec)
	if _, err := log.WriteString("[stamp] " + res.Stamp + "\n"); err != nil {
		log.Close()
		return res, &LocalError{Op: "writing the block log", Err: err}
	}

	tctx, cancel := blockContext(ctx, spec.Timeout)
	defer cancel()
	shell := r.Shell
	if shell == "" {
		shell = "/bin/sh"
	}
	cmd := exec.CommandContext(tctx, shell, "-c", r.Command(spec))
	cmd.Dir = r.Worktree
	cmd.Env = append(os.Environ(), r.Env...)
	// One open file description for both streams: their writes interleave
	// in order after the stamp, with no copying in this process.
	cmd.Stdout = log
	cmd.Stderr = log
	groupCommand(cmd, r.WaitDelay)

	runErr := runGroup(ctx, tctx, cmd, nil, &res)
	if cerr := log.Close(); cerr != nil && runErr == nil {
		runErr = &LocalError{Op: "closing the block log", Err: cerr}
	}
	if runErr != nil {
		return res, runErr
	}
	return res, res.Err()
}

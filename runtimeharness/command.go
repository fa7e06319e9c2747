package runtimeharness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// A CommandRunner runs a real runtime through a shell command, the way
// simpler runs are driven on an Ascend box. The block's log is the command's
// stdout and stderr, after a [stamp] line naming the commit, the arm's
// environment switches and the command.
type CommandRunner struct {
	// Template is a shell command with the placeholders {worktree},
	// {rounds} and {out}: the worktree, the block's rounds and its empty
	// output directory. The command gets them as HBGBENCH_WORKTREE,
	// HBGBENCH_ROUNDS and HBGBENCH_OUT in its environment, and each
	// placeholder becomes a reference to its variable that is right
	// where it stands ("${HBGBENCH_OUT}" bare, ${HBGBENCH_OUT} inside
	// double quotes), so no path is ever parsed as shell text. A
	// placeholder inside single quotes or backquotes is an error
	// (CheckTemplate).
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

// shellSafe reports whether a word needs no quoting for a POSIX shell:
// letters, digits and _@%+=:,./- only, and not empty.
func shellSafe(w string) bool {
	if w == "" {
		return false
	}
	for _, c := range w {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.ContainsRune("_@%+=:,./-", c):
		default:
			return false
		}
	}
	return true
}

// ShellQuote returns w as one word of a POSIX shell command line: as it
// is when it is plain, else in single quotes, where an embedded single
// quote closes them, is written escaped (\') and opens them again. It is
// the one quoting rule of the project: block commands, stamps, and the
// commands a report or a hint tells the user to paste.
func ShellQuote(w string) string {
	if shellSafe(w) {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// Command returns the template with the block's values written in, each
// quoted for where it stands, so that pasted into a shell it runs what the
// block ran; it is the command of the [stamp] line. The block runs the same
// template with the values in its environment instead (see Template). A
// template CheckTemplate refuses is returned as it is.
func (r *CommandRunner) Command(spec BlockSpec) string {
	pieces, err := parseTemplate(r.Template)
	if err != nil {
		return r.Template
	}
	return display(pieces, r.values(spec))
}

// values returns the placeholders' values for spec, in the order of
// placeholders.
func (r *CommandRunner) values(spec BlockSpec) []string {
	vals := make([]string, len(placeholders))
	for i, p := range placeholders {
		switch p.name {
		case "{worktree}":
			vals[i] = r.Worktree
		case "{rounds}":
			vals[i] = strconv.Itoa(spec.Rounds)
		case "{out}":
			vals[i] = spec.Out
		}
	}
	return vals
}

// Stamp returns the [stamp] text of a block: the commit when known,
// cpus=LIST when the block is pinned, the load beside it (LoadStamp),
// "env" and the environment switches when there are any, then the
// command, on one line (the form of docs/formats.md "[stamp] lines").
func (r *CommandRunner) Stamp(spec BlockSpec) string {
	var parts []string
	if r.Commit != "" {
		parts = append(parts, r.Commit)
	}
	if spec.CPUs != "" {
		parts = append(parts, "cpus="+spec.CPUs)
	}
	if spec.Load != "" {
		parts = append(parts, spec.Load)
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
	if err := CheckTemplate(r.Template); err != nil {
		return fmt.Errorf("command runner: %w", err)
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
	pieces, err := parseTemplate(r.Template)
	if err != nil { // r.check parsed it already
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
	cmd := exec.CommandContext(tctx, shell, "-c", script(pieces))
	cmd.Dir = r.Worktree
	// The placeholders' values last: they win over a switch of the same
	// name.
	cmd.Env = append(os.Environ(), r.Env...)
	for i, v := range r.values(spec) {
		cmd.Env = append(cmd.Env, placeholders[i].env+"="+v)
	}
	// One open file description for both streams: their writes interleave
	// in order after the stamp, with no copying in this process.
	cmd.Stdout = log
	cmd.Stderr = log
	groupCommand(cmd, r.WaitDelay)

	runErr := runGroup(ctx, tctx, cmd, spec.CPUs, nil, &res)
	if cerr := log.Close(); cerr != nil && runErr == nil {
		runErr = &LocalError{Op: "closing the block log", Err: cerr}
	}
	if runErr != nil {
		return res, runErr
	}
	return res, res.Err()
}

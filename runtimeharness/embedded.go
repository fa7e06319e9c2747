package runtimeharness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// ChildCommand is the hidden subcommand under which a binary runs the model
// for an EmbeddedRunner. A binary that uses EmbeddedRunner with its default
// Exe must dispatch it to ChildMain.
const ChildCommand = "__harness-child"

// childEnv is set in the child's environment, so that a test binary can
// recognise the re-exec in TestMain.
const childEnv = "HBGKIT_HARNESS_CHILD"

// childLogFD is the child's descriptor of the log pipe (its ExtraFiles[0]).
const childLogFD = 3

// An EmbeddedRunner runs the C model in a child process (a re-exec of a
// binary that knows ChildCommand), so that each block gets a fresh address
// space and the Go runtime's own threads and faults stay out of the
// counters. The log streams back over a pipe into the block's log file; the
// records artifact is written into BlockSpec.Out when Records is set.
type EmbeddedRunner struct {
	Config Config
	Exe    string   // binary to run; default os.Executable()
	Args   []string // arguments before the child's own; default [ChildCommand]
	Env    []string // added to the child's environment
	// Records has the model write host_phase_records.jsonl into
	// BlockSpec.Out (about 200 KB a pass); a campaign, which reads only
	// the log, leaves it unset.
	Records bool
	// WaitDelay bounds the wait for output after the group was killed;
	// default 5s.
	WaitDelay time.Duration
}

// Run runs one block of spec.Rounds binds in a fresh child process.
func (r *EmbeddedRunner) Run(ctx context.Context, spec BlockSpec) (BlockResult, error) {
	res := BlockResult{Log: spec.Log, ExitCode: -1}
	if err := checkSpec(spec); err != nil {
		return res, err
	}
	if err := r.Config.Validate(); err != nil {
		return res, err
	}
	if err := prepareOut(spec.Out); err != nil {
		return res, err
	}
	exe := r.Exe
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return res, fmt.Errorf("embedded runner: %w", err)
		}
	}
	args := append([]string(nil), r.Args...)
	if r.Args == nil {
		args = []string{ChildCommand}
	}
	args = append(args, "--spec", r.Config.Spec(), "--rounds", strconv.Itoa(spec.Rounds))
	if spec.Out != "" && r.Records {
		args = append(args, "--records-dir", spec.Out)
	}
	host := Host()
	if spec.CPUs != "" {
		args = append(args, "--cpus", spec.CPUs)
		host.CPUs = spec.CPUs
	}
	if spec.Load != "" {
		args = append(args, "--load", spec.Load)
		host.Load = spec.Load
	}
	res.Stamp = Stamp(r.Config, spec.Rounds, host)

	log, err := os.Create(spec.Log)
	if err != nil {
		return res, &LocalError{Op: "creating the block log", Err: err}
	}
	defer log.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		return res, fmt.Errorf("embedded runner: %w", err)
	}
	defer pr.Close()

	tctx, cancel := blockContext(ctx, spec.Timeout)
	defer cancel()
	cmd := exec.CommandContext(tctx, exe, args...)
	cmd.Env = append(append(os.Environ(), r.Env...), childEnv+"=1")
	cmd.ExtraFiles = []*os.File{pw}
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &limitedBuffer{buf: &stderr, max: 64 << 10}
	groupCommand(cmd, r.WaitDelay)

	copied := make(chan error, 1)
	go func() {
		_, err := io.Copy(log, pr)
		if err != nil {
			_, _ = io.Copy(io.Discard, pr) // never let the child block
		}
		copied <- err
	}()
	runErr := runGroup(ctx, tctx, cmd, spec.CPUs, func() { pw.Close() }, &res)
	copyErr := <-copied
	if cerr := log.Close(); cerr != nil && copyErr == nil {
		copyErr = cerr
	}

	if out := bytes.TrimSpace(stdout.Bytes()); len(out) > 0 {
		var m ModelResult
		if err := json.Unmarshal(out, &m); err == nil {
			res.Model = &m
			res.Stamp = m.Stamp
		}
	}
	switch {
	case runErr != nil:
		return res, runErr
	case copyErr != nil:
		return res, &LocalError{Op: "writing the block log", Err: copyErr}
	}
	if err := res.Err(); err != nil {
		if msg := lastLine(stderr.String()); msg != "" {
			return res, fmt.Errorf("%w: %s", err, msg)
		}
		return res, err
	}
	return res, nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// limitedBuffer keeps the first max bytes written to it and drops the rest.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// ChildMain is the child side of an EmbeddedRunner: it reads --spec,
// --rounds, --records-dir, --cpus and --load from args (the arguments after ChildCommand),
// runs the model with the log on descriptor 3, and prints the ModelResult
// as JSON on stdout. It returns the exit status: 0, 1 on a failed run, 2 on
// bad arguments.
func ChildMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(ChildCommand, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {} // the parent shows the error line, not a usage text
	spec := fs.String("spec", "", "embedded arm spec")
	rounds := fs.Int("rounds", 1, "binds to run")
	records := fs.String("records-dir", "", "directory for host_phase_records.jsonl")
	cpus := fs.String("cpus", "", "the CPU list the parent pinned this process to")
	load := fs.String("load", "", "the load beside this process, as its stamp names it")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg, err := ParseArmSpec(*spec)
	if err == nil {
		err = cfg.Validate()
	}
	if err == nil && *rounds < 1 {
		err = fmt.Errorf("rounds %d: want at least 1", *rounds)
	}
	if err == nil && *cpus != "" {
		err = checkPinned(*cpus)
	}
	if err == nil && strings.ContainsAny(*load, "\r\n") {
		err = fmt.Errorf("--load %q: the stamp is one line", *load)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", ChildCommand, err)
		return 2
	}
	log := os.NewFile(childLogFD, "log")
	if log == nil {
		fmt.Fprintf(stderr, "%s: no log descriptor %d\n", ChildCommand, childLogFD)
		return 2
	}
	defer log.Close()
	res, err := RunModel(cfg, ModelOptions{Rounds: *rounds, Log: log, RecordsDir: *records, CPUs: *cpus, Load: *load})
	if res != nil {
		if jerr := json.NewEncoder(stdout).Encode(res); jerr != nil && err == nil {
			err = jerr
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", ChildCommand, err)
		var ce *ConfigError
		if errors.As(err, &ce) {
			return 2
		}
		return 1
	}
	return 0
}

// checkPinned refuses to run a block whose process is not pinned to the
// CPU list it was asked for: the stamp's cpus= says where the block ran,
// read back from the kernel, not where it was meant to.
func checkPinned(cpus string) error {
	want, err := ParseCPUList(cpus)
	if err != nil {
		return fmt.Errorf("--cpus %q: %w", cpus, err)
	}
	got, err := AllowedCPUs()
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("--cpus %s: this process runs on CPUs %s, not pinned as asked", want, got)
	}
	return nil
}

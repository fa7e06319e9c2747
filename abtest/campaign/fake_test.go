package campaign

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/runtimeharness"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeStamp is the [stamp] line of every block a fakeLab runs.
const fakeStamp = "fake-model v1 --rounds N"

// A fakeLab stands in for the model: its runners write, instead of running
// a block, a synthetic E1 log of spec.Rounds passes (the five bind phases
// of each, as host_phase_trace writes them), and record which arm ran
// when. A test scripts a call's fate with fail.
type fakeLab struct {
	mu sync.Mutex
	// calls are the arms' names in the order their blocks ran.
	calls []string
	// labels are the blocks' labels (their logs' names without .log).
	labels []string
	// effect slows an arm's every phase by a fraction (0.3 is 30%);
	// noise is the relative sd of each pass's phases, seeded by call.
	effect map[string]float64
	noise  float64
	// fail, when set, is asked before each call (n from 1): a non-nil
	// outcome replaces the ok block.
	fail func(n int, arm string, spec runtimeharness.BlockSpec) outcome
}

// An outcome is what a scripted call does instead of an ok block.
type outcome func(spec runtimeharness.BlockSpec) (runtimeharness.BlockResult, error)

// runners returns one runner per arm of h.
func (l *fakeLab) runners(h journal.Header) []runtimeharness.Runner {
	var out []runtimeharness.Runner
	for _, name := range h.ArmNames() {
		out = append(out, &fakeRunner{lab: l, arm: name})
	}
	return out
}

// ran returns the arms' names in the order their blocks ran.
func (l *fakeLab) ran() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.calls...)
}

type fakeRunner struct {
	lab *fakeLab
	arm string
}

func (r *fakeRunner) Run(ctx context.Context, spec runtimeharness.BlockSpec) (runtimeharness.BlockResult, error) {
	l := r.lab
	l.mu.Lock()
	l.calls = append(l.calls, r.arm)
	l.labels = append(l.labels, strings.TrimSuffix(filepath.Base(spec.Log), ".log"))
	n := len(l.calls)
	effect, noise, fail := l.effect[r.arm], l.noise, l.fail
	l.mu.Unlock()
	if err := os.MkdirAll(spec.Out, 0o755); err != nil {
		return runtimeharness.BlockResult{}, &runtimeharness.LocalError{Op: "creating the block directory", Err: err}
	}
	if fail != nil {
		if o := fail(n, r.arm, spec); o != nil {
			return o(spec)
		}
	}
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	return writeBlock(spec, fakeStamp, spec.Rounds, func(int) float64 { return (1 + effect) * (1 + noise*rng.NormFloat64()) })
}

// writeBlock writes an E1 log of passes passes under stamp to spec.Log:
// each pass's phases last 100 µs times scale(pass).
func writeBlock(spec runtimeharness.BlockSpec, stamp string, passes int, scale func(pass int) float64) (runtimeharness.BlockResult, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "[stamp] %s\n", stamp)
	ts := int64(1_000_000_000)
	for p := range passes {
		d := int64(100_000 * scale(p))
		for _, ph := range []string{"args", "host_orch", "graph_upload", "arena_h2d", "host_view_close"} {
			fmt.Fprintf(&b, "[mono_ns=%d][T0x7f00][TIMING] host_phase_trace_end: [host_phase_trace.cpp:393] bind phase=%s start_ns=%d dur_ns=%d\n",
				ts+d, ph, ts, d)
			ts += d + 10
		}
		ts += 1_000_000
	}
	if err := os.WriteFile(spec.Log, []byte(b.String()), 0o644); err != nil {
		return runtimeharness.BlockResult{}, &runtimeharness.LocalError{Op: "writing the block log", Err: err}
	}
	return runtimeharness.BlockResult{Log: spec.Log, Stamp: stamp, Wall: time.Millisecond}, nil
}

// exitWith is a block that writes text to its log and exits with code.
func exitWith(code int, text string) outcome {
	return func(spec runtimeharness.BlockSpec) (runtimeharness.BlockResult, error) {
		if err := os.WriteFile(spec.Log, []byte(text), 0o644); err != nil {
			return runtimeharness.BlockResult{}, err
		}
		res := runtimeharness.BlockResult{Log: spec.Log, ExitCode: code, Wall: time.Millisecond}
		return res, res.Err()
	}
}

// stamped is an ok block of 100 µs phases under another stamp.
func stamped(stamp string) outcome {
	return func(spec runtimeharness.BlockSpec) (runtimeharness.BlockResult, error) {
		return writeBlock(spec, stamp, spec.Rounds, func(int) float64 { return 1 })
	}
}

// testOptions are the options of a new two-arm embedded campaign whose
// journal is dir/c.jsonl: 5-pass blocks, 2 cold, rounds rounds, one
// warm-up, one retry.
func testOptions(dir string, rounds int) Options {
	cfg := journal.DefaultConfig()
	cfg.Block, cfg.Cold, cfg.BlockStat = 5, 2, journal.BlockMedian
	cfg.Rounds = rounds
	return Options{Config: cfg, Arms: [2]journal.Arm{journal.DefaultBase, journal.DefaultHead},
		Journal: filepath.Join(dir, "c.jsonl"), Repo: dir, Cache: filepath.Join(dir, "cache"),
		Seed: 11, SeedSet: true, Version: "hbgkit test", Argv: []string{"hbgbench", "ab"}}
}

// openFake opens a campaign whose runners are lab's; warn collects what it
// warns of.
func openFake(t *testing.T, o Options, lab *fakeLab) (*Session, *bytes.Buffer) {
	t.Helper()
	warn := &bytes.Buffer{}
	o.Warn = warn
	s, err := Open(context.Background(), o)
	// A campaign closed a moment ago may still look locked: a process
	// another parallel test was starting (git) holds a copy of its lock's
	// descriptor between fork and exec, as journal.orphanLockGrace says.
	for deadline := time.Now().Add(3 * time.Second); err != nil && time.Now().Before(deadline) &&
		(errors.Is(err, journal.ErrJournalLocked) || strings.Contains(err.Error(), "is in use by another campaign")); {
		// What the refused try said stays: it may have journaled (an
		// extension) before the lock refused it.
		time.Sleep(20 * time.Millisecond)
		s, err = Open(context.Background(), o)
	}
	require.NoError(t, err)
	t.Cleanup(s.Close)
	s.runners = lab.runners(s.Header)
	return s, warn
}

// runFake opens a campaign with lab's runners and runs it.
func runFake(t *testing.T, o Options, lab *fakeLab) (*Session, string, error) {
	t.Helper()
	s, warn := openFake(t, o, lab)
	err := s.Run(context.Background())
	assert.NotRegexp(t, `(?m)^hbgbench`, warn.String(), "the campaign's lines carry no program name: cmd/hbgbench adds it")
	return s, warn.String(), err
}

// readBack reads a journal and fails the test when it cannot be read.
func readBack(t *testing.T, path string) *journal.Journal {
	t.Helper()
	j, err := journal.ReadJournal(path)
	require.NoError(t, err)
	require.Empty(t, j.Warnings, "the journal reads back whole")
	return j
}

package runtimeharness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/hbgkit/hbgkit/internal/procgroup"
)

// A Runner runs blocks of one arm: one invocation of the runtime (real or
// modelled) with a given number of passes, its log written to a file.
type Runner interface {
	// Run executes one block of spec.Rounds passes and writes its log, a
	// [stamp] line first, to spec.Log. A block that ran but failed (non-zero
	// exit, signal, timeout) returns its filled result together with an
	// error; a block that could not be started returns only an error.
	Run(ctx context.Context, spec BlockSpec) (BlockResult, error)
}

// BlockSpec describes one block.
type BlockSpec struct {
	Rounds  int           // passes ({rounds} in a command template)
	Out     string        // an empty directory for the block ({out}); created when missing
	Log     string        // file the block's log goes to; created or truncated
	Timeout time.Duration // kills the block's whole process group; 0 means no limit
	// CPUs pins the block's process, and what it forks, to a CPU list
	// ("0", "0-1", "0,2-3"; see ParseCPUList); "" leaves it unpinned.
	CPUs string
	// Load names the background load beside the block in its [stamp]
	// (LoadStamp: "load=2", "load=0", "load-cmd='...'"); "" when the
	// campaign runs none, which leaves the stamp as it was before loads.
	Load string
}

// BlockResult is what became of one block.
type BlockResult struct {
	Log      string         // path of the log
	Stamp    string         // text of the [stamp] line, without "[stamp] "
	ExitCode int            // -1 when a signal ended the process
	Signal   syscall.Signal // the signal that ended it, or 0
	TimedOut bool           // the timeout killed the process group
	Wall     time.Duration  // from start to exit
	Model    *ModelResult   // the embedded model's summary, when it ran
}

// Err describes why a block failed, or returns nil when it exited 0.
func (r BlockResult) Err() error {
	switch {
	case r.TimedOut:
		return fmt.Errorf("block timed out after %v and was killed", r.Wall.Round(time.Millisecond))
	case r.Signal != 0:
		return fmt.Errorf("block killed by signal %d (%v)", int(r.Signal), r.Signal)
	case r.ExitCode != 0:
		return fmt.Errorf("block exited with status %d", r.ExitCode)
	}
	return nil
}

// defaultWaitDelay bounds the wait for the block's output after its
// process group was killed.
const defaultWaitDelay = 5 * time.Second

// killGroup sends SIGKILL to the process group led by pid.
func killGroup(pid int) error {
	err := syscall.Kill(-pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// groupCommand makes cmd the leader of its own process group, which gets
// SIGKILL when the thread that started it dies (Pdeathsig) and when ctx is
// done (Cancel kills the whole group, not just the leader).
func groupCommand(cmd *exec.Cmd, waitDelay time.Duration) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
	if waitDelay <= 0 {
		waitDelay = defaultWaitDelay
	}
	cmd.WaitDelay = waitDelay
}

// blockContext applies the block's timeout to ctx.
func blockContext(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout > 0 {
		return context.WithTimeout(ctx, timeout)
	}
	return context.WithCancel(ctx)
}

// runGroup starts cmd (built with groupCommand on tctx, a child of ctx)
// pinned to the CPU list cpus (none when ""), runs started once it is
// running, waits for it, kills whatever is left of its group, and fills
// res. It returns an error only when the block could not be run or the
// caller's ctx ended it.
func runGroup(ctx, tctx context.Context, cmd *exec.Cmd, cpus string, started func(), res *BlockResult) error {
	if cpus == "" {
		return runGroupOn(ctx, tctx, cmd, "", started, res)
	}
	// A goroutine of its own for a pinned start (see startPinned).
	errc := make(chan error, 1)
	go func() { errc <- runGroupOn(ctx, tctx, cmd, cpus, started, res) }()
	return <-errc
}

func runGroupOn(ctx, tctx context.Context, cmd *exec.Cmd, cpus string, started func(), res *BlockResult) error {
	begin := time.Now()
	if err := startPinned(cmd, cpus); err != nil {
		if started != nil {
			started()
		}
		return fmt.Errorf("starting %s: %w", cmd.Path, err)
	}
	// Pdeathsig kills the leader if hbgbench dies; the watchdog kills
	// what the block started in the background as well. (A kill in the
	// instant before it starts leaves those to live on.)
	dog, derr := procgroup.Watch(cmd.Process.Pid)
	if started != nil {
		started()
	}
	werr := cmd.Wait()
	res.Wall = time.Since(begin)
	// Background processes the block left behind belong to it too.
	_ = killGroup(cmd.Process.Pid)
	dog.Stop()
	if derr != nil {
		return derr
	}

	if st := cmd.ProcessState; st != nil {
		res.ExitCode = st.ExitCode()
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.Signal = ws.Signal()
		}
	}
	if ctx.Err() != nil {
		return fmt.Errorf("block cancelled: %w", ctx.Err())
	}
	if errors.Is(tctx.Err(), context.DeadlineExceeded) {
		res.TimedOut = true
	}
	var exitErr *exec.ExitError
	if werr != nil && !errors.As(werr, &exitErr) {
		return fmt.Errorf("waiting for %s: %w", cmd.Path, werr)
	}
	return nil
}

// prepareOut makes dir an empty directory, creating it when missing.
func prepareOut(dir string) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return &LocalError{Op: "preparing the block directory", Err: err}
	}
	f, err := os.Open(dir)
	if err != nil {
		return &LocalError{Op: "preparing the block directory", Err: err}
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	if err != nil && len(names) == 0 && !errors.Is(err, io.EOF) {
		return &LocalError{Op: "preparing the block directory", Err: err}
	}
	if len(names) > 0 {
		return fmt.Errorf("block directory %s is not empty", dir)
	}
	return nil
}

func checkSpec(spec BlockSpec) error {
	if spec.Rounds < 1 {
		return fmt.Errorf("block spec: rounds %d: want at least 1", spec.Rounds)
	}
	if spec.Log == "" {
		return errors.New("block spec: no log file")
	}
	if spec.Timeout < 0 {
		return fmt.Errorf("block spec: negative timeout %v", spec.Timeout)
	}
	if spec.CPUs != "" {
		if _, err := ParseCPUList(spec.CPUs); err != nil {
			return fmt.Errorf("block spec: CPUs %q: %w", spec.CPUs, err)
		}
	}
	return nil
}

// Both runners are Runners.
var (
	_ Runner = (*CommandRunner)(nil)
	_ Runner = (*EmbeddedRunner)(nil)
)

// A LocalError is a failure of this host's own work for a block (creating
// or writing its log, preparing its output directory: a full disk, say),
// not of the arm: a campaign stops on it instead of blaming the arm.
type LocalError struct {
	Op  string // "writing the block log"
	Err error
}

func (e *LocalError) Error() string { return e.Op + ": " + e.Err.Error() }

func (e *LocalError) Unwrap() error { return e.Err }

package runtimeharness

import (
	"fmt"
	"os/exec"
	"syscall"
	"time"
)

// LoadStamp is how a block's [stamp] names the load beside it
// (BlockSpec.Load): "load=N" for n busy processes, "load-cmd=CMD" (one
// line, shell-quoted) for a command; "" for none unless named, when a
// block without a load says "load=0" (an arm of --sweep load=0,2, so that
// its blocks and its neighbours' name their load alike).
func LoadStamp(n int, command string, named bool) string {
	switch {
	case command != "":
		return "load-cmd=" + ShellQuote(oneLine.Replace(command))
	case n > 0 || named:
		return fmt.Sprintf("load=%d", n)
	}
	return ""
}

// A Load is a fixed background load beside a block: N busy processes,
// each a shell spinning in a loop, each the leader of its own process
// group (killed with it), pinned to the block's CPUs when the block is
// (see docs/ab.md "Under load").
type Load struct {
	cmds []*exec.Cmd
}

// spinScript is what each busy process runs: a loop that never sleeps.
const spinScript = "while :; do :; done"

// StartLoad starts n busy processes pinned to the CPU list cpus (none
// when ""), or, when command is not "", that command once (--load-cmd),
// as the leader of its group likewise. Pdeathsig kills them if hbgbench
// dies; Stop kills them when the block ends. On an error the ones
// already started are stopped.
func StartLoad(n int, command, cpus string) (*Load, error) {
	l := &Load{}
	script := spinScript
	if command != "" {
		n, script = 1, command
	}
	for range n {
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		errc := make(chan error, 1)
		// A goroutine of its own for a pinned start (see startPinned).
		go func() { errc <- startPinned(cmd, cpus) }()
		if err := <-errc; err != nil {
			l.Stop()
			return nil, fmt.Errorf("starting the background load (--load %d, --load-cmd %q): %w", n, command, err)
		}
		l.cmds = append(l.cmds, cmd)
	}
	return l, nil
}

// Pids are the busy processes' pids, in start order.
func (l *Load) Pids() []int {
	var out []int
	for _, c := range l.cmds {
		out = append(out, c.Process.Pid)
	}
	return out
}

// Stop kills every busy process with its group, waits for each, and
// returns the CPU time they consumed together (user + system): the
// evidence that the load ran.
func (l *Load) Stop() time.Duration {
	var cpu time.Duration
	for _, c := range l.cmds {
		_ = killGroup(c.Process.Pid)
		_ = c.Wait()
		if st := c.ProcessState; st != nil {
			cpu += st.UserTime() + st.SystemTime()
		}
	}
	l.cmds = nil
	return cpu
}

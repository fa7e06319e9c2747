// Package procgroup kills a process group when the process that started it
// dies, even by SIGKILL.
//
// A block or a build runs as the leader of its own process group. Its
// leader gets SIGKILL from the kernel when hbgbench dies (Pdeathsig), but
// that reaches the leader alone: what the command started in the
// background — a benchmark under a shell script, a compiler under make —
// lived on after `kill -9` of hbgbench. Watch starts a watchdog, a
// /bin/sh of its own process group that reads one line from a pipe whose
// only writer is this process. When this process dies the kernel closes
// the pipe, the read ends without "done", and the watchdog kills the
// whole group. Stop writes "done", so a group that ended normally is never
// signalled again (its number could by then name another group).
package procgroup

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// A Watchdog kills a process group if this process dies before Stop.
type Watchdog struct {
	w   *os.File
	cmd *exec.Cmd
}

// Watch starts the watchdog of process group pgid (a leader's pid).
func Watch(pgid int) (*Watchdog, error) {
	if pgid <= 1 {
		return nil, fmt.Errorf("procgroup: no process group %d", pgid)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("procgroup: %w", err)
	}
	// The write end is close-on-exec (os.Pipe), so neither the watchdog
	// nor the group holds it: its only holder is this process.
	cmd := exec.Command("/bin/sh", "-c", `read -r line; [ "$line" = done ] || kill -9 -`+strconv.Itoa(pgid))
	cmd.Stdin = r
	// Its own group: Ctrl-C at the terminal does not reach it, and the
	// group it watches may be killed without it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, fmt.Errorf("procgroup: starting the watchdog: %w", err)
	}
	r.Close()
	return &Watchdog{w: w, cmd: cmd}, nil
}

// Stop ends the watchdog without killing the group. The watchdog is
// reaped in the background, so that a block does not wait for a shell to
// exit.
func (d *Watchdog) Stop() {
	if d == nil {
		return
	}
	_, _ = d.w.WriteString("done\n")
	d.w.Close()
	go func() { _ = d.cmd.Wait() }()
}

// Running reports whether process pid exists and has not ended: a zombie
// (ended, not yet reaped by its parent) is not running. It reads
// /proc/PID/stat; where that cannot be read (the process is gone, or /proc
// hides other users' processes) kill(pid, 0) decides.
func Running(pid int) bool {
	if pid <= 0 {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
	}
	// The state is the field after the command name, which is in
	// parentheses and may hold any byte.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z' && s[i+2] != 'X'
}

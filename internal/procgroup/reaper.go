package procgroup

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// A process that daemonises — `setsid sleep 45 &` in a block's command —
// leaves its process group and its session, so neither the group kill
// after the block nor the watchdog reaches it, and its parent's exit hands
// it to init. EnableSubreaper makes this process a child subreaper
// (prctl PR_SET_CHILD_SUBREAPER): such orphans are handed to it instead,
// and Sweep kills them. It is enabled by hbgbench's main only: a test
// binary running several campaigns at once is not made the parent of
// their orphans.
//
// Sweep runs after every block and build and when a campaign closes: a
// daemon whose setsid came only after its block's sweep (it forked in the
// instant before its shell ended) is caught by the next one.
//
// What is not covered: a daemon left by a block when hbgbench itself is
// killed with SIGKILL before the sweep that would catch it is handed to
// init, as nothing can follow it there without cgroups, which hbgbench
// does not require (docs/ab-reference.md "Faults and security").

var subreaper atomic.Bool

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER (linux/prctl.h).
const prSetChildSubreaper = 36

// EnableSubreaper makes this process the child subreaper of its
// descendants, so that Sweep can find the ones that daemonised.
func EnableSubreaper() error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		return fmt.Errorf("procgroup: prctl(PR_SET_CHILD_SUBREAPER): %w", e)
	}
	subreaper.Store(true)
	return nil
}

// An Orphan is a process Sweep killed.
type Orphan struct {
	Pid  int
	Comm string // its command name, from /proc/PID/stat
}

func (o Orphan) String() string { return fmt.Sprintf("%s (pid %d)", o.Comm, o.Pid) }

// Sweep kills, and reaps, every child of this process that left this
// process's session — a daemon a block or a build started, handed to this
// process when its parent ended — and returns them. It does nothing
// unless EnableSubreaper was called. A child in this session (a block
// still running, a watchdog, a load process) is left alone.
func Sweep() []Orphan {
	if !subreaper.Load() {
		return nil
	}
	self := os.Getpid()
	_, _, mySid, ok := stat(self)
	if !ok {
		return nil
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []Orphan
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, ppid, sid, ok := stat(pid)
		if !ok || ppid != self || sid == mySid {
			continue
		}
		// Its group too: what the daemon started in turn.
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = syscall.Kill(pid, syscall.SIGKILL)
		out = append(out, Orphan{pid, comm})
	}
	for _, o := range out {
		reap(o.Pid)
	}
	return out
}

// reap waits for child pid, for at most a second.
func reap(pid int) {
	var ws syscall.WaitStatus
	for range 100 {
		if p, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); p == pid || err != nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stat reads a process's command name, parent and session from
// /proc/PID/stat; ok is false when it cannot.
func stat(pid int) (comm string, ppid, sid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0, 0, false
	}
	s := string(b)
	open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || close < open {
		return "", 0, 0, false
	}
	// After ") ": state ppid pgrp session ...
	f := strings.Fields(s[close+1:])
	if len(f) < 4 {
		return "", 0, 0, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	sid, err2 := strconv.Atoi(f[3])
	return s[open+1 : close], ppid, sid, err1 == nil && err2 == nil
}

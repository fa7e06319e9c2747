package runtimeharness

import (
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// maxCPU is one past the highest CPU number a CPU list may name: the size
// of the kernel affinity mask sched_setaffinity takes here (unix.CPUSet).
const maxCPU = len(unix.CPUSet{}) * 64

// ParseCPUList reads a CPU list in the kernel's cpuset syntax, the one of
// taskset -c and /proc/PID/status's Cpus_allowed_list: CPU numbers and
// ranges separated by commas ("0", "0-1", "0,2-3"). It returns the list in
// its canonical form (ascending, ranges merged: "0,2,3" is "0,2-3"), so
// that two spellings of one set compare equal. Strides ("0-7:2") are not
// taken.
func ParseCPUList(s string) (string, error) {
	set, err := parseCPUSet(s)
	if err != nil {
		return "", err
	}
	return formatCPUSet(&set), nil
}

func parseCPUSet(s string) (unix.CPUSet, error) {
	var set unix.CPUSet
	if strings.TrimSpace(s) == "" {
		return set, errors.New("empty CPU list; want CPU numbers and ranges such as 0, 0-1 or 0,2-3")
	}
	num := func(w string) (int, error) {
		if w == "" || strings.TrimLeft(w, "0123456789") != "" {
			return 0, fmt.Errorf("%q is not a CPU number; want CPU numbers and ranges such as 0, 0-1 or 0,2-3", w)
		}
		n, err := strconv.Atoi(w)
		if err != nil || n >= maxCPU {
			return 0, fmt.Errorf("CPU %s: beyond the %d CPUs an affinity mask names", w, maxCPU)
		}
		return n, nil
	}
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		lo, hi, isRange := strings.Cut(item, "-")
		a, err := num(lo)
		if err != nil {
			return set, err
		}
		b := a
		if isRange {
			if b, err = num(hi); err != nil {
				return set, err
			}
			if b < a {
				return set, fmt.Errorf("range %s: its end is below its start", item)
			}
		}
		for c := a; c <= b; c++ {
			set.Set(c)
		}
	}
	return set, nil
}

// formatCPUSet writes set as a canonical CPU list.
func formatCPUSet(set *unix.CPUSet) string {
	var parts []string
	for c := 0; c < maxCPU; c++ {
		if !set.IsSet(c) {
			continue
		}
		end := c
		for end+1 < maxCPU && set.IsSet(end+1) {
			end++
		}
		if end == c {
			parts = append(parts, strconv.Itoa(c))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", c, end))
		}
		c = end
	}
	return strings.Join(parts, ",")
}

// AllowedCPUs returns the CPUs this thread may run on (sched_getaffinity),
// as a canonical CPU list: those of the process unless something pinned
// this thread alone.
func AllowedCPUs() (string, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return "", fmt.Errorf("reading the CPUs this process may use: %w", err)
	}
	return formatCPUSet(&set), nil
}

// CheckCPUList parses a CPU list and checks that this process may run on
// every CPU of it (sched_getaffinity), as a block pinned to it must: a CPU
// outside a container's cpuset or a taskset would fail each block. It
// returns the list's canonical form.
func CheckCPUList(s string) (string, error) {
	set, err := parseCPUSet(s)
	if err != nil {
		return "", err
	}
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		return "", fmt.Errorf("reading the CPUs this process may use: %w", err)
	}
	for c := 0; c < maxCPU; c++ {
		if set.IsSet(c) && !allowed.IsSet(c) {
			return "", fmt.Errorf("CPU %d is not one this process may use (it may use %s)", c, formatCPUSet(&allowed))
		}
	}
	return formatCPUSet(&set), nil
}

// startPinned starts cmd with its CPU affinity set to the CPU list cpus
// ("" starts it as it is), so that the block's process and everything it
// forks run only there.
//
// Go's exec has no affinity attribute, and setting the child's mask after
// Start (sched_setaffinity on its pid) races with the child: it may have
// forked already. A mask is a thread's, and a fork inherits the mask of
// the thread that forks; Go forks from the thread of the goroutine that
// calls Start. So this locks the goroutine to its thread, pins the thread,
// starts cmd (the child inherits the mask before its first instruction),
// and restores the thread's mask. The caller runs it in a goroutine of its
// own (runGroup): should the restore fail, that goroutine stays locked and
// its thread ends with it instead of going back to the runtime pinned (it
// ends after the block's process group is gone, so Pdeathsig kills
// nothing).
func startPinned(cmd *exec.Cmd, cpus string) error {
	if cpus == "" {
		return cmd.Start()
	}
	set, err := parseCPUSet(cpus)
	if err != nil {
		return fmt.Errorf("pinning the block to CPUs %s: %w", cpus, err)
	}
	runtime.LockOSThread()
	var old unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("pinning the block to CPUs %s: %w", cpus, err)
	}
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("pinning the block to CPUs %s: %w", cpus, err)
	}
	err = cmd.Start()
	if unix.SchedSetaffinity(0, &old) == nil {
		runtime.UnlockOSThread()
	}
	return err
}

package journal

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hbgkit/hbgkit/internal/procgroup"
)

// errLockHeld says that another process holds a lock file; holder is
// the pid the file names, and exited says that pid no longer runs.
type ErrLockHeld struct {
	holder string
	exited bool
}

func (e *ErrLockHeld) Error() string {
	if e.exited {
		return "pid " + e.holder + " took it and has exited; a process it started still holds it"
	}
	return "pid " + e.holder + " holds it"
}

// orphanLockGrace bounds how long flockFile waits for a lock whose taker
// has exited. The kernel drops a flock when the last descriptor of its open
// file goes, and a process the taker was starting when it died (between
// fork and exec, or killed by its death signal) holds a copy for a moment:
// a campaign killed with SIGKILL and resumed at once would otherwise be
// refused by its own dying child. A variable so that a test can shorten it.
var orphanLockGrace = 3 * time.Second

// selfLockSettle bounds how long flockFile waits for a lock whose file
// names this very process: one it let go a moment ago can still be held
// by a child it forked before (the child shares the descriptor until its
// exec closes it), so it is tried again this long before it counts as
// held (by another campaign of this process, or by that child still).
const selfLockSettle = 500 * time.Millisecond

// flockFile takes an exclusive flock(2) on path, created when missing,
// which the kernel drops when this process dies, so a killed campaign
// never leaves a stale lock. The file then holds this process's pid, for
// the message another process gets (an *errLockHeld). A lock held while
// the pid it names has exited is waited for, up to orphanLockGrace.
func FlockFile(path string) (*os.File, error) {
	for {
		f, err := flockOnce(path)
		if err != nil || f != nil {
			return f, err
		}
		// The holder removed the file as it let go: take the new one.
	}
}

// maxLockBytes bounds what a lock file hbgbench made holds: a pid and a
// newline.
const maxLockBytes = 24

// notALock says why path cannot be a lock: a lock never follows a
// symbolic link, and never truncates a file that holds anything but a pid.
func notALock(path string, f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file, so not a lock file: name a file of its own for the lock", path)
	}
	if fi.Size() > maxLockBytes {
		return fmt.Errorf("%s holds %d bytes, not a pid: it is not a lock file hbgbench made, and is left alone; name a file of its own for the lock", path, fi.Size())
	}
	b := make([]byte, fi.Size())
	n, _ := f.ReadAt(b, 0)
	for _, c := range strings.TrimSpace(string(b[:n])) {
		if c < '0' || c > '9' {
			return fmt.Errorf("%s holds %q, not a pid: it is not a lock file hbgbench made, and is left alone; name a file of its own for the lock", path, b[:n])
		}
	}
	return nil
}

// flockOnce is one try of flockFile; it returns neither a file nor an
// error when the lock it took is on a file no longer at path.
func flockOnce(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o644)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s is a symbolic link: a lock is never followed into another file; name a file of its own for the lock", path)
	}
	if err != nil {
		return nil, err
	}
	if err := notALock(path, f); err != nil {
		f.Close()
		return nil, err
	}
	var deadline time.Time
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, err
		}
		holder, _ := io.ReadAll(io.LimitReader(io.NewSectionReader(f, 0, 32), 32))
		held := &ErrLockHeld{holder: strings.TrimSpace(string(holder))}
		held.exited = pidExited(held.holder)
		self := held.holder == strconv.Itoa(os.Getpid())
		if !held.exited && !self {
			f.Close()
			return nil, held
		}
		if deadline.IsZero() {
			deadline = time.Now().Add(orphanLockGrace)
			if self {
				deadline = time.Now().Add(selfLockSettle)
			}
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, held
		}
		time.Sleep(10 * time.Millisecond)
	}
	if fi, err := f.Stat(); err == nil {
		if now, err := os.Lstat(path); err != nil || !os.SameFile(fi, now) {
			f.Close()
			return nil, nil
		}
	}
	// Held now: what it holds cannot change under us.
	if err := notALock(path, f); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}

// pidExited reports whether pid (as a lock file holds it) names no running
// process: none, or a zombie (killed, not yet reaped). A file without a
// pid does not say, so it is not exited.
func pidExited(pid string) bool {
	n, err := strconv.Atoi(pid)
	if err != nil || n <= 0 {
		return false
	}
	return !procgroup.Running(n)
}

// LockFile takes an exclusive lock on path for as long as the returned
// file is open: --lock, so that two campaigns never share a card.
func LockFile(path string) (*os.File, error) {
	f, err := FlockFile(path)
	var held *ErrLockHeld
	switch {
	case errors.As(err, &held):
		return nil, fmt.Errorf("--lock %s is held by another campaign (%s)", path, held)
	case err != nil:
		return nil, fmt.Errorf("--lock: %w", err)
	}
	return f, nil
}

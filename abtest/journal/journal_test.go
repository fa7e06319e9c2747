package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testConfig is the method the unit tests were written for: 5-pass
// blocks reduced by their median (the defaults before issue 24), so that
// what they assert does not move with DefaultConfig.
func testConfig() Config {
	c := DefaultConfig()
	c.Block, c.BlockStat = 5, BlockMedian
	return c
}

func testHeader(t *testing.T) Header {
	t.Helper()
	h, err := NewHeader(testConfig(), [2]Arm{DefaultBase, DefaultHead}, 5, "hbgkit test", []string{"hbgbench", "ab"}, Env{Host: "h"})
	require.NoError(t, err)
	h.Primary, h.Ruler = metric.PooledKey("ControlPlane"), "r"
	return h
}

func TestJournalRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.jsonl")
	w, err := CreateJournal(path)
	require.NoError(t, err)
	h := testHeader(t)
	require.NoError(t, w.Append(h))
	b := BlockRecord{Type: LineBlock, Round: 1, Arm: "base", Attempt: 1, Try: 1,
		Passes: []metric.Pass{{Pid: 1, Inv: 1, Cold: true, Values: map[string]float64{"ControlPlane": 5}}}}
	require.NoError(t, w.Append(b))
	require.NoError(t, w.Append(RoundRecord{Type: LineRound, Round: 1, Attempt: 1, Status: RoundOK}))
	require.NoError(t, w.Close())

	j, err := ReadJournal(path)
	require.NoError(t, err)
	assert.Empty(t, j.Warnings)
	assert.Equal(t, h.Schedule, j.Header.Schedule)
	require.Len(t, j.Blocks, 1)
	assert.Equal(t, 5.0, j.Blocks[0].Passes[0].Values["ControlPlane"])
	require.Len(t, j.Rounds, 1)
	assert.NotNil(t, j.History().DoneRound(1))
	assert.Nil(t, j.History().DoneRound(2))
	// A journal already there is never overwritten.
	_, err = CreateJournal(path)
	assert.ErrorContains(t, err, "exists: resume it with --resume")
}

func TestJournalTornLastLine(t *testing.T) {
	// Not parallel: a child another test forks holds a copy of a lock's
	// file between fork and exec, and a lock just let go would look held.
	path := filepath.Join(t.TempDir(), "j.jsonl")
	w, err := CreateJournal(path)
	require.NoError(t, err)
	require.NoError(t, w.Append(testHeader(t)))
	require.NoError(t, w.Append(RoundRecord{Type: LineRound, Round: 1, Attempt: 1, Status: RoundOK}))
	require.NoError(t, w.Close())
	good, err := os.ReadFile(path)
	require.NoError(t, err)
	// A crash mid-write leaves half a line.
	require.NoError(t, os.WriteFile(path, append(append([]byte(nil), good...), `{"type":"round","rou`...), 0o644))

	j, err := ReadJournal(path)
	require.NoError(t, err)
	require.Len(t, j.Warnings, 1)
	assert.Contains(t, j.Warnings[0], "j.jsonl:3: ignoring a torn last line")
	assert.Len(t, j.Rounds, 1)

	// Opening it for a resume cuts the torn line, so the next line starts
	// clean and the file is valid JSONL again.
	w, j, err = OpenJournal(path)
	require.NoError(t, err)
	assert.Len(t, j.Warnings, 1)
	require.NoError(t, w.Append(RoundRecord{Type: LineRound, Round: 2, Attempt: 1, Status: RoundOK}))
	require.NoError(t, w.Close())
	j, err = ReadJournal(path)
	require.NoError(t, err)
	assert.Empty(t, j.Warnings)
	assert.Len(t, j.Rounds, 2)
}

func TestJournalBadLineInTheMiddle(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.jsonl")
	w, err := CreateJournal(path)
	require.NoError(t, err)
	require.NoError(t, w.Append(testHeader(t)))
	require.NoError(t, w.Close())
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("not json\n{\"type\":\"round\",\"round\":1,\"attempt\":1,\"status\":\"ok\"}\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	_, err = ReadJournal(path)
	assert.ErrorContains(t, err, "j.jsonl:2: not a JSON line")
}

func TestJournalNotAJournal(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(`{"type":"round"}`+"\n"), 0o644))
	_, err := ReadJournal(path)
	assert.ErrorContains(t, err, "first line is a \"round\" line")
	require.NoError(t, os.WriteFile(path, nil, 0o644))
	_, err = ReadJournal(path)
	assert.ErrorContains(t, err, "not an hbgbench journal")
}

func TestJournalLock(t *testing.T) {
	// Not parallel: a child another test forks holds a copy of a lock's
	// file between fork and exec, and a lock just let go would look held.
	path := filepath.Join(t.TempDir(), "j.jsonl")
	w, err := CreateJournal(path)
	require.NoError(t, err)
	require.NoError(t, w.Append(testHeader(t)))
	// A second campaign on the same journal is refused while the first
	// holds it, naming the holder.
	_, _, err = OpenJournal(path)
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrJournalLocked), err)
	assert.Contains(t, err.Error(), "pid ")
	require.NoError(t, w.Close())
	// The lock dies with its holder: closing (or being killed) frees it.
	w, _, err = OpenJournal(path)
	require.NoError(t, err)
	b, err := os.ReadFile(LockPath(path))
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprintf("%d\n", os.Getpid()), string(b), "the lock file names its holder")
	require.NoError(t, w.Close())
	// Closing removes the lock file: nothing of a finished campaign is
	// left beside its journal.
	_, err = os.Stat(LockPath(path))
	assert.True(t, os.IsNotExist(err), "the lock file is left: %v", err)
}

// TestLockOnAFileNoLongerThere: a lock taken on a lock file its holder
// removed while letting go (the path now names another file, or none) is
// not a lock: flockFile takes the one at the path.
func TestLockOnAFileNoLongerThere(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.jsonl.lock")
	require.NoError(t, os.WriteFile(path, []byte("1\n"), 0o644))
	stale, err := os.Open(path)
	require.NoError(t, err)
	defer stale.Close()
	require.NoError(t, os.Remove(path))
	// One try on the removed file's descriptor's path gives nothing; the
	// loop creates the path again and locks it.
	f, err := FlockFile(path)
	require.NoError(t, err)
	defer f.Close()
	fi, err := f.Stat()
	require.NoError(t, err)
	now, err := os.Stat(path)
	require.NoError(t, err)
	assert.True(t, os.SameFile(fi, now))
}

func TestJournalCompleteLastLineWithoutNewline(t *testing.T) {
	// Not parallel: a child another test forks holds a copy of a lock's
	// file between fork and exec, and a lock just let go would look held.
	path := filepath.Join(t.TempDir(), "j.jsonl")
	w, err := CreateJournal(path)
	require.NoError(t, err)
	require.NoError(t, w.Append(testHeader(t)))
	require.NoError(t, w.Close())
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"type":"round","round":1,"attempt":1,"status":"ok"}`)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	j, err := ReadJournal(path)
	require.NoError(t, err)
	assert.Len(t, j.Rounds, 1, "a complete record counts even without its newline")
	assert.Contains(t, j.Warnings[0], "j.jsonl:2: last line has no newline")
	w, _, err = OpenJournal(path)
	require.NoError(t, err)
	require.NoError(t, w.Append(RoundRecord{Type: LineRound, Round: 2, Attempt: 1, Status: RoundOK}))
	require.NoError(t, w.Close())
	j, err = ReadJournal(path)
	require.NoError(t, err)
	assert.Empty(t, j.Warnings)
	assert.Len(t, j.Rounds, 2)
}

// exitedPid returns the pid of a process that has run and been reaped.
func exitedPid(t *testing.T) int {
	t.Helper()
	c := exec.Command("true")
	require.NoError(t, c.Run())
	return c.Process.Pid
}

// holdInChild takes path's flock, writes pid into it and hands the open
// file to a real child process (sleep) that keeps it for d, then drops this
// process's copy: the lock is held only by the child, as it is by a child a
// killed hbgbench was starting.
func holdInChild(t *testing.T, path string, pid int, d string) *exec.Cmd {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	require.NoError(t, err)
	require.NoError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB))
	_, err = f.WriteString(strconv.Itoa(pid) + "\n")
	require.NoError(t, err)
	c := exec.Command("sleep", d)
	c.ExtraFiles = []*os.File{f}
	require.NoError(t, c.Start())
	require.NoError(t, f.Close())
	t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
	return c
}

// TestJournalLockOfAnExitedTaker: a lock whose taker has exited but which a
// child of it still holds for a moment is waited for, not refused; one
// that a child keeps past the grace is refused, saying so.
func TestJournalLockOfAnExitedTaker(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	dead := exitedPid(t)
	c := holdInChild(t, LockPath(path), dead, "0.3")
	w, err := CreateJournal(path)
	require.NoError(t, err, "the child's copy goes when it exits")
	// The lock was taken only once the child had exited (it is a zombie
	// until the cleanup reaps it).
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(c.Process.Pid) + "/stat")
	require.NoError(t, err)
	assert.Contains(t, string(stat), ") Z ", "the child must have exited")
	require.NoError(t, w.Close())

	defer func(g time.Duration) { orphanLockGrace = g }(orphanLockGrace)
	orphanLockGrace = 50 * time.Millisecond
	path2 := filepath.Join(t.TempDir(), "j.jsonl")
	holdInChild(t, LockPath(path2), dead, "30")
	_, err = CreateJournal(path2)
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrJournalLocked), err)
	assert.Contains(t, err.Error(), "pid "+strconv.Itoa(dead)+" took it and has exited; a process it started still holds it")
}

// TestJournalLockOfALiveHolderIsNotWaitedFor: a holder that runs is
// refused at once, even when it lets go soon after.
func TestJournalLockOfALiveHolderIsNotWaitedFor(t *testing.T) {
	// Not parallel: a child another test forks holds a copy of a lock's
	// file between fork and exec, and a lock just let go would look held.
	path := filepath.Join(t.TempDir(), "j.jsonl")
	holdInChild(t, LockPath(path), os.Getpid(), "2")
	_, err := CreateJournal(path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "pid "+strconv.Itoa(os.Getpid())+" holds it")
}

// TestLockFileNamesItsHolder: --lock is refused while a campaign holds it,
// naming that campaign's pid, and taken once it lets go.
func TestLockFileNamesItsHolder(t *testing.T) {
	// Not parallel: a child another test forks holds a copy of a lock's
	// file between fork and exec, and a lock just let go would look held.
	path := filepath.Join(t.TempDir(), "card0.lock")
	first, err := LockFile(path)
	require.NoError(t, err)
	_, err = LockFile(path)
	require.Error(t, err)
	assert.Equal(t, "--lock "+path+" is held by another campaign (pid "+strconv.Itoa(os.Getpid())+" holds it)", err.Error())
	require.NoError(t, first.Close())
	second, err := LockFile(path)
	require.NoError(t, err)
	require.NoError(t, second.Close())
}

// TestLockNeverDestroysAFile: a lock is taken only on a file hbgbench
// made (empty, or a pid); it never truncates another file, never follows
// a symbolic link and never takes a FIFO.
func TestLockNeverDestroysAFile(t *testing.T) {
	// Not parallel: a child another test forks holds a copy of a lock's
	// file between fork and exec, and a lock just let go would look held.
	dir := t.TempDir()
	precious := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(precious, []byte("my notes\n"), 0o644))
	link := filepath.Join(dir, "j.jsonl.lock")
	require.NoError(t, os.Symlink(precious, link))
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	pidFile := filepath.Join(dir, "card0.lock")
	require.NoError(t, os.WriteFile(pidFile, []byte("12345\n"), 0o644))

	tests := []struct {
		name, path, want string
	}{
		{"a file of data", precious, "holds \"my notes\\n\", not a pid: it is not a lock file hbgbench made"},
		{"a symbolic link", link, "is a symbolic link: a lock is never followed"},
		{"a FIFO", fifo, "is not a regular file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LockFile(tc.path)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			b, err := os.ReadFile(precious)
			require.NoError(t, err)
			assert.Equal(t, "my notes\n", string(b))
		})
	}
	// The journal's lock through a symbolic link is refused the same way.
	_, err := CreateJournal(filepath.Join(dir, "j.jsonl"))
	assert.ErrorContains(t, err, "is a symbolic link")
	// A lock file an earlier hbgbench made (a pid) is taken.
	f, err := LockFile(pidFile)
	require.NoError(t, err)
	f.Close()
}

// TestEmptyJournalIsAbsent: a 0-byte journal (an older hbgbench killed
// before its first block) is taken by a new campaign, and --resume says
// what to do instead of "no header line".
func TestEmptyJournalIsAbsent(t *testing.T) {
	// Not parallel: a child another test forks holds a copy of a lock's
	// file between fork and exec, and a lock just let go would look held.
	path := filepath.Join(t.TempDir(), "j.jsonl")
	require.NoError(t, os.WriteFile(path, nil, 0o644))
	_, _, err := OpenJournal(path)
	assert.ErrorContains(t, err, "is empty: its campaign was stopped before it wrote a line")
	w, err := CreateJournal(path)
	require.NoError(t, err)
	require.NoError(t, w.Append(testHeader(t)))
	require.NoError(t, w.Close())
	_, err = ReadJournal(path)
	require.NoError(t, err)
	// A journal with lines is never taken.
	_, err = CreateJournal(path)
	assert.ErrorContains(t, err, "exists")
}

// TestJournalValidatedOnRead: a journal whose config or round lines break
// the flags' rules is refused, naming the line, instead of giving a
// silently wrong report (or a hang: bootstrap 2000000000).
func TestJournalValidatedOnRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	w, err := CreateJournal(good)
	require.NoError(t, err)
	require.NoError(t, w.Append(testHeader(t)))
	require.NoError(t, w.Close())
	header, err := os.ReadFile(good)
	require.NoError(t, err)
	tests := []struct {
		name, from, to, extra, want string
	}{
		{"negative cold", `"cold":2`, `"cold":-5`, "", ":1: header: config: --cold -5: want 0 or more passes"},
		{"unknown block stat", `"block_stat":"median"`, `"block_stat":"evil"`, "", `:1: header: config: --block-stat "evil"`},
		{"negative margin", `"margin":0.01`, `"margin":-1`, "", ":1: header: config: --margin -1"},
		{"huge bootstrap", `"bootstrap":0`, `"bootstrap":2000000000`, "", ":1: header: config: --bootstrap 2000000000: want 0 to 100000"},
		{"unknown round status", "", "", `{"type":"round","round":1,"attempt":1,"status":"weird"}` + "\n", `:2: round line: status "weird"`},
		{"round out of range", "", "", `{"type":"round","round":99,"attempt":1,"status":"ok"}` + "\n", ":2: round line: round 99"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := string(header)
			if tc.from != "" {
				require.Contains(t, data, tc.from)
				data = strings.Replace(data, tc.from, tc.to, 1)
			}
			p := filepath.Join(t.TempDir(), "j.jsonl")
			require.NoError(t, os.WriteFile(p, []byte(data+tc.extra+`{"type":"round","round":1,"attempt":1,"status":"ok"}`+"\n"), 0o644))
			_, err := ReadJournal(p)
			require.Error(t, err)
			assert.Contains(t, err.Error(), p+tc.want)
		})
	}
}

// TestDefaultBlockStat: the minimum from MinWarmForMin warm passes, the
// median below, so the community recipe's flags (--block 5 --keep-first)
// keep their median; the default block takes the minimum.
func TestDefaultBlockStat(t *testing.T) {
	t.Parallel()
	assert.Equal(t, BlockMin, DefaultConfig().BlockStat)
	assert.Equal(t, DefaultBlock, DefaultConfig().Block)
	assert.Equal(t, BlockMedian, DefaultBlockStat(5, 0), "--block 5 --keep-first")
	assert.Equal(t, BlockMedian, DefaultBlockStat(5, DefaultCold))
	assert.Equal(t, BlockMedian, DefaultBlockStat(7, DefaultCold))
	assert.Equal(t, BlockMin, DefaultBlockStat(8, DefaultCold))
	assert.Equal(t, BlockMin, DefaultBlockStat(10, DefaultCold))
	assert.Equal(t, BlockMin, DefaultBlockStat(6, 0))
}

// TestFormat3DropsTheHeadersLooks: a new header is format 3 and writes no
// "looks" (always empty in formats 1 and 2); a format-1 journal that has
// it is read as it is.
func TestFormat3DropsTheHeadersLooks(t *testing.T) {
	t.Parallel()
	h := testHeader(t)
	assert.Equal(t, 3, h.Format)
	b, err := json.Marshal(h)
	require.NoError(t, err)
	assert.NotContains(t, string(b), `"looks"`)
	old, err := os.ReadFile(filepath.Join("testdata", "campaign.jsonl"))
	require.NoError(t, err)
	require.Contains(t, string(old), `"format":1`)
	require.Contains(t, string(old), `"looks":[]`)
	j, err := ReadJournal(filepath.Join("testdata", "campaign.jsonl"))
	require.NoError(t, err)
	assert.Equal(t, 1, j.Header.Format)
	assert.Empty(t, j.Warnings)
	assert.NotEmpty(t, j.Rounds)
}

// TestJournalLongLine: a journal line past MaxLineBytes (a hostile or
// corrupted file) is a *LineTooLongError naming the file and line, found
// while reading line by line, not after the whole file is in memory.
func TestJournalLongLine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.jsonl")
	w, err := CreateJournal(path)
	require.NoError(t, err)
	require.NoError(t, w.Append(testHeader(t)))
	require.NoError(t, w.Close())
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.Write(bytes.Repeat([]byte("x"), MaxLineBytes+10))
	require.NoError(t, err)
	_, err = f.WriteString("\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	_, err = ReadJournal(path)
	var long *LineTooLongError
	require.ErrorAs(t, err, &long)
	assert.Equal(t, 2, long.Line)
	assert.EqualError(t, err, path+":2: line is longer than 64 MiB, the longest journal line hbgbench reads: this is not a journal hbgbench wrote")
}

// TestJournalBlockWithoutPasses: a counted block line (no error) whose
// passes are missing, null or empty is refused with the file and line:
// read as is, its round would be counted in "N of N rounds" while the
// verdict, which has no value of it, uses one round fewer.
func TestJournalBlockWithoutPasses(t *testing.T) {
	t.Parallel()
	for name, passes := range map[string]string{"null": `,"passes":null`, "empty": `,"passes":[]`, "missing": ``} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "j.jsonl")
			w, err := CreateJournal(path)
			require.NoError(t, err)
			require.NoError(t, w.Append(testHeader(t)))
			require.NoError(t, w.Close())
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			require.NoError(t, err)
			_, err = f.WriteString(`{"type":"block","round":1,"arm":"base","attempt":1,"try":1` + passes + "}\n")
			require.NoError(t, err)
			require.NoError(t, f.Close())
			_, err = ReadJournal(path)
			assert.EqualError(t, err, path+`:2: block line: base of round 1 has no error and no passes ("passes" missing, null or empty); hbgbench journals such a block as failed`)
		})
	}
	// A failed block has no passes, and is read.
	path := filepath.Join(t.TempDir(), "j.jsonl")
	w, err := CreateJournal(path)
	require.NoError(t, err)
	require.NoError(t, w.Append(testHeader(t)))
	require.NoError(t, w.Append(BlockRecord{Type: LineBlock, Round: 1, Arm: "base", Attempt: 1, Try: 1, Error: "block exited with status 3"}))
	require.NoError(t, w.Close())
	_, err = ReadJournal(path)
	assert.NoError(t, err)
}

// TestJournalLinesPastTheBuffer: the line-by-line reader reads a line
// longer than its 64 KB buffer whole, and refuses one past the limit at
// exactly the limit (readJournal with a small limit).
func TestJournalLinesPastTheBuffer(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.jsonl")
	w, err := CreateJournal(path)
	require.NoError(t, err)
	require.NoError(t, w.Append(testHeader(t)))
	b := BlockRecord{Type: LineBlock, Round: 1, Arm: "base", Attempt: 1, Try: 1}
	for i := range 3000 {
		b.Passes = append(b.Passes, metric.Pass{Pid: 1, Inv: uint64(i + 1), Index: i, Values: map[string]float64{"ControlPlane": float64(i)}})
	}
	require.NoError(t, w.Append(b))
	require.NoError(t, w.Append(b))
	require.NoError(t, w.Close())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := bytes.SplitAfter(data, []byte("\n"))
	require.Greater(t, len(lines[1]), 128<<10, "the block line spans several buffers")

	j, err := ReadJournal(path)
	require.NoError(t, err)
	require.Len(t, j.Blocks, 2)
	assert.Len(t, j.Blocks[1].Passes, 3000)
	assert.Equal(t, int64(len(data)), j.Good)

	longest := len(lines[1]) - 1 // without its LF
	_, err = readJournal(path, bytes.NewReader(data), longest)
	assert.NoError(t, err, "a line of exactly the limit is read")
	_, err = readJournal(path, bytes.NewReader(data), longest-1)
	var long *LineTooLongError
	require.ErrorAs(t, err, &long)
	assert.Equal(t, 2, long.Line)
}

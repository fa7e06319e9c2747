package outfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeText(text string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, text)
		return err
	}
}

func TestWriteRegularFileIsAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	require.NoError(t, Write(p, nil, writeText("new")))
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "new", string(got))

	// A failing writer leaves the old file whole, and no temp file.
	boom := errors.New("boom")
	err = Write(p, nil, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return boom
	})
	assert.ErrorIs(t, err, boom)
	got, _ = os.ReadFile(p)
	assert.Equal(t, "new", string(got))
	ents, _ := os.ReadDir(dir)
	assert.Len(t, ents, 1, "the temp file is removed")

	// The mode of a replaced file is kept.
	require.NoError(t, os.Chmod(p, 0o600))
	require.NoError(t, Write(p, nil, writeText("again")))
	st, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
}

func TestWriteDashIsStdout(t *testing.T) {
	var stdout bytes.Buffer
	dir := t.TempDir()
	wd, _ := os.Getwd()
	require.NoError(t, os.Chdir(dir))
	defer os.Chdir(wd)
	require.NoError(t, Write("-", &stdout, writeText("to stdout")))
	assert.Equal(t, "to stdout", stdout.String())
	_, err := os.Stat(filepath.Join(dir, "-"))
	assert.True(t, os.IsNotExist(err), "no file named -")
}

func TestWriteDirectoryIsAClearError(t *testing.T) {
	dir := t.TempDir()
	err := Write(dir, nil, writeText("x"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is a directory")
	ents, _ := os.ReadDir(dir)
	assert.Empty(t, ents)
}

func TestWriteSymlinkReplacesItsTarget(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.json")
	link := filepath.Join(dir, "link.json")
	require.NoError(t, os.WriteFile(real, []byte("old"), 0o644))
	require.NoError(t, os.Symlink(real, link))
	require.NoError(t, Write(link, nil, writeText("new")))
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	assert.True(t, fi.Mode()&os.ModeSymlink != 0, "the link stays a link")
	got, _ := os.ReadFile(real)
	assert.Equal(t, "new", string(got))
}

func TestWriteFIFOInPlace(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	p := filepath.Join(t.TempDir(), "pipe")
	require.NoError(t, syscall.Mkfifo(p, 0o600))
	got := make(chan string)
	go func() {
		f, err := os.Open(p)
		if err != nil {
			got <- "open: " + err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	require.NoError(t, Write(p, nil, writeText("through the pipe")))
	assert.Equal(t, "through the pipe", <-got)
	fi, err := os.Lstat(p)
	require.NoError(t, err)
	assert.True(t, fi.Mode()&os.ModeNamedPipe != 0, "the FIFO is still a FIFO")
}

func TestWriteDeviceInPlaceReportsErrors(t *testing.T) {
	// Only /dev/full: a write to it always fails, and no other device node
	// is put at risk by a bug here.
	if fi, err := os.Stat("/dev/full"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Skip("no /dev/full device")
	}
	err := Write("/dev/full", nil, writeText("x"))
	require.Error(t, err, "a write to /dev/full fails and says so")
	assert.Contains(t, err.Error(), "/dev/full")
	fi, err := os.Lstat("/dev/full")
	require.NoError(t, err)
	assert.True(t, fi.Mode()&os.ModeCharDevice != 0, "/dev/full is still a device")

}

func TestCreateCommitAbort(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log.txt")
	f, err := Create(p, nil)
	require.NoError(t, err)
	io.WriteString(f, "half")
	f.Abort()
	_, err = os.Stat(p)
	assert.True(t, os.IsNotExist(err), "an aborted new file does not appear")
	f.Abort() // twice is fine

	f, err = Create(p, nil)
	require.NoError(t, err)
	io.WriteString(f, "whole")
	require.NoError(t, f.Commit())
	f.Abort() // after Commit: nothing
	got, _ := os.ReadFile(p)
	assert.Equal(t, "whole", string(got))
	assert.Error(t, f.Commit(), "a second Commit is an error")
	_, err = Create("", nil)
	assert.Error(t, err)
}

// TestLargeWriteHandsChunksToWriteback: a file of several write-back chunks
// written in odd-sized pieces is handed to the kernel chunk by chunk as it
// is written, and what Commit renames into place is every byte, in order.
func TestLargeWriteHandsChunksToWriteback(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "big.json")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o600))
	f, err := Create(path, nil)
	require.NoError(t, err)
	defer f.Abort()
	want := make([]byte, 0, 3*writebackChunk+12345)
	piece := make([]byte, 65_537)
	for len(want) < cap(want) {
		for i := range piece {
			piece[i] = byte(len(want) + i)
		}
		n := min(len(piece), cap(want)-len(want))
		_, err := f.Write(piece[:n])
		require.NoError(t, err)
		want = append(want, piece[:n]...)
	}
	assert.Equal(t, int64(len(want)), f.written)
	assert.GreaterOrEqual(t, f.flushed, int64(3*writebackChunk), "every whole chunk handed to write-back")
	assert.Less(t, f.written-f.flushed, int64(writebackChunk))
	require.NoError(t, f.Commit())
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(want, got), "the committed file is what was written")
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "the replaced file's mode is kept")
}

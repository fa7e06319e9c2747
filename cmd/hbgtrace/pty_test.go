package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hbgkit/hbgkit/internal/ptytest"
	"github.com/hbgkit/hbgkit/trace"
)

// TestProgressOnlyOnATerminal: startProgress reports on a real terminal (a
// pty) and not on a regular file or a pipe.
func TestProgressOnlyOnATerminal(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "big.log")
	require.NoError(t, os.WriteFile(p, make([]byte, 1<<20), 0o644))
	srcs := []trace.Source{trace.FileSource(p)}

	_, tty := ptytest.Open(t)
	pr := startProgress(tty, srcs)
	require.NotNil(t, pr, "a terminal gets progress")
	assert.Equal(t, int64(1<<20), pr.total)
	pr.finish()

	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	require.NoError(t, err)
	defer f.Close()
	assert.Nil(t, startProgress(f, srcs), "a regular file gets none")

	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	assert.Nil(t, startProgress(w, srcs), "a pipe gets none")
}

// TestRoundsShowsProgressOnATerminal: `hbgtrace rounds -` with stderr on
// a terminal, reading a log that takes longer than progressAfter to
// arrive, shows how many MB it has read and clears the line at the end.
// (It takes progressAfter and a little more.)
func TestRoundsShowsProgressOnATerminal(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("takes progressAfter (2 s)")
	}
	master, tty := ptytest.Open(t)
	var seen bytes.Buffer
	read := make(chan struct{})
	go func() {
		defer close(read)
		_, _ = io.Copy(&seen, master) // ends when the pty is closed
	}()
	r, w := io.Pipe()
	go func() {
		// The E1 fixture, line by line, then the rest after the delay.
		log, _ := os.ReadFile(filepath.Join("..", "..", "fixtures", "hbg-e1.log"))
		half := bytes.IndexByte(log[len(log)/2:], '\n') + len(log)/2 + 1
		_, _ = w.Write(log[:half])
		time.Sleep(progressAfter + 3*progressEvery/2)
		_, _ = w.Write(log[half:])
		w.Close()
	}()
	var out strings.Builder
	code := run([]string{"rounds", "-"}, r, &out, tty)
	require.Equal(t, 0, code)
	tty.Close()
	master.Close()
	<-read
	assert.Contains(t, out.String(), "round")
	assert.Contains(t, seen.String(), "\rhbgtrace: read 0 MB", "stdin has no total: MB alone")
	assert.True(t, strings.HasSuffix(seen.String(), "\r\x1b[K"), "the line is cleared: %q", seen.String())
}

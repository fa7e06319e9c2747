//go:build cgo

package runtimeharness

import (
	"errors"
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestModelLogClosedPipe checks that a log reader that went away is an
// error the caller can recognise (EPIPE), so `hbgbench harness | head`
// can stop quietly.
func TestModelLogClosedPipe(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	require.NoError(t, r.Close())
	defer w.Close()
	cfg := DefaultConfig()
	_, err = RunModel(cfg, ModelOptions{Rounds: 1, Log: w})
	require.Error(t, err)
	require.True(t, errors.Is(err, syscall.EPIPE), "%v", err)
	require.Contains(t, err.Error(), "writing the log")
}

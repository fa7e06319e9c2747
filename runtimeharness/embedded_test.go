//go:build cgo

package runtimeharness

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hbgkit/hbgkit/internal/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGoldenOneBind runs one bind of each workload in a fresh child
// process (so the log has its own anchor and inv=1) and compares the text,
// with times, counters and ids masked, to testdata/golden/<name>.log. The
// unmasked text must pass the grammar checker line by line.
func TestGoldenOneBind(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec string
	}{
		{"dsv4-pair.e1", "embedded:"},
		{"qwen3-14b-decode.e1", "embedded:workload=qwen3-14b-decode"},
		{"dsv4-blocks7.e1", "embedded:workload=dsv4-blocks7,recorders=prewarm=4,mirror=retained"},
		{"dsv4-pair.e2", "embedded:epoch=e2"},
		{"dsv4-pair.e3", "embedded:epoch=e3"},
		{"dsv4-pair.pr1870", "embedded:epoch=pr1870"},
		{"dsv4-pair.e3.eager_pinned", "embedded:epoch=e3,graph_pod=eager_pinned"},
		{"dsv4-pair.pr1870.deferred_pageable", "embedded:epoch=pr1870,graph_pod=deferred_pageable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := ParseArmSpec(tc.spec)
			require.NoError(t, err)
			spec := blockIn(t, 1)
			res, err := testRunner(cfg).Run(context.Background(), spec)
			require.NoError(t, err)
			require.NotNil(t, res.Model)
			assert.Equal(t, 1, res.Model.Binds)
			assert.Equal(t, 0, res.ExitCode)

			b, err := os.ReadFile(spec.Log)
			require.NoError(t, err)
			text := string(b)
			w := wantLog{pid: res.Model.Pid, tid: res.Model.BindTid, anchor: true, firstInv: 1, binds: 1}
			switch cfg.Epoch {
			case EpochE1, EpochE2:
				pl := checkLog(t, text, w)
				assert.Equal(t, res.Stamp, pl.stamp)
			case EpochE3:
				w.anchor = false
				checkSpanLog(t, text, cfg.Epoch, w)
			default:
				checkSpanLog(t, text, cfg.Epoch, w)
			}
			assert.NotEqual(t, os.Getpid(), res.Model.Pid, "the model ran in a child")

			golden.Check(t, filepath.Join("testdata", "golden", tc.name+".log"), maskLog(text))
		})
	}
}

// TestEmbeddedRunnerRecordsOnlyWhenAsked: a campaign's runner (Records
// unset) leaves the block's output directory empty.
func TestEmbeddedRunnerRecordsOnlyWhenAsked(t *testing.T) {
	spec := blockIn(t, 2)
	r := testRunner(DefaultConfig())
	r.Records = false
	_, err := r.Run(context.Background(), spec)
	require.NoError(t, err)
	ents, err := os.ReadDir(spec.Out)
	require.NoError(t, err)
	assert.Empty(t, ents)
}

func TestEmbeddedRunnerWritesRecordsIntoOut(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Workload = WorkloadQwen3Decode
	cfg.Epoch = EpochE2
	spec := blockIn(t, 3)
	res, err := testRunner(cfg).Run(context.Background(), spec)
	require.NoError(t, err)
	b, err := os.ReadFile(spec.Log)
	require.NoError(t, err)
	pl := checkLog(t, string(b), wantLog{pid: res.Model.Pid, tid: res.Model.BindTid, anchor: true, firstInv: 1, binds: 3})
	records := loadRecords(t, filepath.Join(spec.Out, RecordsFile))
	require.Len(t, records, 3)
	for i, rl := range records {
		assert.Equal(t, res.Model.Pid, rl.Pid)
		assert.Equal(t, uint64(i+1), rl.Inv, "records join chip.run.bind on (pid, inv)")
		bind, _ := find(pl.passes[i].spans, "chip.run.bind")
		for _, r := range rl.Records {
			assert.GreaterOrEqual(t, r.StartNS, bind.start)
			assert.LessOrEqual(t, r.EndNS, bind.start+bind.dur)
		}
	}
	assert.Equal(t, 8, res.Model.ThreadsCreated)
	assert.Zero(t, res.Model.ThreadsLeft)
}

// TestEmbeddedRunnerTimeout: a block that outlives its timeout has its
// process group killed (SIGKILL, TimedOut), and what the child wrote
// before the kill (its stamp, the first record) is in the block's log. On
// a loaded 2-core box the re-executed child may not have written its
// stamp yet when a short timeout fires; then the kill came before any
// output and says nothing about streaming, so the block is rerun with the
// timeout doubled (up to 8 s, still far below the 20 s the block would
// take). Every attempt must be killed by its timeout.
func TestEmbeddedRunnerTimeout(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Workload = WorkloadQwen3Decode
	cfg.DelayUS = 10_000_000 // ten seconds of host_orch per bind
	streamed := false
	for timeout := 500 * time.Millisecond; !streamed && timeout <= 8*time.Second; timeout *= 2 {
		spec := blockIn(t, 2)
		spec.Timeout = timeout
		res, err := testRunner(cfg).Run(context.Background(), spec)
		require.Error(t, err)
		assert.True(t, res.TimedOut, "timeout %v", timeout)
		assert.Equal(t, syscall.SIGKILL, res.Signal)
		assert.Nil(t, res.Model)
		b, err := os.ReadFile(spec.Log)
		require.NoError(t, err)
		streamed = strings.HasPrefix(string(b), "[stamp] hbgkit-harness ")
		if !streamed {
			assert.Empty(t, b, "a log cut inside the stamp line")
			t.Logf("timeout %v fired before the child wrote its stamp; retrying", timeout)
		}
	}
	assert.True(t, streamed, "the stamp streamed back before the kill")
}

func TestEmbeddedRunnerRefusesBeforeRunning(t *testing.T) {
	t.Setenv(AscendHomeEnv, "")
	cfg := DefaultConfig()
	cfg.Device.Kind = "ascend"
	spec := blockIn(t, 1)
	_, err := testRunner(cfg).Run(context.Background(), spec)
	var ce *ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Contains(t, err.Error(), AscendHomeEnv)
	assert.NoFileExists(t, spec.Log)

	_, err = testRunner(DefaultConfig()).Run(context.Background(), BlockSpec{Rounds: 1})
	assert.ErrorContains(t, err, "no log file")
}

func TestEmbeddedRunnerChildFailure(t *testing.T) {
	spec := blockIn(t, 1)
	r := testRunner(DefaultConfig())
	r.Args = []string{ChildCommand, "--no-such-flag"}
	res, err := r.Run(context.Background(), spec)
	require.Error(t, err)
	assert.Equal(t, 2, res.ExitCode)
	assert.Contains(t, err.Error(), "exited with status 2")
	assert.Contains(t, err.Error(), "no-such-flag")
}

func TestChildMainArguments(t *testing.T) {
	var out, errb bytes.Buffer
	assert.Equal(t, 2, ChildMain([]string{"--spec", "embedded:mirror=often"}, &out, &errb))
	assert.Contains(t, errb.String(), "mirror=often: want one of per_bind, retained")
	errb.Reset()
	t.Setenv(AscendHomeEnv, "")
	assert.Equal(t, 2, ChildMain([]string{"--spec", "embedded:device=ascend"}, &out, &errb))
	assert.Contains(t, errb.String(), "ASCEND_HOME_PATH is not set")
	assert.Zero(t, out.Len())
}

package runtimeharness

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStartLoadPinsAndStops: the busy processes of --load run on the
// CPUs given, consume CPU, and are gone after Stop.
func TestStartLoadPinsAndStops(t *testing.T) {
	allowed, err := AllowedCPUs()
	require.NoError(t, err)
	first := strings.FieldsFunc(allowed, func(r rune) bool { return r == ',' || r == '-' })[0]
	l, err := StartLoad(2, "", first)
	require.NoError(t, err)
	pids := l.Pids()
	require.Len(t, pids, 2)
	for _, p := range pids {
		st, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/status")
		require.NoError(t, err)
		assert.Contains(t, string(st), "Cpus_allowed_list:\t"+first+"\n", "pid %d", p)
	}
	time.Sleep(200 * time.Millisecond)
	cpu := l.Stop()
	assert.Positive(t, cpu, "the load consumed no CPU")
	for _, p := range pids {
		_, err := os.Stat("/proc/" + strconv.Itoa(p))
		assert.True(t, os.IsNotExist(err), "pid %d outlived Stop", p)
	}
	assert.Zero(t, l.Stop(), "a second Stop does nothing")
}

// A block's stamp names the load beside it, and names none when the
// campaign runs none, as stamps did before loads.
func TestLoadStamp(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n       int
		command string
		named   bool
		want    string
	}{
		{0, "", false, ""},
		{0, "", true, "load=0"},
		{2, "", false, "load=2"},
		{2, "", true, "load=2"},
		{0, "stress-ng --cpu 2\nx", false, `load-cmd='stress-ng --cpu 2 x'`},
	} {
		assert.Equal(t, tc.want, LoadStamp(tc.n, tc.command, tc.named), "%d %q %v", tc.n, tc.command, tc.named)
	}
	h := HostFacts{NProc: 2, THP: "madvise", Glibc: "2.36", CPUs: "1", Load: "load=2"}
	assert.Contains(t, Stamp(DefaultConfig(), 5, h), " nproc=2 cpus=1 load=2 thp=madvise ")
	h.Load = ""
	assert.NotContains(t, Stamp(DefaultConfig(), 5, h), " load=")
	r := &CommandRunner{Template: "run {rounds} {out}"}
	assert.Contains(t, r.Stamp(BlockSpec{Rounds: 3, Out: "/o", Load: "load=1"}), "load=1 run 3 /o")
}

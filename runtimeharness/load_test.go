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

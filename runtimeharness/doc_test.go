package runtimeharness

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDocsHarness keeps docs/harness.md honest: its sample bind passes the
// grammar checker, every setting key has a row in its switch table, and it
// states the model constants the code uses.
func TestDocsHarness(t *testing.T) {
	b, err := os.ReadFile("../docs/harness.md")
	require.NoError(t, err)
	doc := string(b)

	_, rest, ok := strings.Cut(doc, "## The log text")
	require.True(t, ok)
	_, rest, ok = strings.Cut(rest, "```\n")
	require.True(t, ok)
	sample, _, ok := strings.Cut(rest, "```\n")
	require.True(t, ok)
	pl := checkLog(t, "[stamp] docs\n"+sample, wantLog{firstInv: 2, binds: 1})
	orch, _ := find(pl.passes[0].phases, "host_orch")
	assert.Equal(t, "1131", orch.kv["tasks"])

	_, table, ok := strings.Cut(doc, "## Switches")
	require.True(t, ok)
	table, _, _ = strings.Cut(table, "## Counters")
	for _, k := range Keys() {
		assert.Contains(t, table, "| `--"+strings.ReplaceAll(k, "_", "-")+"` |", "switch %s", k)
	}
	for _, c := range []string{"82,460,928", "11,515,648", "2,242,048", "5,033", "4,969", "24 buffers × 512"} {
		assert.Contains(t, doc, c)
	}
	d := DefaultDevice()
	assert.Equal(t, int64(5000), d.CallNS)
	assert.Equal(t, int64(3000), d.PinNS)
	assert.Equal(t, int64(20e9), d.DMABytesPerSec)
	assert.Equal(t, int64(2<<20), d.BounceBytes)
	assert.Contains(t, doc, "5 µs, 3 µs, 20 GB/s, 2 MiB")
}

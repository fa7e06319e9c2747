package metric

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadBlockLogE1 reads the two-rank E1 fixture: its ControlPlane per
// pass is the column `hbgtrace rounds` prints for it (README), the first
// pass of each pid is cold, and the ranks are told apart.
func TestReadBlockLogE1(t *testing.T) {
	t.Parallel()
	bp, err := ReadBlockLog([]string{fixture("hbg-e1.log")})
	require.NoError(t, err)
	require.Len(t, bp.Passes, 8)
	assert.Contains(t, bp.Stamp, "6ebaf77 env SIMPLER_HBG_BIND_BREAKDOWN_ENABLE=1")
	var cps, cold []float64
	ranks := map[int]int{}
	for _, p := range bp.Passes {
		cp, ok := p.Values["ControlPlane"]
		require.True(t, ok)
		cps = append(cps, math.Round(cp/100)/10) // µs, one decimal
		if p.Cold {
			cold = append(cold, math.Round(cp/100)/10)
		}
		ranks[p.Rank]++
		_, host := p.Values[MetricHost]
		assert.True(t, host, "pass pid=%d inv=%d has no chip.run", p.Pid, p.Inv)
		// E1: ControlPlane is the sum of the control-plane segments.
		sum := p.Values["phase.host_orch"] + p.Values["phase.graph_upload"] + p.Values["phase.arena_h2d"]
		assert.InDelta(t, sum, cp, 0.5)
	}
	sort.Float64s(cps)
	assert.Equal(t, []float64{3937.2, 4008.9, 4017.9, 4088.9, 4102.0, 4285.8, 15323.6, 15735.1}, cps)
	sort.Float64s(cold)
	assert.Equal(t, []float64{15323.6, 15735.1}, cold)
	assert.Equal(t, map[int]int{0: 4, 1: 4}, ranks)
}

func TestReadBlockLogOtherGenerations(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"hbg-e2.log", "hbg-e3-spool.log", "hbg-pr1870.log"} {
		t.Run(name, func(t *testing.T) {
			bp, err := ReadBlockLog([]string{fixture(name)})
			require.NoError(t, err)
			require.NotEmpty(t, bp.Passes)
			n := 0
			for _, p := range bp.Passes {
				if _, ok := p.Values["ControlPlane"]; ok {
					n++
				}
			}
			assert.Positive(t, n, "no pass recorded ControlPlane")
			assert.Equal(t, "ControlPlane", ChoosePrimary(bp.Passes).String())
		})
	}
}

func TestReadBlockLogWithoutHBGData(t *testing.T) {
	t.Parallel()
	bp, err := ReadBlockLog([]string{fixture("conformance/001-tpot-two-callables/input.log")})
	require.NoError(t, err)
	require.NotEmpty(t, bp.Passes)
	assert.Equal(t, PooledKey(MetricHost), ChoosePrimary(bp.Passes))
}

func TestReadBlockLogMissingFile(t *testing.T) {
	t.Parallel()
	_, err := ReadBlockLog([]string{filepath.Join(t.TempDir(), "none.log")})
	assert.Error(t, err)
	empty := filepath.Join(t.TempDir(), "empty.log")
	require.NoError(t, os.WriteFile(empty, []byte("hello\n"), 0o644))
	bp, err := ReadBlockLog([]string{empty})
	require.NoError(t, err)
	assert.Empty(t, bp.Passes)
}

func TestLookupMetric(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"ControlPlane", "ControlPlane"},
		{"controlplane", "ControlPlane"},
		{"gate", "Gate"},
		{"host_orch", "phase.host_orch"},
		{"phase.args", "phase.args"},
		{"args", "Args"},
		{"host", "Host"},
		{"HostOrch@rank1", "HostOrch@rank1"},
	}
	for _, tc := range tests {
		m, ok := LookupMetric(tc.in)
		require.True(t, ok, tc.in)
		assert.Equal(t, tc.want, m.Name, tc.in)
	}
	_, ok := LookupMetric("latency")
	assert.False(t, ok)
}

// TestReadBlockLogEvidence: a block's passes carry the evidence metrics
// their log writes, and only those.
func TestReadBlockLogEvidence(t *testing.T) {
	t.Parallel()
	e2, err := ReadBlockLog([]string{fixture("hbg-e2.log")})
	require.NoError(t, err)
	require.NotEmpty(t, e2.Passes)
	v := e2.Passes[0].Values
	for name, want := range map[string]float64{
		"minflt": 28 + 22 + 36 + 7 + 35 + 28 + 22 + 25 + 15 + 40, "work.host_orch.tasks": 1131,
		"work.graph_upload.submissions": 20, "cpu.HostOrch": 2923965, "orch.record_node": 2571636,
		"orch.record_node.per_op": 2571636.0 / 1108,
	} {
		assert.InDelta(t, want, v[name], 1e-9, name)
	}
	for _, name := range []string{"cpu.ControlPlane", "cpu_ns", "rec_cpu_ns", "nvcsw", "nivcsw", "tminflt"} {
		assert.Contains(t, v, name)
	}
	e1, err := ReadBlockLog([]string{fixture("hbg-e1.log")})
	require.NoError(t, err)
	for _, p := range e1.Passes {
		for _, name := range []string{"minflt", "cpu_ns", "cpu.ControlPlane", "cpu.HostOrch"} {
			assert.NotContains(t, p.Values, name, "E1 writes no counters: missing, not 0")
		}
	}
}

func fixture(name string) string { return filepath.Join("..", "..", "fixtures", name) }

// TestKeyText: a key writes "Name" or "Name@rankN" and reads back to the
// same key; a suffix that is no rank stays part of the name.
func TestKeyText(t *testing.T) {
	tests := []struct {
		text string
		key  Key
		ok   bool
	}{
		{"ControlPlane", PooledKey("ControlPlane"), true},
		{"HostOrch@rank1", RankKey("HostOrch", 1), true},
		{"phase.args@rank0", RankKey("phase.args", 0), true},
		{"", Key{}, true},
		{"HostOrch@foo", PooledKey("HostOrch@foo"), false},
		{"HostOrch@rank01", PooledKey("HostOrch@rank01"), false},
	}
	for _, tc := range tests {
		t.Run(tc.text, func(t *testing.T) {
			k, ok := ParseKey(tc.text)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.key, k)
			assert.Equal(t, tc.text, k.String())
			b, err := json.Marshal(k)
			require.NoError(t, err)
			var back Key
			require.NoError(t, json.Unmarshal(b, &back))
			assert.Equal(t, k, back)
		})
	}
	assert.True(t, Key{}.IsZero())
	p := Pass{Rank: 1, Values: map[string]float64{"HostOrch": 5}}
	_, ok := p.Value(RankKey("HostOrch", 0))
	assert.False(t, ok, "another rank's key")
	v, ok := p.Value(RankKey("HostOrch", 1))
	assert.True(t, ok)
	assert.Equal(t, 5.0, v)
}

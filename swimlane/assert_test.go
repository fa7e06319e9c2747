package swimlane

import (
	"errors"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseAssertion(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"no lane-start in gap(submit)",
		"graph_upload inside host_orch",
		"lanes(role=worker) >= 4",
		"lanes( role = submit )==1",
		"every record_node on a worker lane",
		"every build_definition on an worker lane",
	} {
		a, err := ParseAssertion(s)
		require.NoError(t, err, s)
		assert.Equal(t, s, a.Text)
	}
	a, err := ParseAssertion("lanes(role=worker) >= 4")
	require.NoError(t, err)
	assert.Equal(t, assertLanes, a.kind)
	assert.Equal(t, ">=", a.op)
	assert.Equal(t, 4, a.count)
}

// TestParseAssertionErrors: every mistake names its column.
func TestParseAssertionErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"", "column 1: empty assertion"},
		{"no lane-start in gap(recorder)", `column 22: want "submit", found "recorder"`},
		{"no lane-start in gap(submit", `column 28: want ")", found the end`},
		{"graph_upload inside", "column 20: want a span name"},
		{"graph_upload outside host_orch", `column 14: want "inside", found "outside"`},
		{"lanes(role=boss) >= 4", "column 12: want a role: submit, worker,"},
		{"lanes(role=worker) ~ 4", `column 20: unexpected character '~'`},
		{"lanes(role=worker) >= four", "column 23: want a count"},
		{"lanes(role=worker) >= 99999999999", "column 23: want a count"},
		{"every record_node on the worker lane", `column 22: want "a" or "an"`},
		{"every record_node on a worker lane now", `column 36: unexpected "now" after the assertion`},
		{"Graph_Upload inside host_orch", "column 1: want a span name or one of no, lanes, every"},
	}
	for _, tc := range tests {
		_, err := ParseAssertion(tc.in)
		require.Error(t, err, tc.in)
		var ae *AssertError
		require.True(t, errors.As(err, &ae))
		assert.Contains(t, err.Error(), tc.want, tc.in)
	}
	_, err := ParseAssertion(strings.Repeat("a", 2000))
	assert.ErrorContains(t, err, "longer than 1000 bytes")
}

// FuzzParseAssertion: any text parses or fails with a column inside it
// (or just past its end); never a panic.
func FuzzParseAssertion(f *testing.F) {
	for _, s := range []string{"no lane-start in gap(submit)", "graph_upload inside host_orch",
		"lanes(role=worker) >= 4", "every record_node on a worker lane", "lanes(role=", "!", "every ", "((", "a inside"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseAssertion(s)
		if err != nil {
			var ae *AssertError
			if !errors.As(err, &ae) {
				t.Fatalf("%q: error %v is not an AssertError", s, err)
			}
			if len(s) <= maxAssertLen && (ae.Col < 1 || ae.Col > len(s)+1) {
				t.Fatalf("%q: column %d outside 1..%d", s, ae.Col, len(s)+1)
			}
			if !utf8.ValidString(s) {
				return
			}
			return
		}
		if a.Text != s {
			t.Fatalf("%q: text %q", s, a.Text)
		}
	})
}

func TestUnionAndOverlap(t *testing.T) {
	t.Parallel()
	assert.Equal(t, int64(0), busyLen(nil))
	assert.Equal(t, int64(25), busyLen([][2]int64{{10, 20}, {15, 30}, {40, 45}, {41, 42}}))
	assert.Equal(t, 0, maxOverlap(nil))
	assert.Equal(t, 1, maxOverlap([][2]int64{{0, 10}, {10, 20}}), "touching windows do not overlap")
	assert.Equal(t, 3, maxOverlap([][2]int64{{0, 10}, {5, 20}, {8, 9}, {30, 40}}))
}

// TestPairedDiff checks the t interval against a hand computation: the
// differences 1, 2, 3 (ns) have mean 2, sd 1, se 1/sqrt(3), t(2) 4.303.
func TestPairedDiff(t *testing.T) {
	t.Parallel()
	d := pairedDiff([]int64{10, 20, 30, 99}, []int64{11, 22, 33})
	assert.Equal(t, 3, d.Pairs)
	assert.InDelta(t, 2.0, d.Mean, 1e-9)
	h := 4.303 / math.Sqrt(3)
	assert.True(t, d.HasCI)
	assert.InDelta(t, 2-h, d.Lo, 1e-9)
	assert.InDelta(t, 2+h, d.Hi, 1e-9)
	one := pairedDiff([]int64{5}, []int64{7})
	assert.False(t, one.HasCI)
	assert.InDelta(t, 2.0, one.Mean, 1e-9)
	assert.Equal(t, 0, pairedDiff(nil, []int64{1}).Pairs)
	assert.InDelta(t, 1.96, tQuantile975(1000), 1e-9)
	assert.InDelta(t, 2.042, tQuantile975(30), 1e-9)
	assert.True(t, math.IsNaN(tQuantile975(0)))
}

func TestRoleOf(t *testing.T) {
	t.Parallel()
	for name, role := range map[string]string{
		"graph submit main": RoleSubmit, "graph record worker": RoleWorker, "orchestrator / facade": RoleOrchestrator,
		"scheduler": RoleScheduler, "worker 3": RoleNodeWorker, "worker": RoleNodeWorker, "chip child": RoleChip,
		"ext vllm": RoleExternal, "pipeline slot 1 (tid 9)": RoleSlot, "tid 12": RoleOther,
	} {
		assert.Equal(t, role, roleOf(name), name)
	}
}

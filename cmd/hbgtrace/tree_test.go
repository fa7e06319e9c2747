package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTreeText(t *testing.T) {
	t.Parallel()
	dw := "chip.run.runner_run.device_wall"
	tests := []struct {
		name string
		log  string
		want string
	}{
		{
			name: "orch and sched as Effective plus the concurrent line",
			log: viewsSpanLine(1, 1, "9f3a", 0, "chip.run", 0, 2226900, "") +
				viewsSpanLine(1, 1, "9f3a", 2, dw, 0, 1551600, "clk=dev") +
				viewsSpanLine(1, 1, "9f3a", 3, dw+".orch", 100, 827300, "clk=dev") +
				viewsSpanLine(1, 1, "9f3a", 3, dw+".sched", 50, 1430100, "clk=dev") +
				viewsSpanLine(1, 1, "9f3a", 1, "chip.run.runner_run", 10, 1651600, ""),
			want: "callable hid=9f3a (prefill) \u2014 1 invocation\n" +
				"run                                 2226.9 us\n" +
				"  runner_run                          1651.6 us\n" +
				"    device_wall            [dev]        1551.6 us\n" +
				"      Effective              [dev]        1430.1 us\n" +
				"        orch 827.3  \u2225  sched 1430.1   (concurrent)\n\n",
		},
		{
			name: "even count: mean of the two middle values",
			log: viewsSpanLine(1, 1, "aaa1", 0, "chip.run", 0, 1000, "") +
				viewsSpanLine(1, 2, "aaa1", 0, "chip.run", 0, 1300, ""),
			want: "callable hid=aaa1 (decode) \u2014 median of 2 invocation(s)\n" +
				"run                                    1.1 us\n\n",
		},
		{
			name: "empty log",
			log:  "",
			want: "No [STRACE] markers found.\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := viewsRun(t, tc.log, "tree", "-")
			require.Equal(t, 0, code, errs)
			assert.Empty(t, errs)
			assert.Equal(t, tc.want, out)
		})
	}
}

// treeNodeDecoded is a node of the tree json schema.
type treeNodeDecoded struct {
	Name       string             `json:"name"`
	Leaf       string             `json:"leaf"`
	Device     bool               `json:"device"`
	MedianUs   *float64           `json:"median_us"`
	N          int                `json:"n"`
	Children   []*treeNodeDecoded `json:"children"`
	Concurrent *struct {
		Orch  *treeNodeDecoded `json:"orch"`
		Sched *treeNodeDecoded `json:"sched"`
	} `json:"concurrent"`
}

// checkTreeNode checks a decoded node's invariants and returns how many
// Effective nodes it holds.
func checkTreeNode(t *testing.T, n *treeNodeDecoded, invs int) int {
	t.Helper()
	require.NotNil(t, n.MedianUs, n.Name)
	require.NotNil(t, n.Children, n.Name)
	assert.Positive(t, n.N, n.Name)
	assert.LessOrEqual(t, n.N, invs, n.Name)
	assert.True(t, strings.HasSuffix(n.Name, "."+n.Leaf) || n.Name == n.Leaf, n.Name)
	effective := 0
	if n.Concurrent != nil {
		effective++
		assert.Equal(t, "Effective", n.Leaf)
		assert.True(t, n.Device)
		assert.Empty(t, n.Children)
		parent := strings.TrimSuffix(n.Name, ".Effective")
		assert.Equal(t, parent+".orch", n.Concurrent.Orch.Name)
		assert.Equal(t, parent+".sched", n.Concurrent.Sched.Name)
		// The extent of the two together is at least the longer one.
		assert.GreaterOrEqual(t, *n.MedianUs, *n.Concurrent.Sched.MedianUs*0.999)
	}
	for _, c := range n.Children {
		assert.True(t, strings.HasPrefix(c.Name, n.Name+"."), "%s under %s", c.Name, n.Name)
		effective += checkTreeNode(t, c, invs)
	}
	return effective
}

func TestTreeJSON(t *testing.T) {
	t.Parallel()
	code, out, _ := viewsRun(t, "", "tree", "--format", "json", viewsTreeTMR)
	require.Equal(t, 0, code)
	var doc struct {
		Callables []struct {
			Hid         string             `json:"hid"`
			Label       string             `json:"label"`
			Invocations int                `json:"invocations"`
			Roots       []*treeNodeDecoded `json:"roots"`
		} `json:"callables"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.Len(t, doc.Callables, 2)
	assert.Equal(t, "decode", doc.Callables[0].Label)
	assert.Equal(t, "prefill", doc.Callables[1].Label)
	for _, c := range doc.Callables {
		require.Len(t, c.Roots, 1)
		assert.Equal(t, "chip.run", c.Roots[0].Name)
		assert.Equal(t, 1, checkTreeNode(t, c.Roots[0], c.Invocations), c.Hid)
	}

	code, out, _ = viewsRun(t, "", "tree", "--format", "json", "-")
	require.Equal(t, 0, code)
	assert.JSONEq(t, `{"callables":[]}`, out)
}

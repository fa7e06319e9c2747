package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTpotText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		log  string
		want string
	}{
		{
			// The reference truncates the mean: int(1950.5) = 1950 -> 1.950
			// -> "1.9", not "2.0".
			name: "mean truncated to integer ns before formatting",
			log: viewsSpanLine(1, 1, "9f3a", 0, "chip.run", 0, 5000, "") +
				viewsSpanLine(1, 1, "9f3a", 1, "chip.run.bind", 10, 1950, "") +
				viewsSpanLine(1, 2, "9f3a", 0, "chip.run", 9000, 5001, "") +
				viewsSpanLine(1, 2, "9f3a", 1, "chip.run.bind", 9010, 1951, ""),
			want: "callable hid=9f3a \u2014 2 invocation(s)\n" +
				"  chip.run: mean=5.0us min=5.0us max=5.0us\n" +
				"      chip.run.bind: mean=1.9us (n=2)\n\n",
		},
		{
			name: "no root: the chip.run line is left out; indentation by dots",
			log: viewsSpanLine(1, 1, "1c2", 1, "chip.run.runner_run.device_wall.orch", 0, 827600, "clk=dev") +
				viewsSpanLine(1, 1, "1c2", 1, "x", 0, 1000, ""),
			want: "callable hid=1c2 \u2014 1 invocation(s)\n" +
				"          chip.run.runner_run.device_wall.orch: mean=827.6us (n=1)\n" +
				"  x: mean=1.0us (n=1)\n\n",
		},
		{
			name: "empty log",
			log:  "",
			want: "No [STRACE] markers found.\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := viewsRun(t, tc.log, "tpot", "-")
			require.Equal(t, 0, code, errs)
			assert.Empty(t, errs)
			assert.Equal(t, tc.want, out)
		})
	}
}

func TestTpotJSON(t *testing.T) {
	t.Parallel()
	code, out, _ := viewsRun(t, "", "tpot", "--format", "json", viewsTwoCallables)
	require.Equal(t, 0, code)
	type stat struct {
		Name   string   `json:"name"`
		N      int      `json:"n"`
		MeanUs *float64 `json:"mean_us"`
		MinUs  *float64 `json:"min_us"`
		MaxUs  *float64 `json:"max_us"`
	}
	var doc struct {
		Callables []struct {
			Hid         string `json:"hid"`
			Invocations int    `json:"invocations"`
			Root        *stat  `json:"root"`
			Stages      []stat `json:"stages"`
		} `json:"callables"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.Len(t, doc.Callables, 2)
	assert.Equal(t, []int{3, 1}, []int{doc.Callables[0].Invocations, doc.Callables[1].Invocations})
	for _, c := range doc.Callables {
		require.NotNil(t, c.Root)
		assert.Equal(t, "chip.run", c.Root.Name)
		stats := append([]stat{*c.Root}, c.Stages...)
		for i, s := range stats {
			require.NotNil(t, s.MeanUs, s.Name)
			require.NotNil(t, s.MinUs, s.Name)
			require.NotNil(t, s.MaxUs, s.Name)
			assert.LessOrEqual(t, *s.MinUs, *s.MeanUs, s.Name)
			assert.LessOrEqual(t, *s.MeanUs, *s.MaxUs, s.Name)
			assert.LessOrEqual(t, s.N, c.Invocations, s.Name)
			assert.Positive(t, s.N, s.Name)
			if i > 1 {
				prev := stats[i-1]
				assert.True(t, prev.N > s.N || prev.N == s.N && prev.Name < s.Name, "stage order %s, %s", prev.Name, s.Name)
			}
		}
	}
	// The decode callable's root mean is the text's 2165.6 us.
	assert.InDelta(t, 2165.6, *doc.Callables[0].Root.MeanUs, 0.05)

	code, out, _ = viewsRun(t, "", "tpot", "--format", "json", "-")
	require.Equal(t, 0, code)
	assert.JSONEq(t, `{"callables":[]}`, out)
}

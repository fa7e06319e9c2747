package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hbgkit/hbgkit/phases"
	"github.com/hbgkit/hbgkit/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHarnessLogParses runs the embedded model and reads its log with the
// engine under hbgtrace: no torn record or warning, one chip.run per bind,
// every bind-phase pass attached to its chip.run.bind, and the HBG
// accounting recording every stage of the control plane in every round.
func TestHarnessLogParses(t *testing.T) {
	t.Parallel()
	const rounds = 3
	tests := []struct {
		workload string
		epoch    string
		tasks    string
	}{
		{"dsv4-pair", "e1", "tasks=1131"},
		{"qwen3-14b-decode", "e1", "tasks=47"},
		{"dsv4-blocks7", "e2", "tasks=129"},
	}
	for _, tc := range tests {
		t.Run(tc.workload+"/"+tc.epoch, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "harness.log")
			code, _, stderr := runCLI("harness", "--workload", tc.workload, "--epoch", tc.epoch,
				"--rounds", fmt.Sprint(rounds), "-o", log)
			require.Equal(t, 0, code, stderr)

			srcs, err := trace.Inputs([]string{log}, nil)
			require.NoError(t, err)
			l, err := trace.ReadLog(srcs)
			require.NoError(t, err)
			assert.Empty(t, l.Warnings())
			require.NotNil(t, l.Stamp)
			assert.Contains(t, l.Stamp.Text, "workload="+tc.workload)
			// One [CLOCK_ANCHOR] per process, as the runtime writes it: only
			// the first model run of this test process carries one.
			assert.LessOrEqual(t, len(l.Anchors), 1)

			r := phases.ComputeRounds(trace.GroupInvocations(trace.InvocationSpans(l.Spans)))
			require.Len(t, r.Rows, rounds)

			passes := trace.GroupPasses(l.BindPhases)
			trace.AttachPasses(passes, l.Spans)
			require.Len(t, passes, rounds)
			for i, p := range passes {
				require.NotNil(t, p.Bind, "pass %d has no chip.run.bind", i)
				var orch *trace.BindPhase
				for j := range p.Segments {
					if p.Segments[j].Phase == "host_orch" {
						orch = &p.Segments[j]
					}
				}
				require.NotNil(t, orch, "pass %d has no host_orch", i)
				assert.Contains(t, orch.Attrs, tc.tasks)
			}

			bc := phases.NewBindPassCollector()
			for i := range l.Spans {
				bc.Span(&l.Spans[i])
			}
			for i := range l.BindPhases {
				bc.BindPhase(&l.BindPhases[i])
			}
			acct := bc.Accounting(r.Rows)
			require.True(t, acct.Active())
			assert.Empty(t, acct.Warnings())
			assert.Equal(t, rounds, acct.All.K())
			assert.Equal(t, rounds, acct.All.M())
		})
	}
}

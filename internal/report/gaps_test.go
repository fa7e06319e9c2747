package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/swimlane"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteGaps(t *testing.T) {
	round := 3
	gs := []swimlane.BindGaps{{
		Pid: 9, Inv: 5, Round: &round, Tid: 9, Submits: 6, MedianGap: 1_000, MinGap: 20_000,
		BindTs: 1_000, HasCommit: true, CommitWait: 37_000,
		Gaps: []swimlane.Gap{{After: 2, Start: 132_000, End: 432_000, Created: []swimlane.RecorderLane{
			{Name: "graph record worker (tid 43)", Tid: 43}, {Name: "graph record worker (tid 45)", Tid: 45}}}},
	}, {Pid: 9, Inv: 6, Tid: 9, Submits: 2}}
	var b bytes.Buffer
	require.NoError(t, WriteGaps(&b, FormatText, gs))
	text := b.String()
	assert.Contains(t, text, "bind pid=9 inv=5 round=3 (tid 9): 6 graph_submit, median gap 1.0 us, threshold 20.0 us, 1 gap(s) longer\n")
	assert.Contains(t, text, "  gap      300.0 us  after graph_submit #2  at +131.0 us  created: graph record worker (tid 43), graph record worker (tid 45)\n")
	assert.Contains(t, text, "  commit wait 37.0 us (last graph_submit end -> last build_definition end)\n")
	assert.Contains(t, text, "bind pid=9 inv=6 (tid 9): 2 graph_submit")
	assert.Contains(t, text, "  commit wait: no build_definition record\n")

	b.Reset()
	require.NoError(t, WriteGaps(&b, FormatMarkdown, gs))
	md := b.String()
	assert.Contains(t, md, "**bind pid=9 inv=5 round=3** (tid 9): 6 graph_submit, median gap 1.0 us, threshold 20.0 us, commit wait 37.0 us\n")
	assert.Contains(t, md, "| 300.0 | 2 | 131.0 | graph record worker (tid 43), graph record worker (tid 45) |\n")
	assert.Equal(t, 2, strings.Count(md, "|---:|---:|---:|---|"), "one table per bind")

	b.Reset()
	require.NoError(t, WriteGaps(&b, FormatJSON, gs))
	var back []swimlane.BindGaps
	require.NoError(t, json.Unmarshal(b.Bytes(), &back))
	assert.Len(t, back, 2)
}

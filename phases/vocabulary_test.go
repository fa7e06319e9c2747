package phases

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hbgkit/hbgkit/trace"
)

// TestSpreadKnownIsRuntimeSegments keeps the spread's array of segments
// the runtime's own vocabulary, in trace's order.
func TestSpreadKnownIsRuntimeSegments(t *testing.T) {
	assert.Equal(t, trace.RuntimeSegments(), spreadKnown[:])
}

// TestVocabulariesAreCopies: a caller changing what it was given changes
// nothing of ours.
func TestVocabulariesAreCopies(t *testing.T) {
	s := SpanPhaseSetFor(nil)
	s.Order[0], s.ControlPlane[0] = "x", "x"
	assert.Equal(t, trace.SegArgs, SpanPhaseSetFor(nil).Order[0])
	assert.Equal(t, trace.SegHostOrch, SpanPhaseSetFor(nil).ControlPlane[0])
	n := snapshotPhases()
	n.Order[0] = "x"
	assert.Equal(t, trace.SegArgs, snapshotPhases().Order[0])
	st := ShareStageList()
	st[0] = StageGate
	assert.Equal(t, StageArgs, ShareStageList()[0])
}

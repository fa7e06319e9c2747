package campaign

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/journal/journaltest"
)

// TestAnnounceWarnsOfACorrectnessSwitch: before a block runs, an arm
// with --skip-golden in its command is named on a WARNING line that
// recommends --check; an arm without one is not.
func TestAnnounceWarnsOfACorrectnessSwitch(t *testing.T) {
	t.Parallel()
	h := journaltest.Header(t)
	h.Arms[journal.Head] = journal.Arm{Kind: journal.KindCommand, Spec: "python run.py --skip-golden --rounds {rounds} -o {out}"}
	var b bytes.Buffer
	Announce(&b, h, "j.jsonl")
	assert.Contains(t, b.String(), "WARNING: head runs with --skip-golden, which turns a correctness check off")
	assert.Contains(t, b.String(), "--check CMD")
	assert.NotContains(t, b.String(), "WARNING: base")

	b.Reset()
	Announce(&b, journaltest.Header(t), "j.jsonl")
	assert.NotContains(t, b.String(), "WARNING")
}

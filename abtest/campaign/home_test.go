package campaign

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Two campaigns started in the same second get two journals, and the
// second is the newest.
func TestReserveJournalTwoInOneSecond(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	now := time.Date(2026, 12, 4, 18, 30, 0, 0, time.UTC)
	a, err := reserveJournal(home, now)
	require.NoError(t, err)
	b, err := reserveJournal(home, now)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(home, "hbgbench-20261204T183000Z.jsonl"), a)
	assert.Equal(t, filepath.Join(home, "hbgbench-20261204T183000Z_2.jsonl"), b)
	newest, err := NewestJournal(home)
	require.NoError(t, err)
	assert.Equal(t, b, newest)
}

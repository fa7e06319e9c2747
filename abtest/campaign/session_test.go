package campaign

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/journal/journaltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBlockDirNames(t *testing.T) {
	t.Parallel()
	for journal, want := range map[string]string{
		"/c/x.jsonl":       "/c/x.d",
		"/c/x.json":        "/c/x.json.d",
		"/c/x":             "/c/x.d",
		"/c/x.jsonl.jsonl": "/c/x.jsonl.d",
	} {
		assert.Equal(t, want, BlockDir(journal), journal)
	}
}

// TestOneCampaignOneBlockDirectory: two journals whose names lead to one
// block directory (x and x.jsonl) never run at once.
//
// Not parallel: it reopens a campaign it just closed, which a git process
// another test was starting could hold for a moment (see openFake).
func TestOneCampaignOneBlockDirectory(t *testing.T) {
	dir := t.TempDir()
	open := func(name string) (*Session, error) {
		base, err := journal.ParseEmbedded("embedded:")
		require.NoError(t, err)
		return Open(context.Background(), Options{Config: journaltest.Config(), Arms: [2]journal.Arm{base, base},
			Journal: filepath.Join(dir, name), Warn: io.Discard, SeedSet: true})
	}
	s, err := open("x.jsonl")
	require.NoError(t, err)
	_, err = open("x")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "block directory "+filepath.Join(dir, "x.d")+" is in use by another campaign")
	s.Close()
	s, err = open("x")
	require.NoError(t, err, "the directory is free once the first campaign closed")
	s.Close()
}

// TestNewestWithRoundsPassesOverFailedCampaigns: report with no journal
// named takes the newest campaign that has a complete round, and says how
// many newer ones it passed over; none with a round is an error.
func TestNewestWithRoundsPassesOverFailedCampaigns(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	good, err := os.ReadFile(filepath.Join("..", "journal", "testdata", "campaign.jsonl"))
	require.NoError(t, err)
	header, _, _ := strings.Cut(string(good), "\n")
	older := filepath.Join(home, "hbgbench-20261201T000000Z.jsonl")
	newer := filepath.Join(home, "hbgbench-20261202T000000Z.jsonl")
	require.NoError(t, os.WriteFile(newer, []byte(header+"\n"), 0o644))
	_, _, err = NewestWithRounds(home)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "has a complete round (1 journals): name one")

	require.NoError(t, os.WriteFile(older, good, 0o644))
	path, which, err := NewestWithRounds(home)
	require.NoError(t, err)
	assert.Equal(t, older, path)
	assert.Equal(t, "report of "+older+", the newest campaign with a complete round (1 newer without one)", which)
	newest, err := NewestJournal(home)
	require.NoError(t, err)
	assert.Equal(t, newer, newest, "resume still takes the newest")
}

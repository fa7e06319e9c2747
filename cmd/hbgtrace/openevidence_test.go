package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOpenAttributesInViews: an hblkhd= no list knows, appended to every
// host_orch line of the E2 fixture (as #2013's heap checks were), is a
// column of rounds --counters (text, csv) and a row of phases
// --accounting, with its unit; nothing is dropped silently.
func TestOpenAttributesInViews(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../fixtures/hbg-e2.log")
	require.NoError(t, err)
	s := regexp.MustCompile(`(?m)(bind phase=host_orch .*)$`).ReplaceAllString(string(b), "$1 hblkhd=4096 rss_bytes=8192")
	path := filepath.Join(t.TempDir(), "open.log")
	require.NoError(t, os.WriteFile(path, []byte(s), 0o644))

	code, out, errText := viewsRun(t, "", "rounds", "--counters", path)
	require.Equal(t, 0, code, errText)
	assert.Contains(t, out, "Other attributes per pass and segment (")
	assert.Regexp(t, `hblkhd[^;]*: count; rss_bytes: bytes`, out)
	assert.Regexp(t, `(?m)^  1 +host_orch +- +- +4096 +- +- +8192 `, out)

	code, out, errText = viewsRun(t, "", "rounds", "--format", "csv", path)
	require.Equal(t, 0, code, errText)
	assert.Contains(t, out, "host_orch.hblkhd")

	code, out, errText = viewsRun(t, "", "phases", "--accounting", "--rounds", "5", path)
	require.Equal(t, 0, code, errText)
	assert.Regexp(t, `(?m)^  host_orch +hblkhd +count +4096 +4096 +4096 +4$`, out)
	assert.Regexp(t, `(?m)^  host_orch +rss_bytes +bytes +8192 +8192 +8192 +4$`, out)
}

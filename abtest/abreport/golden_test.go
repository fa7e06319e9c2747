package abreport

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/internal/document"
	goldenfile "github.com/hbgkit/hbgkit/internal/golden"
	"github.com/hbgkit/hbgkit/internal/report/terminal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

// TestGoldenReport re-analyses a journal of a real campaign (6 rounds of
// per_bind against retained on the embedded model): the report is a
// function of the journal alone, byte for byte. (cmd/hbgbench's
// TestReportGolden covers every format as the commands print them.)
func TestGoldenReport(t *testing.T) {
	j, err := journal.ReadJournal(filepath.Join("..", "journal", "testdata", "campaign.jsonl"))
	require.NoError(t, err)
	a := analysis.Analyze(j)
	text, md, csv, js := renderAll(t, a, j)
	golden(t, "campaign.text", text.Bytes())
	golden(t, "campaign.markdown", md.Bytes())
	golden(t, "campaign.csv", csv.Bytes())
	var back analysis.Analysis
	require.NoError(t, json.Unmarshal(js.Bytes(), &back))
	assert.Equal(t, a.Complete, back.Complete)
	assert.Equal(t, "ControlPlane", back.Primary.String())
	// Analysing twice gives the same document.
	var again bytes.Buffer
	require.NoError(t, terminal.WriteText(&again, For(analysis.Analyze(j)).Document()))
	assert.Equal(t, text.String(), again.String())
}

// renderAll writes an analysis in the report formats: text, markdown, the
// csv metrics table and json.
func renderAll(t *testing.T, a *analysis.Analysis, j *journal.Journal) (text, md, csv, js bytes.Buffer) {
	t.Helper()
	require.NoError(t, terminal.WriteText(&text, For(a).Document()))
	require.NoError(t, document.WriteMarkdown(&md, For(a).MarkdownDocument()))
	for _, tb := range For(a).CSVTables(j) {
		if tb.Title == "metrics" { // the metrics table alone, after any warnings
			require.NoError(t, document.WriteCSV(&csv, tb))
		}
	}
	require.NoError(t, document.WriteJSON(&js, a))
	return text, md, csv, js
}

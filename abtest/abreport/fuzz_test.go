package abreport

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
)

// FuzzJournalReport feeds arbitrary bytes to the journal reader and, when
// they parse, to the analysis and every report document: an error or a
// warning, never a panic.
func FuzzJournalReport(f *testing.F) {
	for _, p := range []string{
		filepath.Join("..", "journal", "testdata", "campaign.jsonl"),
		filepath.Join("..", "..", "cmd", "hbgbench", "testdata", "report", "narms.jsonl"),
	} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"type":"header","format":1,"config":{"rounds":3}}` + "\n" + `{"type":"round","round":1,"attempt":1,"status":"ok"}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "fuzz.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		j, err := journal.ReadJournal(path)
		if err != nil || j.Header.Config.Rounds > 1000 {
			return // a huge round count is valid, just slow to walk
		}
		a := analysis.Analyze(j)
		_ = For(a).Document()
		_ = For(a).MarkdownDocument()
		_ = For(a).CSVTables(j)
	})
}

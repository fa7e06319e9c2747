package metric

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/trace"
)

// FuzzReadBlockLanes reads the gaps fixture's log with any records file:
// never a panic, and a lane metric only in a pass of the log, never
// negative (a commit wait is max(0, …), counts count).
func FuzzReadBlockLanes(f *testing.F) {
	src := filepath.Join("..", "..", "swimlane", "testdata", "gaps")
	log, err := os.ReadFile(filepath.Join(src, "run.log"))
	if err != nil {
		f.Fatal(err)
	}
	recs, err := os.ReadFile(filepath.Join(src, trace.RecordsFile))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(recs)
	f.Add([]byte(`{"pid": 9, "inv": 2, "records": [{"phase": "graph_submit", "start_ns": 20400000, "end_ns": 20300000, "tid": 9}]}`))
	f.Add([]byte(`{"pid": 9, "inv": 1, "records": [{"phase": "build_definition", "start_ns": -9223372036854775808, "end_ns": 9223372036854775807, "tid": 42}]}`))
	f.Add([]byte("{\"pid\": 9}\n[]\nnot json\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "host.0.log"), log, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, trace.RecordsFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
		bp, err := ReadBlockLog([]string{dir})
		if err != nil {
			return
		}
		for _, p := range bp.Passes {
			for n, v := range p.Values {
				if strings.HasPrefix(n, "lanes.") && v < 0 {
					t.Errorf("pass inv=%d: %s = %v", p.Inv, n, v)
				}
			}
		}
		if len(bp.Passes) != 2 {
			t.Errorf("%d passes, want the log's 2", len(bp.Passes))
		}
	})
}

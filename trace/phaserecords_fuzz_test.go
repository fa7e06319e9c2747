package trace

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoadPhaseRecords feeds arbitrary bytes as a host_phase_records.jsonl
// file: loading never panics, and every record's conversions return without panicking.
func FuzzLoadPhaseRecords(f *testing.F) {
	f.Add([]byte(`{"pid": 81234, "inv": 12, "clock": "host_monotonic_ns", "dropped": 0, "records": [{"phase": "args", "start_ns": 734510112500, "end_ns": 734511480000, "detail": 0, "tid": 81240}]}` + "\n"))
	f.Add([]byte(`{"pid": "7", "inv": 1.5, "records": [{"phase": 3, "start_ns": "12", "end_ns": 1e3, "detail": null, "tid": -1}]}`))
	f.Add([]byte("null\n[1, 2, 3]\n42\n\"a string\"\n{\"records\": 7}\n{\"pid\": 1, \"inv\""))
	f.Add([]byte(`{"pid": 99999999999999999999999, "inv": -3, "records": [{"start_ns": NaN}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "host_phase_records.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		passes, _, skipped, err := LoadPhaseRecordsSkipped([]string{path})
		if err != nil {
			t.Fatalf("a readable file is never an error: %v", err)
		}
		// Every non-blank line is a pass or a skipped line, once.
		lines := 0
		for _, l := range bytes.Split(data, []byte{'\n'}) {
			if len(bytes.TrimSpace(l)) > 0 {
				lines++
			}
		}
		if len(passes)+len(skipped) != lines {
			t.Fatalf("%d passes + %d skipped lines != %d lines", len(passes), len(skipped), lines)
		}
		for _, p := range passes {
			p.Key()
			for _, r := range p.Records {
				r.Interval()
				r.Tid(7)
				r.Detail()
			}
		}
	})
}

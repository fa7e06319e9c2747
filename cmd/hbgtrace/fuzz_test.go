package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzCommands runs every view on an arbitrary log read from stdin: no
// panic, an exit status of the contract (0, 1 or 2), and valid JSON
// wherever JSON is written.
func FuzzCommands(f *testing.F) {
	for _, name := range []string{
		"../../fixtures/hbg-e1.log",
		"../../fixtures/hbg-e3-spool.log",
		"../../fixtures/hbg-pr1870.log",
		"../../fixtures/conformance/031-overlap-pass-two-runs/input.log",
		"../../fixtures/conformance/058-swimlane-dispatch-flows/input.log",
	} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		if len(b) > 8<<10 {
			b = b[:8<<10]
		}
		f.Add(b)
	}
	f.Add([]byte("[STRACE] v=1 pid=1 tid=1 inv=1 hid=a depth=0 name=chip.run ts=1 dur=2 \n"))
	f.Add([]byte("bind phase=host_orch start_ns=1 dur_ns=2 \nbind phase=args start_ns=0 dur_ns=1\n"))
	f.Add([]byte("bind phase=args start_ns=1  dur_ns=2 x=1 bind phase=args start_ns=1 dur_ns=3 \nbind phase=host_orch start_ns=9223372036854775000 dur_ns=900 y=1 bind phase=host_orch start_ns=1 dur_ns=2\n"))
	f.Fuzz(func(t *testing.T, log []byte) {
		dir := t.TempDir()
		views := [][]string{
			{"tpot", "-"}, {"tree", "-"}, {"rounds", "-"}, {"rounds", "--per-rank", "-"},
			{"overlap", "-"}, {"phases", "-"}, {"phases", "--accounting", "--keep-first", "-"},
			{"rounds", "--format", "json", "-"}, {"tpot", "--format", "json", "-"},
			{"tree", "--format", "json", "-"}, {"phases", "--format", "json", "-"},
			{"rounds", "--format", "csv", "-"}, {"rounds", "--format", "markdown", "-"},
			// Small bounds: past them, a clear error (exit 1), never more.
			{"tree", "--max-spans", "5", "--max-rows", "8", "-"}, {"overlap", "--max-spans", "5", "-"},
		}
		for _, args := range views {
			var stdout, stderr bytes.Buffer
			code := run(args, bytes.NewReader(log), &stdout, &stderr)
			if code < 0 || code > 2 {
				t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
			}
			if code == 0 && strings.Contains(strings.Join(args, " "), "json") && !json.Valid(stdout.Bytes()) {
				t.Fatalf("%v: invalid JSON: %q", args, stdout.String())
			}
		}
		for _, args := range [][]string{
			{"trace", "-", "-o", filepath.Join(dir, "trace.json")},
			{"swimlane", "-", "-o", filepath.Join(dir, "swimlane.json")},
		} {
			var stdout, stderr bytes.Buffer
			code := run(args, bytes.NewReader(log), &stdout, &stderr)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
			}
			b, err := os.ReadFile(args[len(args)-1])
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(b) {
				t.Fatalf("%v wrote invalid JSON", args)
			}
		}
	})
}

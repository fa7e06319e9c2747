package journal

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func firstLines(b []byte, n int) []byte {
	for i, c := range b {
		if c == '\n' {
			n--
			if n == 0 {
				return b[:i+1]
			}
		}
	}
	return b
}

// FuzzJournal feeds arbitrary bytes to the journal parser and, when they
// parse, to its history: an error or a warning, never a panic. The
// analysis and the report of such journals are fuzzed in abreport
// (FuzzJournalReport).
func FuzzJournal(f *testing.F) {
	good, err := os.ReadFile(filepath.Join("testdata", "campaign.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	// The first lines of a real journal: its header and first blocks (the
	// whole file is too large an input for the mutator to move quickly).
	f.Add(firstLines(good, 4))
	// A campaign of three arms (cmd/hbgbench's golden): its header and
	// first round (header, ruler, three blocks, round).
	arms, err := os.ReadFile(filepath.Join("..", "..", "cmd", "hbgbench", "testdata", "report", "narms.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(firstLines(arms, 6))
	f.Add([]byte(`{"type":"header","format":1,"config":{"rounds":3}}` + "\n" + `{"type":"round","round":1,"attempt":1,"status":"ok"}` + "\n"))
	// A real header and an arm's correctness check.
	f.Add(append(firstLines(good, 1), []byte(`{"type":"check","arm":"head","command":"./golden.sh","rounds":6,"exit":1,"tail":["differs"]}`+"\n")...))
	f.Add([]byte(`{"type":"header","format":1,"config":{"rounds":2}}` + "\n" + `{"type":"block","round":1,"arm":"base","passes":[{"ns":{"ControlPlane":-1}}]}`))
	// A sequential campaign: the whole journal with --look-every 5 and a
	// look line after round 5.
	seq := bytes.Replace(good, []byte(`"bootstrap":0}`), []byte(`"bootstrap":0,"look_every":5}`), 1)
	f.Add(append(seq, []byte(`{"type":"look","round":5,"look":1,"n":5,"max_rounds":6,"stat":1.5,"boundary":2.5,"crit":4.1,"delta":0.1,"rci_lo":-0.2,"rci_hi":null,"decision":"inconclusive","decided":false}`+"\n")...))
	f.Fuzz(func(t *testing.T, data []byte) {
		j, err := parseJournal("fuzz.jsonl", data)
		if err != nil {
			return
		}
		if j.Header.Config.Rounds > 1000 {
			return // a huge round count is valid, just slow to walk
		}
		_ = j.History().Counted()
	})
}

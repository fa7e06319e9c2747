package swimlane

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/trace"
	"github.com/stretchr/testify/require"
)

// sp builds a span the way the reference tests' _record fixture does.
func sp(pid, tid int64, inv uint64, depth int64, name string, ts, dur int64, attrs string) trace.Span {
	return trace.Span{Pid: pid, Tid: tid, Inv: inv, Hid: "abc", Depth: depth, Name: name, Ts: ts, Dur: dur, Attrs: attrs}
}

// doc is a decoded trace document.
type doc struct {
	TraceEvents          []event          `json:"traceEvents"`
	DisplayTimeUnit      string           `json:"displayTimeUnit"`
	UnalignedDeviceSpans []map[string]any `json:"unalignedDeviceSpans"`
	ClockAnchors         []map[string]any `json:"clockAnchors"`
	raw                  map[string]json.RawMessage
}

type event struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat"`
	Ph   string         `json:"ph"`
	ID   *json.Number   `json:"id"`
	Ts   float64        `json:"ts"`
	Dur  float64        `json:"dur"`
	Pid  int64          `json:"pid"`
	Tid  int64          `json:"tid"`
	Args map[string]any `json:"args"`
}

func decodeDoc(t *testing.T, b []byte) doc {
	t.Helper()
	require.True(t, json.Valid(b), "invalid JSON: %s", b)
	var d doc
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&d))
	require.NoError(t, json.Unmarshal(b, &d.raw))
	return d
}

func swimlaneDoc(t *testing.T, l *trace.Log, passes []trace.RecordPass) (doc, *Swimlane) {
	t.Helper()
	sw := Build(l, passes)
	var buf bytes.Buffer
	require.NoError(t, sw.WriteJSON(&buf))
	return decodeDoc(t, buf.Bytes()), sw
}

func (d doc) xEvents() []event {
	var out []event
	for _, e := range d.TraceEvents {
		if e.Ph == "X" {
			out = append(out, e)
		}
	}
	return out
}

// threadNames maps (pid, tid) to the lane's name.
func (d doc) threadNames() map[[2]int64]string {
	out := make(map[[2]int64]string)
	for _, e := range d.TraceEvents {
		if e.Ph == "M" && e.Name == "thread_name" {
			out[[2]int64{e.Pid, e.Tid}] = fmt.Sprint(e.Args["name"])
		}
	}
	return out
}

func (d doc) processNames() map[int64]string {
	out := make(map[int64]string)
	for _, e := range d.TraceEvents {
		if e.Ph == "M" && e.Name == "process_name" {
			out[e.Pid] = fmt.Sprint(e.Args["name"])
		}
	}
	return out
}

// checkInvariants checks what every document must satisfy: every lane and
// every process named exactly once, every X event and flow end on a named
// lane, every flow id with exactly one start and one finish.
func checkInvariants(t *testing.T, d doc) {
	t.Helper()
	lanes := make(map[[2]int64]int)
	procs := make(map[int64]int)
	for _, e := range d.TraceEvents {
		if e.Ph != "M" {
			continue
		}
		switch e.Name {
		case "thread_name":
			lanes[[2]int64{e.Pid, e.Tid}]++
		case "process_name":
			procs[e.Pid]++
		default:
			t.Errorf("unknown metadata event %q", e.Name)
		}
		if _, ok := e.Args["name"].(string); !ok {
			t.Errorf("metadata event without a string name: %+v", e)
		}
	}
	for k, n := range lanes {
		if n != 1 {
			t.Errorf("lane %v named %d times", k, n)
		}
		if procs[k[0]] == 0 {
			t.Errorf("lane %v in a process with no process_name", k)
		}
	}
	for p, n := range procs {
		if n != 1 {
			t.Errorf("process %d named %d times", p, n)
		}
	}
	starts := make(map[string]int)
	finishes := make(map[string]int)
	for _, e := range d.TraceEvents {
		switch e.Ph {
		case "M":
			continue
		case "X":
			if e.Dur < 0 {
				t.Errorf("negative duration: %+v", e)
			}
		case "s", "f":
			if e.ID == nil {
				t.Errorf("flow event without id: %+v", e)
				continue
			}
			if e.Ph == "s" {
				starts[e.ID.String()]++
			} else {
				finishes[e.ID.String()]++
			}
		default:
			t.Errorf("unexpected event phase %q", e.Ph)
		}
		if lanes[[2]int64{e.Pid, e.Tid}] == 0 {
			t.Errorf("%s event %q on unnamed lane (%d, %d)", e.Ph, e.Name, e.Pid, e.Tid)
		}
	}
	for id, n := range starts {
		if n != 1 || finishes[id] != 1 {
			t.Errorf("flow %s: %d starts, %d finishes", id, n, finishes[id])
		}
	}
	for id, n := range finishes {
		if starts[id] == 0 {
			t.Errorf("flow %s: %d finishes and no start", id, n)
		}
	}
}

// loadPasses loads host_phase_records.jsonl text through the trace
// package's loader, as the command does.
func loadPasses(t *testing.T, jsonl string) []trace.RecordPass {
	t.Helper()
	p := filepath.Join(t.TempDir(), "host_phase_records.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(jsonl), 0o644))
	passes, err := trace.LoadPhaseRecords([]string{p})
	require.NoError(t, err)
	return passes
}

// pass is one artifact line with the given records.
func pass(pid, inv any, records ...string) string {
	return fmt.Sprintf(`{"pid": %v, "inv": %v, "clock": "host_monotonic_ns", "dropped": 0, "records": [%s]}`+"\n",
		pid, inv, strings.Join(records, ", "))
}

// rec is one artifact record; a negative tid leaves the key out.
func rec(phase string, start, end int64, detail any, tid int64) string {
	s := fmt.Sprintf(`{"phase": %q, "start_ns": %d, "end_ns": %d, "detail": %v`, phase, start, end, detail)
	if tid >= 0 {
		s += fmt.Sprintf(`, "tid": %d`, tid)
	}
	return s + "}"
}

package swimlane_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/internal/perflog"
	"github.com/hbgkit/hbgkit/swimlane"
	"github.com/hbgkit/hbgkit/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLogProfileMatchesTheSwimlanes: the profile a LogProfile builds as
// the log streams (what `hbgtrace pprof` writes) is, byte for byte, the
// profile of the whole log's swimlane, with the same warnings, on every
// fixture log (the conformance cases' pipeline slots, lane names, bind
// phase lines and artifacts among them) and on a generated log of
// realistic size.
func TestLogProfileMatchesTheSwimlanes(t *testing.T) {
	type input struct {
		name    string
		log     []byte
		records []string
	}
	var inputs []input
	logs, err := filepath.Glob("../fixtures/*.log")
	require.NoError(t, err)
	cases, err := filepath.Glob("../fixtures/conformance/*/input.log")
	require.NoError(t, err)
	logs = append(logs, append(cases, "testdata/gaps/run.log")...)
	require.Greater(t, len(logs), 50)
	for _, p := range logs {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		records, err := filepath.Glob(filepath.Join(filepath.Dir(p), "*.jsonl"))
		require.NoError(t, err)
		inputs = append(inputs, input{p, b, records})
	}
	inputs = append(inputs, input{name: "perflog 4 MB", log: perflog.Generate(4 << 20)})

	encode := func(p *swimlane.Profile) []byte {
		var buf bytes.Buffer
		require.NoError(t, p.WriteUncompressed(&buf))
		return buf.Bytes()
	}
	withRecords := 0
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			srcs := []trace.Source{trace.ReaderSource("in.log", bytes.NewReader(in.log))}
			l, err := trace.ReadLog(srcs)
			require.NoError(t, err)
			passes, err := trace.LoadPhaseRecords(in.records)
			require.NoError(t, err)
			if len(passes) > 0 {
				withRecords++
			}
			sw := swimlane.Build(l, passes)
			want := sw.Profile(swimlane.ProfileOptions{})

			lp := swimlane.NewLogProfile()
			srcs = []trace.Source{trace.ReaderSource("in.log", bytes.NewReader(in.log))}
			_, err = trace.StreamLog(srcs, trace.ReadOptions{Workers: 2}, trace.Visitors{
				Span: lp.AddSpan, BindPhase: lp.AddBindPhase, Err: lp.Err,
			})
			require.NoError(t, err)
			got, warns := lp.Profile(passes, swimlane.ProfileOptions{})
			assert.Equal(t, sw.Warnings(), warns)
			assert.Equal(t, want.Spans, got.Spans)
			assert.Equal(t, want.Truncated, got.Truncated)
			if !bytes.Equal(encode(want), encode(got)) {
				assert.Equal(t, want, got)
				t.Fatal("the encodings differ")
			}
		})
	}
	assert.Greater(t, withRecords, 3, "artifacts are merged in some cases")
}

// TestLogProfileBound: a LogProfile holds at most MaxSpans spans and
// bind-phase lines; the record past them ends the read with an error that
// names it.
func TestLogProfileBound(t *testing.T) {
	var b strings.Builder
	for i := range 30 {
		b.WriteString("[mono_ns=1][T0x1][TIMING] f: [STRACE] v=1 pid=7 tid=7 inv=1 hid=abc depth=0 name=chip.run ts=")
		b.WriteString(strings.Repeat("1", i%3+1))
		b.WriteString(" dur=5 \n")
	}
	lp := swimlane.NewLogProfile()
	lp.MaxSpans = 20
	_, err := trace.StreamLog([]trace.Source{trace.ReaderSource("b.log", strings.NewReader(b.String()))}, trace.ReadOptions{},
		trace.Visitors{Span: lp.AddSpan, BindPhase: lp.AddBindPhase, Err: lp.Err})
	require.Error(t, err)
	assert.Equal(t, "reading b.log: line 21: more than 20 spans and phase lines to hold in memory", err.Error())
}

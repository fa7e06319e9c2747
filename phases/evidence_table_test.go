package phases

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hbgkit/hbgkit/trace"
)

// evPass is a pass of pid with host_orch and args segments of the given
// attributes ("" leaves the segment out).
func evPass(pid int64, inv uint64, orch, args string) BindPass {
	p := BindPass{Pid: pid, Inv: inv, Known: true}
	if orch != "" {
		p.Segments = append(p.Segments, Segment{Name: trace.SegHostOrch, Attrs: orch, Pos: trace.Pos{File: "r.log", Line: int(inv) * 10}})
	}
	if args != "" {
		p.Segments = append(p.Segments, Segment{Name: trace.SegArgs, Attrs: args, Pos: trace.Pos{File: "r.log", Line: int(inv)*10 + 1}})
	}
	return p
}

func evTable(byPid bool, passes ...BindPass) *EvidenceTable {
	return NewEvidenceTable(len(passes), func(i int) BindPass { return passes[i] }, byPid)
}

func evCol(t *testing.T, tb *EvidenceTable, seg, name string) int {
	t.Helper()
	for j, c := range tb.Columns {
		if c.Segment == seg && c.Name == name {
			return j
		}
	}
	t.Fatalf("no column %s.%s in %v", seg, name, tb.Columns)
	return -1
}

// TestEvidenceTableEvents: k of N over the warm passes (the first pass of
// each pid is cold), a heap that grew over the pid's previous pass, and
// the pass totals.
func TestEvidenceTableEvents(t *testing.T) {
	tb := evTable(true,
		evPass(1, 1, "minflt=9 heap_used=100", "minflt=1"), // cold
		evPass(2, 2, "minflt=5 heap_used=100", "minflt=0"), // cold
		evPass(1, 3, "minflt=0 heap_used=100", "minflt=2"),
		evPass(2, 4, "minflt=3 heap_used=200", "minflt=0"),
		evPass(1, 5, "minflt=0 heap_used=100", "minflt=0"),
	)
	assert.Equal(t, []bool{true, true, false, false, false}, tb.Cold)
	assert.Equal(t, 3, tb.Warm())
	assert.Equal(t, []EvidenceColumn{{PassTotal, "minflt"}, {trace.SegArgs, "minflt"}, {trace.SegHostOrch, "minflt"}, {trace.SegHostOrch, "heap_used"}}, tb.Columns)
	v, ok := tb.Value(3, evCol(t, tb, PassTotal, "minflt"))
	assert.True(t, ok)
	assert.Equal(t, int64(3), v)
	assert.Equal(t, []EvidenceEvent{
		{Column: EvidenceColumn{PassTotal, "minflt"}, Kind: EventNonZero, K: 2, N: 3},
		{Column: EvidenceColumn{trace.SegArgs, "minflt"}, Kind: EventNonZero, K: 1, N: 3},
		{Column: EvidenceColumn{trace.SegHostOrch, "minflt"}, Kind: EventNonZero, K: 1, N: 3},
		{Column: EvidenceColumn{trace.SegHostOrch, "heap_used"}, Kind: EventGrew, K: 1, N: 3},
	}, tb.Events())
	lo, med, hi, n := tb.Spread(evCol(t, tb, trace.SegHostOrch, "minflt"))
	assert.Equal(t, []float64{0, 0, 3}, []float64{lo, med, hi})
	assert.Equal(t, 3, n)
	assert.Empty(t, tb.Warnings)
}

// TestEvidenceTableMissingIsMissing: a counter a pass does not write is
// no value (never 0), a bad value is left out with a warning naming its
// line, and a pass whose segment lacks a counter it writes elsewhere has
// no pass total of it.
func TestEvidenceTableMissingIsMissing(t *testing.T) {
	tb := evTable(true,
		evPass(1, 1, "minflt=4 tasks=7", "minflt=1"),
		evPass(1, 2, "minflt=-3 tasks=7", "minflt=1"),
		evPass(1, 3, "tasks=x", "minflt=2"),
	)
	orch, total := evCol(t, tb, trace.SegHostOrch, "minflt"), evCol(t, tb, PassTotal, "minflt")
	for i, want := range []bool{true, false, false} {
		_, ok := tb.Value(i, orch)
		assert.Equal(t, want, ok, "row %d host_orch minflt", i)
		_, ok = tb.Value(i, total)
		assert.Equal(t, want, ok, "row %d pass minflt", i)
	}
	_, ok := tb.Value(2, evCol(t, tb, trace.SegHostOrch, "tasks"))
	assert.False(t, ok, "tasks=x is no value")
	var msgs []string
	for _, w := range tb.Warnings {
		msgs = append(msgs, w.String())
	}
	assert.Equal(t, []string{
		`evidence: r.log:20: host_orch minflt="-3" is negative; left out`,
		`evidence: r.log:30: host_orch tasks="x" is not an integer; left out`,
		"evidence: r.log:20: host_orch lacks minflt in 2 of 3 passes that have it; those passes have no minflt total (2 times)",
		"evidence: r.log:21: pass totals known only for minflt on 1 of 3 passes; on the others they are missing, not 0",
	}, msgs)
	assert.Equal(t, 2, tb.WarmWith(total), "the pass total is lost on 2 warm passes: 0 of 2 have it")
	// Only the warm pass with a value counts in N.
	for _, ev := range tb.Events() {
		if ev.Column == (EvidenceColumn{trace.SegHostOrch, "minflt"}) {
			t.Fatalf("no warm pass has host_orch minflt, yet %+v", ev)
		}
	}
}

// TestEvidenceTableOpenAttributes: any numeric attribute of a bind line
// is a column with a unit from its name; a label (dev=model) is none.
func TestEvidenceTableOpenAttributes(t *testing.T) {
	tb := evTable(false,
		evPass(0, 1, "tasks=7 hblkhd=4096 rss_bytes=10 wait_ns=5 dev=model", ""),
		evPass(0, 2, "tasks=7 hblkhd=8192 rss_bytes=12 wait_ns=6 dev=model", ""))
	var got []string
	for _, c := range tb.Columns {
		got = append(got, c.Key()+" "+c.Unit())
	}
	assert.Equal(t, []string{"host_orch.tasks count", "host_orch.hblkhd count", "host_orch.rss_bytes bytes", "host_orch.wait_ns ns"}, got)
	lo, _, hi, n := tb.Spread(evCol(t, tb, trace.SegHostOrch, "hblkhd"))
	assert.Equal(t, []float64{4096, 8192}, []float64{lo, hi})
	assert.Equal(t, 2, n)
	assert.Empty(t, tb.Warnings)
}

// TestEvidenceTableNone: passes without counters, work or numeric
// attributes make an empty table (E1 without attributes, records).
func TestEvidenceTableNone(t *testing.T) {
	tb := evTable(false, evPass(0, 1, "x=y", ""), BindPass{})
	require.True(t, tb.Empty())
	assert.Empty(t, tb.Events())
	assert.Equal(t, 2, tb.Warm(), "a table of chosen passes has no cold row")
}

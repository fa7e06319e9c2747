package trace

import (
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func bp(thread, phase string, start, dur int64) BindPhase {
	return BindPhase{Phase: phase, StartNs: start, DurNs: dur, Thread: thread}
}

func phasesOf(p Pass) []string {
	var out []string
	for _, s := range p.Segments {
		out = append(out, s.Phase)
	}
	return out
}

func TestGroupPasses(t *testing.T) {
	tests := []struct {
		name    string
		lines   []BindPhase
		want    [][]string
		threads []string
	}{
		{
			name: "host_view_close stays with its pass",
			lines: []BindPhase{
				bp("a", "args", 0, 1), bp("a", "host_orch", 0, 1), bp("a", "arena_h2d", 0, 1), bp("a", "host_view_close", 0, 1),
				bp("a", "args", 0, 1), bp("a", "host_orch", 0, 1), bp("a", "arena_h2d", 0, 1), bp("a", "host_view_close", 0, 1),
			},
			want:    [][]string{{"args", "host_orch", "arena_h2d", "host_view_close"}, {"args", "host_orch", "arena_h2d", "host_view_close"}},
			threads: []string{"a", "a"},
		},
		{
			name: "interleaved threads keep their own passes",
			lines: []BindPhase{
				bp("a", "args", 0, 1), bp("b", "args", 0, 1), bp("a", "host_orch", 0, 1), bp("b", "host_orch", 0, 1),
				bp("b", "args", 0, 1), bp("a", "arena_h2d", 0, 1), bp("b", "host_orch", 0, 1),
			},
			want:    [][]string{{"args", "host_orch", "arena_h2d"}, {"args", "host_orch"}, {"args", "host_orch"}},
			threads: []string{"a", "b", "b"},
		},
		{
			name:    "an unknown phase joins the current pass",
			lines:   []BindPhase{bp("", "args", 0, 1), bp("", "mystery", 0, 1), bp("", "host_orch", 0, 1), bp("", "mystery", 0, 1), bp("", "args", 0, 1)},
			want:    [][]string{{"args", "mystery", "host_orch", "mystery"}, {"args"}},
			threads: []string{"", ""},
		},
		{
			name:    "an unknown phase first opens a pass",
			lines:   []BindPhase{bp("", "mystery", 0, 1), bp("", "host_orch", 0, 1)},
			want:    [][]string{{"mystery", "host_orch"}},
			threads: []string{""},
		},
		{
			name:    "a repeated segment starts a new pass",
			lines:   []BindPhase{bp("", "host_orch", 0, 1), bp("", "host_orch", 0, 1)},
			want:    [][]string{{"host_orch"}, {"host_orch"}},
			threads: []string{"", ""},
		},
		{
			name:  "no lines",
			lines: nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := GroupPasses(tc.lines)
			var phases [][]string
			var threads []string
			for _, p := range got {
				phases = append(phases, phasesOf(p))
				threads = append(threads, p.Thread)
				assert.Nil(t, p.Bind)
			}
			assert.Equal(t, tc.want, phases)
			assert.Equal(t, tc.threads, threads)
		})
	}
}

func TestSegmentIndex(t *testing.T) {
	assert.Equal(t, 0, SegmentIndex("args"))
	assert.Equal(t, 11, SegmentIndex("host_view_close"))
	assert.Equal(t, -1, SegmentIndex("graph_pack"))
}

func TestAttachPasses(t *testing.T) {
	bind := func(thread string, ts, dur int64, attrs string) Span {
		return Span{Pid: ts, Name: "chip.run.bind", Ts: ts, Dur: dur, Thread: thread, Attrs: attrs}
	}
	pass := func(thread string, segs ...[2]int64) Pass {
		p := Pass{Thread: thread}
		for _, s := range segs {
			p.Segments = append(p.Segments, bp(thread, "args", s[0], s[1]))
		}
		return p
	}
	tests := []struct {
		name   string
		spans  []Span
		passes []Pass
		want   []int64 // Pid (= Ts) of the attached bind, -1 for none
	}{
		{
			name:   "containment is inclusive at both ends",
			spans:  []Span{bind("a", 100, 50, "")},
			passes: []Pass{pass("a", [2]int64{100, 10}, [2]int64{140, 10}), pass("a", [2]int64{99, 10}), pass("a", [2]int64{145, 6})},
			want:   []int64{100, -1, -1},
		},
		{
			name:   "every segment must lie inside",
			spans:  []Span{bind("a", 100, 50, ""), bind("a", 200, 50, "")},
			passes: []Pass{pass("a", [2]int64{110, 10}, [2]int64{210, 10})},
			want:   []int64{-1},
		},
		{
			name:   "same thread preferred over a closer bind of another thread",
			spans:  []Span{bind("a", 100, 100, ""), bind("b", 110, 80, "")},
			passes: []Pass{pass("a", [2]int64{120, 10}), pass("b", [2]int64{120, 10})},
			want:   []int64{100, 110},
		},
		{
			name:   "closest start among the thread's binds",
			spans:  []Span{bind("a", 100, 1000, ""), bind("a", 300, 100, ""), bind("a", 500, 100, "")},
			passes: []Pass{pass("a", [2]int64{310, 10}), pass("a", [2]int64{700, 10})},
			want:   []int64{300, 100},
		},
		{
			name:   "another thread's bind when the own thread has none containing",
			spans:  []Span{bind("a", 100, 10, ""), bind("b", 100, 100, "")},
			passes: []Pass{pass("a", [2]int64{150, 10})},
			want:   []int64{100},
		},
		{
			name:   "device binds and other names are no candidates",
			spans:  []Span{bind("a", 100, 100, "clk=dev"), {Name: "chip.run", Ts: 100, Dur: 100, Thread: "a"}},
			passes: []Pass{pass("a", [2]int64{150, 10})},
			want:   []int64{-1},
		},
		{
			name:   "legacy simpler_run.bind",
			spans:  []Span{{Pid: 7, Name: "simpler_run.bind", Ts: 100, Dur: 100, Thread: "a"}},
			passes: []Pass{pass("a", [2]int64{150, 10})},
			want:   []int64{7},
		},
		{
			name:   "equal starts: the first in span order",
			spans:  []Span{{Pid: 1, Name: "chip.run.bind", Ts: 100, Dur: 100}, {Pid: 2, Name: "chip.run.bind", Ts: 100, Dur: 200}},
			passes: []Pass{pass("", [2]int64{150, 10})},
			want:   []int64{1},
		},
		{
			name:   "a long early bind behind a short later one",
			spans:  []Span{bind("a", 0, 1000, ""), bind("a", 500, 10, "")},
			passes: []Pass{pass("a", [2]int64{600, 10})},
			want:   []int64{0},
		},
		{
			name:   "a pass without segments stays unattached",
			spans:  []Span{bind("a", 0, 1000, "")},
			passes: []Pass{{Thread: "a"}},
			want:   []int64{-1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			AttachPasses(tc.passes, tc.spans)
			var got []int64
			for _, p := range tc.passes {
				if p.Bind == nil {
					got = append(got, -1)
					continue
				}
				got = append(got, p.Bind.Pid)
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestAttachPassesPointsIntoSpans(t *testing.T) {
	spans := []Span{{Name: "chip.run.bind", Ts: 0, Dur: 100}}
	passes := []Pass{{Segments: []BindPhase{bp("", "args", 10, 5)}}}
	AttachPasses(passes, spans)
	require.NotNil(t, passes[0].Bind)
	assert.Same(t, &spans[0], passes[0].Bind)
	start, end := passes[0].Span()
	assert.Equal(t, [2]int64{10, 15}, [2]int64{start, end})
}

func TestPassesFromLog(t *testing.T) {
	env := func(th string) string {
		return "[mono_ns=1][T0x" + th + "][TIMING] host_phase_trace_end: [host_phase_trace.cpp:393] "
	}
	span := func(th string, pid, inv int, ts, dur int) string {
		return "[mono_ns=2][T0x" + th + "][TIMING] emit_host_span: [STRACE] v=1 pid=" + itoa(pid) + " tid=" + itoa(pid) +
			" inv=" + itoa(inv) + " hid=abc depth=1 name=chip.run.bind ts=" + itoa(ts) + " dur=" + itoa(dur) + " \n"
	}
	// Two forked ranks share T0x value "aa" but their binds do not overlap
	// in time; a third thread "bb" writes lines inside both.
	text := env("aa") + "bind phase=args start_ns=1000 dur_ns=10 \n" +
		env("bb") + "bind phase=args start_ns=1100 dur_ns=10 \n" +
		env("aa") + "bind phase=host_orch start_ns=1020 dur_ns=10 \n" +
		env("aa") + "bind phase=arena_h2d start_ns=1040 dur_ns=10 \n" +
		env("aa") + "bind phase=host_view_close start_ns=1030 dur_ns=10 \n" +
		span("aa", 71, 1, 1000, 100) + span("aa", 72, 1, 1000, 500) +
		env("bb") + "bind phase=host_orch start_ns=1110 dur_ns=10 \n"
	l := readText(t, text)
	passes := GroupPasses(l.BindPhases)
	require.Len(t, passes, 2)
	AttachPasses(passes, l.Spans)
	require.NotNil(t, passes[0].Bind)
	assert.Equal(t, int64(71), passes[0].Bind.Pid)
	assert.Equal(t, []string{"args", "host_orch", "arena_h2d", "host_view_close"}, phasesOf(passes[0]))
	require.NotNil(t, passes[1].Bind)
	assert.Equal(t, int64(72), passes[1].Bind.Pid)
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestPassGrouperStreams(t *testing.T) {
	var lines []BindPhase
	for r := 0; r < 5; r++ {
		for _, th := range []string{"a", "b", "c"} {
			if th == "c" && r%2 == 1 {
				continue // c binds every other round
			}
			for k, seg := range []string{"args", "host_orch", "graph_upload", "host_view_close"} {
				lines = append(lines, bp(th, seg, int64(100*r+k), 1))
			}
		}
	}
	want := GroupPasses(lines)
	require.Len(t, want, 13)

	got := make([]Pass, 13)
	var order []int
	open := 0 // passes started and not yet complete, at most one per thread
	g := NewPassGrouper(func(i int, p Pass) {
		p.Segments = append([]BindPhase(nil), p.Segments...) // the grouper reuses them
		got[i] = p
		order = append(order, i)
		open--
	})
	for i := range lines {
		before := g.Len()
		g.Add(&lines[i])
		open += g.Len() - before
		assert.LessOrEqual(t, open, 3, "a finished pass is handed over at once")
	}
	g.Close()
	assert.Equal(t, want, got)
	assert.ElementsMatch(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, order)
	assert.Equal(t, 0, open)
}

func TestFindBindsOnBindSpansOnly(t *testing.T) {
	spans := []Span{
		{Name: "chip.run.bind", Ts: 0, Dur: 100, Thread: "a", Pid: 1, Inv: 1},
		{Name: "chip.run", Ts: 0, Dur: 1000, Thread: "a", Pid: 1, Inv: 1},
		{Name: "chip.run.bind", Ts: 200, Dur: 100, Thread: "b", Pid: 2, Inv: 1},
		{Name: "simpler_run.bind", Ts: 400, Dur: 100, Thread: "a", Pid: 1, Inv: 2},
		{Name: "chip.run.bind", Ts: 600, Dur: 100, Thread: "a", Attrs: "clk=dev", Pid: 9, Inv: 9},
	}
	passes := []Pass{
		{Thread: "a", Segments: []BindPhase{bp("a", "args", 10, 5), bp("a", "host_orch", 20, 5)}},
		{Thread: "a", Segments: []BindPhase{bp("a", "args", 210, 5)}}, // only b's bind holds it
		{Thread: "a", Segments: []BindPhase{bp("a", "args", 410, 5)}},
		{Thread: "a", Segments: []BindPhase{bp("a", "args", 610, 5)}}, // a device span is no bind
		{Thread: "a"},
	}
	AttachPasses(passes, spans)
	var binds []Span
	var ext0 []BindExtent
	for i := range spans {
		if IsBindSpan(&spans[i]) {
			binds = append(binds, spans[i])
			ext0 = append(ext0, BindExtentOf(&spans[i]))
		}
	}
	ext := make([]PassExtent, len(passes))
	for i, p := range passes {
		ext[i] = PassExtent{Thread: p.Thread, Empty: len(p.Segments) == 0}
		ext[i].Start, ext[i].End = p.Span()
	}
	idx := FindBinds(ext, ext0)
	require.Len(t, idx, len(passes))
	for i, p := range passes {
		if p.Bind == nil {
			assert.Equal(t, -1, idx[i], "pass %d", i)
			continue
		}
		require.GreaterOrEqual(t, idx[i], 0, "pass %d", i)
		assert.Equal(t, *p.Bind, binds[idx[i]], "pass %d", i)
	}
	assert.Equal(t, []int{0, 1, 2, -1, -1}, idx)
}

// TestBucketLabelFastPathAgrees checks that BucketLabel on BucketByHid's own
// slice (constant time) labels as it does on a copy (the linear path).
func TestBucketLabelFastPathAgrees(t *testing.T) {
	for seed := range 200 {
		var spans []Span
		n := 1 + seed%17
		for i := range 3 * n {
			hid := fmt.Sprintf("%x", 0xabcdef00+(i*7+seed)%n)
			spans = append(spans, Span{Pid: 1, Inv: uint64(i + 1), Hid: hid, Name: "chip.run"})
			if (i+seed)%3 == 0 {
				spans = append(spans, Span{Pid: 1, Inv: uint64(i + 1000), Hid: hid, Name: "chip.run"})
			}
		}
		buckets := BucketByHid(GroupInvocations(InvocationSpans(spans)))
		cp := append([]*Bucket(nil), buckets...)
		for i := range buckets {
			if got, want := BucketLabel(buckets, i), BucketLabel(cp, i); got != want {
				t.Fatalf("seed %d bucket %d: %q, copy %q", seed, i, got, want)
			}
		}
		// Reordered, the labels follow the new order's busiest.
		rev := append([]*Bucket(nil), buckets...)
		slices.Reverse(rev)
		b := Busiest(rev)
		if len(rev[b].Invs) > 1 && BucketLabel(rev, b) != "decode" {
			t.Fatalf("seed %d: reversed busiest not decode", seed)
		}
	}
}

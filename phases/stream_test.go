package phases

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/internal/perflog"
	"github.com/hbgkit/hbgkit/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// streamInputs are logs of every shape the views read: the generation
// fixtures, the conformance inputs, a perflog log and a log with legacy
// names, equal starts and interleaved ranks.
func streamInputs(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	files, err := filepath.Glob("../fixtures/*.log")
	require.NoError(t, err)
	more, err := filepath.Glob("../fixtures/conformance/*/*.log")
	require.NoError(t, err)
	for _, f := range append(files, more...) {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		out[f] = b
	}
	require.Greater(t, len(out), 10)
	out["perflog"] = perflog.Generate(400 << 10)

	var b strings.Builder
	span := func(pid, inv int, hid, name string, ts, dur int, attrs string) {
		fmt.Fprintf(&b, "[mono_ns=1][T0x%x][TIMING] emit_host_span: [STRACE] v=1 pid=%d tid=%d inv=%d hid=%s depth=1 name=%s ts=%d dur=%d %s\n",
			pid, pid, pid, inv, hid, name, ts, dur, attrs)
	}
	for inv := 1; inv <= 30; inv++ {
		for _, pid := range []int{7, 3} {
			hid := "aa"
			if inv%7 == 0 {
				hid = "bb"
			}
			span(pid, inv, hid, "chip.run.validate", 10, 1, "")
			span(pid, inv, "cc", "chip.run", 100, 50+inv, "")
			span(pid, inv, hid, "chip.run", 100, 60+inv, "") // same start: the first wins
			span(pid, inv, hid, "chip.run", 110, 70+inv, "")
			if inv%3 == 0 {
				span(pid, inv, hid, "chip.run", 90, 80+inv, "") // earlier: wins
			}
			span(pid, inv, hid, "simpler_run.runner_run.device_wall", 0, 40+inv, "clk=dev")
			span(pid, inv, hid, "simpler_run.runner_run.device_wall.orch", 5, 10, "clk=dev")
			span(pid, inv, hid, "chip.run.runner_run.device_wall.sched", 8, 12, "clk=dev")
			span(pid, inv, hid, "simpler_run.runner_run.device_wall.sched", 1, 30, "clk=dev")
			span(pid, inv, hid, "node.submit", 1, 1, "")
		}
		span(9, inv, "dd", "simpler_run", 1, 5, "")
	}
	out["legacy"] = []byte(b.String())
	return out
}

func readBytes(t *testing.T, name string, data []byte) *trace.Log {
	t.Helper()
	l, err := trace.ReadLog([]trace.Source{trace.ReaderSource(name, bytes.NewReader(data))})
	require.NoError(t, err)
	return l
}

func TestRoundsCollectorMatchesComputeRounds(t *testing.T) {
	for name, data := range streamInputs(t) {
		t.Run(name, func(t *testing.T) {
			l := readBytes(t, name, data)
			invs := trace.GroupInvocations(trace.InvocationSpans(l.Spans))
			c := NewRoundsCollector()
			for i := range l.Spans {
				c.Add(&l.Spans[i])
			}
			r := c.Rounds()
			// Reading only the spans the table reads, and each
			// invocation's first, gives the same tables.
			lean := NewRoundsCollector()
			_, err := trace.StreamLog([]trace.Source{trace.ReaderSource(name, bytes.NewReader(data))},
				trace.ReadOptions{Workers: 2, KeepSpan: RoundsReads, FirstSpans: RoundsSpan}, trace.Visitors{Span: lean.Add})
			require.NoError(t, err)
			assert.Equal(t, r, lean.Rounds())
			assert.Equal(t, c.RoundsPerRank(), lean.RoundsPerRank())
			assert.Equal(t, ComputeRounds(invs), r)
			assert.Equal(t, ComputeRoundsPerRank(invs), c.RoundsPerRank())
			// Independently of the reduction both share: each cell is the
			// earliest span of its name (Invocation.Lookup), current
			// names before legacy ones.
			byKey := map[[2]uint64]*trace.Invocation{}
			for _, iv := range invs {
				byKey[[2]uint64{uint64(iv.Pid), iv.Inv}] = iv
			}
			lookup := func(iv *trace.Invocation, suffix string) float64 {
				s := iv.Lookup("chip.run" + suffix)
				if s == nil {
					s = iv.Lookup("simpler_run" + suffix)
				}
				if s == nil {
					return 0
				}
				return float64(s.Dur) / 1000
			}
			for i, row := range r.Rows {
				iv := byKey[[2]uint64{uint64(row.Pid), row.Inv}]
				require.NotNil(t, iv)
				assert.Equal(t, lookup(iv, ""), r.Column(MetricHost).Values[i], "row %d host", i)
				if col := r.Column(MetricDevice); col != nil {
					assert.Equal(t, lookup(iv, ".runner_run.device_wall"), col.Values[i], "row %d device", i)
				}
				if col := r.Column(MetricSched); col != nil {
					assert.Equal(t, lookup(iv, ".runner_run.device_wall.sched"), col.Values[i], "row %d sched", i)
				}
			}
		})
	}
}

func TestBindPassCollectorMatchesCollectBindPasses(t *testing.T) {
	for name, data := range streamInputs(t) {
		t.Run(name, func(t *testing.T) {
			l := readBytes(t, name, data)
			want := CollectBindPasses(l, nil)
			for i := range want {
				segs := append([]Segment(nil), want[i].Segments...)
				for j := range segs {
					segs[j].Attrs = ""
					segs[j].Pos = trace.Pos{}
					segs[j].Capped = false
				}
				want[i].Segments = segs
				want[i].Orch = nil
			}
			// The collector sees the records in log order, spans and
			// lines interleaved as the log has them.
			c := NewBindPassCollector()
			_, err := trace.StreamLog([]trace.Source{trace.ReaderSource(name, bytes.NewReader(data))},
				trace.ReadOptions{Workers: 2, KeepSpan: BindPassSpan}, trace.Visitors{Span: c.Span, BindPhase: c.BindPhase})
			require.NoError(t, err)
			got := c.Passes()
			if len(want) == 0 {
				assert.Empty(t, got)
				return
			}
			assert.Equal(t, want, got)
		})
	}
}

func TestMergeBindPassesSharesOnlyWhatItMayShare(t *testing.T) {
	a := []BindPass{{Pid: 1, Inv: 1, Known: true, Segments: []Segment{{Name: trace.SegArgs, Ts: 1, Dur: 1}}}}
	b := []BindPass{
		{Pid: 1, Inv: 1, Known: true, Segments: []Segment{{Name: trace.SegArgs, Ts: 5, Dur: 5}, {Name: trace.SegHostOrch, Ts: 2, Dur: 2}}},
		{Pid: 1, Inv: 1, Known: true, Segments: []Segment{{Name: trace.SegHostOrch, Ts: 3, Dur: 3}}},
	}
	got := MergeBindPasses(a, b)
	require.Len(t, got, 1)
	assert.Equal(t, []Segment{{Name: trace.SegArgs, Ts: 1, Dur: 1}, {Name: trace.SegHostOrch, Ts: 2, Dur: 2}, {Name: trace.SegHostOrch, Ts: 3, Dur: 3}}, got[0].Segments)
	// The first source's slice is shared, but appending copied it.
	assert.Len(t, a[0].Segments, 1)
	assert.Equal(t, Segment{Name: trace.SegArgs, Ts: 1, Dur: 1}, a[0].Segments[0])
}

func TestBindPassCollectorAccounting(t *testing.T) {
	active := 0
	for name, data := range streamInputs(t) {
		t.Run(name, func(t *testing.T) {
			l := readBytes(t, name, data)
			rounds := ComputeRounds(trace.GroupInvocations(trace.InvocationSpans(l.Spans)))
			want := ComputeAccounting(BindPassesForRows(CollectBindPasses(l, nil), rounds.Rows))

			c := NewBindPassCollector()
			c.KeepEvidence()
			_, err := trace.StreamLog([]trace.Source{trace.ReaderSource(name, bytes.NewReader(data))},
				trace.ReadOptions{Workers: 2}, trace.Visitors{Span: c.Span, BindPhase: c.BindPhase})
			require.NoError(t, err)
			got := c.Accounting(rounds.Rows)
			// The evidence of the rows is the batch's, read from the
			// segments' whole attributes.
			rows := BindPassesForRows(CollectBindPasses(l, nil), rounds.Rows)
			wantEv := NewEvidenceTable(len(rows), func(i int) BindPass { return rows[i] }, true)
			assert.Equal(t, wantEv, c.Evidence(rounds.Rows))
			if want.Active() {
				active++
			}

			assert.Equal(t, want.Metrics, got.Metrics)
			assert.Equal(t, want.Cold, got.Cold)
			assert.Equal(t, want.Blocks(), got.Blocks())
			assert.Equal(t, want.Visible(), got.Visible())
			require.Len(t, got.Passes, len(want.Passes))
			for i := range want.Passes {
				assert.Equal(t, BindPass{Pid: want.Passes[i].Pid, Inv: want.Passes[i].Inv, Known: want.Passes[i].Known}, got.Passes[i])
			}
		})
	}
	assert.GreaterOrEqual(t, active, 6, "inputs with an HBG accounting")
}

func TestComputeAccountingOfManyPasses(t *testing.T) {
	// Enough rows that the metrics are computed on several goroutines.
	var passes []BindPass
	for i := range 5000 {
		p := BindPass{Pid: int64(i % 3), Inv: uint64(i), Known: i%7 != 0}
		ts := int64(1000 * i)
		for k, seg := range []string{trace.SegArgs, trace.SegHostOrch, trace.SegH2dGraph, trace.SegArenaH2d, trace.SegHostViewClose} {
			if (i+k)%11 == 0 {
				continue // some rounds lack a stage
			}
			p.Segments = append(p.Segments, Segment{Name: seg, Ts: ts + int64(10*k), Dur: int64(5 + i%13)})
		}
		passes = append(passes, p)
	}
	want := ComputeAccounting(passes)
	got := ComputeAccountingOf(len(passes), func(i int, _ []Segment) BindPass { return passes[i] })
	// Built in each goroutine's scratch, as BindPassCollector does.
	scratch := ComputeAccountingOf(len(passes), func(i int, buf []Segment) BindPass {
		p := passes[i]
		p.Segments = append(buf, p.Segments...)
		return p
	})
	assert.Equal(t, want.Metrics, scratch.Metrics)
	assert.Equal(t, want.Metrics, got.Metrics)
	assert.Equal(t, want.Cold, got.Cold)
	assert.Equal(t, want.Blocks(), got.Blocks())
	assert.Equal(t, want.Warnings(), got.Warnings())
	for i := range passes {
		require.Equal(t, BindPass{Pid: passes[i].Pid, Inv: passes[i].Inv, Known: passes[i].Known}, got.Passes[i])
		require.Equal(t, ComputePassMetrics(passes[i]), got.Metrics[i], "pass %d", i)
	}
}

func TestSpreadCollectorMatchesSnapshotBindSpread(t *testing.T) {
	inputs := streamInputs(t)
	// A pass with a phase outside every vocabulary, and one written twice.
	inputs["odd"] = []byte("[mono_ns=1][T0xa][TIMING] f: [x.cpp:1] bind phase=args start_ns=1 dur_ns=100\n" +
		"[mono_ns=1][T0xa][TIMING] f: [x.cpp:1] bind phase=mystery start_ns=2 dur_ns=200\n" +
		"[mono_ns=1][T0xa][TIMING] f: [x.cpp:1] bind phase=host_orch start_ns=3 dur_ns=300\n" +
		"[mono_ns=1][T0xa][TIMING] f: [x.cpp:1] bind phase=mystery start_ns=4 dur_ns=400\n" +
		"[mono_ns=1][T0xa][TIMING] f: [x.cpp:1] bind phase=args start_ns=5 dur_ns=500\n" +
		"[mono_ns=1][T0xa][TIMING] f: [x.cpp:1] bind phase=host_orch start_ns=6 dur_ns=600\n" +
		"[mono_ns=1][T0xa][TIMING] f: [x.cpp:1] bind phase=graph_upload start_ns=7 dur_ns=700\n")
	compared := 0
	for name, data := range inputs {
		l := readBytes(t, name, data)
		for _, opts := range []BindSpreadOptions{{}, {Ranks: 2, RanksSet: true}, {Rounds: 3}, {KeepFirst: true}, {Ranks: 1000, RanksSet: true}} {
			t.Run(fmt.Sprintf("%s/%+v", name, opts), func(t *testing.T) {
				want, wantErr := SnapshotBindSpread(SnapshotBindPasses(l.BindPhases), opts)
				c := NewSpreadCollector(true)
				for i := range l.BindPhases {
					c.BindPhase(&l.BindPhases[i])
				}
				got, err := c.Spread(opts)
				require.Equal(t, wantErr, err)
				if wantErr != nil {
					return
				}
				compared++
				assert.Equal(t, want.AccountingSpread(), got.AccountingSpread())
				assert.Equal(t, want.EvidenceTable(), got.EvidenceTable())
				want.WarmPasses = nil
				got.warmMetrics, got.warmEvidence = nil, nil
				assert.Equal(t, want, got)
			})
		}
	}
	assert.Greater(t, compared, 10)
}

func TestInvocationsCollectorMatchesTPOTAndTree(t *testing.T) {
	for name, data := range streamInputs(t) {
		t.Run(name, func(t *testing.T) {
			l := readBytes(t, name, data)
			invs := trace.GroupInvocations(trace.InvocationSpans(l.Spans))
			c := NewInvocationsCollector(true)
			_, err := trace.StreamLog([]trace.Source{trace.ReaderSource(name, bytes.NewReader(data))},
				trace.ReadOptions{Workers: 2, KeepSpan: RoundsSpan}, trace.Visitors{Span: c.Add})
			require.NoError(t, err)
			assert.Equal(t, ComputeTPOT(invs), c.TPOT())
			assert.Equal(t, ComputeTree(invs), c.Tree())
		})
	}
}

func TestSummaryIsRootAndByName(t *testing.T) {
	for name, data := range streamInputs(t) {
		t.Run(name, func(t *testing.T) {
			l := readBytes(t, name, data)
			invs := trace.GroupInvocations(trace.InvocationSpans(l.Spans))
			sm := summarize(invs)
			require.Len(t, sm.invs, len(invs))
			for i, iv := range invs {
				is := sm.invs[i]
				if r := iv.Root(); r != nil {
					assert.True(t, is.hasRoot)
					assert.Equal(t, r.Dur, is.root)
				} else {
					assert.False(t, is.hasRoot)
				}
				m := iv.ByName()
				require.Len(t, is.names, len(m))
				for _, ns := range is.names {
					s := m[sm.names[ns.name]]
					require.NotNil(t, s)
					assert.Equal(t, nameSpan{ts: s.Ts, dur: s.Dur, name: ns.name, top: s.Depth == 0}, ns)
				}
			}
		})
	}
}

// refPassMetrics is ComputePassMetrics as first written (one pass per
// stage and name): the oracle of the per-code version.
func refAcctContains(segs []Segment, o, i int) bool {
	if o == i {
		return false
	}
	a, b := &segs[o], &segs[i]
	if a.Ts > b.Ts || b.End() > a.End() {
		return false
	}
	if a.Ts == b.Ts && a.End() == b.End() {
		// docs/accounting.md "2. Per-pass stages": host_orch (or setup/entry)
		// contains an H2D copy of its interval; else the segment listed first
		// in bpcSegNames.
		orch := []string{trace.SegHostOrch, trace.SegHostOrchSetup, trace.SegHostOrchEntry}
		if ao, bo := refNameIn(a.Name, orch), refNameIn(b.Name, orch); ao != bo && (trace.IsH2D(a.Name) || trace.IsH2D(b.Name)) {
			return ao
		}
		ia, ib := slices.Index(bpcSegNames[:], a.Name), slices.Index(bpcSegNames[:], b.Name)
		if ia != ib {
			return ia < ib
		}
		return o < i
	}
	return true
}

func refPassMetrics(p BindPass) PassMetrics {
	var m PassMetrics
	segs := make([]Segment, 0, len(p.Segments))
	for _, s := range p.Segments {
		if name, ok := trace.CanonicalSegment(s.Name); ok {
			s.Name = name
			segs = append(segs, s)
		}
	}
	n := len(segs)
	topKind := make([]bool, n) // no segment of the same kind contains it
	topH2D := make([]bool, n)  // an H2D copy no other H2D copy contains
	for i := range segs {
		topKind[i], topH2D[i] = true, trace.IsH2D(segs[i].Name)
		for o := range segs {
			if !refAcctContains(segs, o, i) {
				continue
			}
			if acctKind(segs[o].Name) == acctKind(segs[i].Name) {
				topKind[i] = false
			}
			if trace.IsH2D(segs[o].Name) {
				topH2D[i] = false
			}
		}
	}
	// sum adds the durations of the top-of-kind segments named in names
	// and reports whether any segment of those names exists.
	sum := func(names ...string) (int64, bool) {
		var v int64
		rec := false
		for i := range segs {
			for _, nm := range names {
				if segs[i].Name == nm {
					rec = true
					if topKind[i] {
						v += segs[i].Dur
					}
				}
			}
		}
		return v, rec
	}
	set := func(s BindStage, v int64, rec bool) { m.Value[s], m.Recorded[s] = v, rec }

	// put sets s from the segments named in names and reports whether any
	// was written.
	put := func(s BindStage, names ...string) bool {
		v, rec := sum(names...)
		set(s, v, rec)
		return rec
	}
	put(StageArgs, trace.SegArgs)
	if !put(StagePrebuilt, trace.SegPrebuilt) {
		put(StagePrebuilt, trace.SegArenaBuild, trace.SegStaticArena, trace.SegGmHeap, trace.SegSharedMem, trace.SegRuntimeInit)
	}
	put(StageGraphPack, trace.SegGraphPack)
	put(StageRelocate, trace.SegRelocate)
	put(StageH2dGraph, trace.SegH2dGraph, trace.SegGraphUpload)
	put(StageH2dSm, trace.SegSmH2d)
	put(StageH2dArena, trace.SegArenaH2d)
	put(StageViewClose, trace.SegHostViewClose)

	var image int64
	imageRec := false
	for i := range segs {
		if trace.IsH2D(segs[i].Name) {
			imageRec = true
			if topH2D[i] {
				image += segs[i].Dur
			}
		}
	}
	set(StageH2dImage, image, imageRec)

	orchNames := []string{trace.SegHostOrch}
	orch, orchRec := sum(trace.SegHostOrch)
	if !orchRec {
		orchNames = []string{trace.SegHostOrchSetup, trace.SegHostOrchEntry}
		orch, orchRec = sum(orchNames...)
	}
	if orchRec {
		var inside int64
		for i := range segs {
			if !topH2D[i] {
				continue
			}
			for o := range segs {
				if refNameIn(segs[o].Name, orchNames) && refAcctContains(segs, o, i) {
					inside += segs[i].Dur
					break
				}
			}
		}
		set(StageHostOrch, max(0, orch-inside), true)
	}

	gate := m.Value[StageHostOrch] + m.Value[StageH2dImage]
	set(StageGate, gate, m.Recorded[StageHostOrch] || m.Recorded[StageH2dImage])
	set(StageControlPlane, gate+m.Value[StageGraphPack]+m.Value[StageRelocate],
		m.Recorded[StageGate] || m.Recorded[StageGraphPack] || m.Recorded[StageRelocate])
	return m
}
func refNameIn(name string, names []string) bool {
	for _, n := range names {
		if name == n {
			return true
		}
	}
	return false
}

func TestComputePassMetricsMatchesReference(t *testing.T) {
	names := append([]string{"h2d_sm", "h2d_arena", "orch_h2d_pipe", "host_orch.record_node"}, bpcSegNames[:]...)
	rng := rand.New(rand.NewSource(7))
	for k := 0; k < 20000; k++ {
		var p BindPass
		n := rng.Intn(12)
		if k%50 == 0 {
			n = 40 + rng.Intn(20) // more segments than the inline buffers
		}
		for i := 0; i < n; i++ {
			ts := int64(rng.Intn(60))
			dur := int64(rng.Intn(40))
			if rng.Intn(5) == 0 && len(p.Segments) > 0 {
				// Often nested in, or equal to, an earlier segment.
				o := p.Segments[rng.Intn(len(p.Segments))]
				ts, dur = o.Ts+int64(rng.Intn(int(o.Dur)+1)), int64(rng.Intn(int(o.Dur)+1))
				if ts+dur > o.End() {
					dur = o.End() - ts
				}
			}
			p.Segments = append(p.Segments, Segment{Name: names[rng.Intn(len(names))], Ts: ts, Dur: dur})
		}
		require.Equal(t, refPassMetrics(p), ComputePassMetrics(p), "pass %d: %+v", k, p.Segments)
	}
}

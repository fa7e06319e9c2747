package phases

import "github.com/hbgkit/hbgkit/trace"

// The batch twins of the streaming collectors, kept as test oracles: each
// computes over a whole trace.Log (or its grouped invocations) what a
// collector computes from the stream, and the tests check that the two
// agree. No production code needs them.

// ComputeAccounting computes the accounting of passes given in the row order of the
// rounds table: each pass is one round, named by its index. The cold
// rounds are the first pass of each pid in that order, the warm rounds the
// rest.
func ComputeAccounting(passes []BindPass) *Accounting {
	return computeAccounting(passes, len(passes), func(i int, _ []Segment) BindPass { return passes[i] })
}

// Passes returns the passes of the records given, as
// CollectBindPasses(log, records) returns them but without Attrs. Call it at
// the end: no record may be given after it.
func (c *BindPassCollector) Passes() []BindPass {
	c.finish()
	lines := make([]BindPass, len(c.lines))
	for i := range c.lines {
		lines[i] = c.lines[i].pass(nil, c.uncut)
	}
	return MergeBindPasses(c.spanPasses, lines, c.recordList)
}

// BindPassesForRows returns one pass per row of a rounds table, in row
// order: the pass of the row's (pid, inv), or an empty pass with that key
// when the log has no bind segments for it. The result is what
// ComputeAccounting takes.
func BindPassesForRows(passes []BindPass, rows []RoundRow) []BindPass {
	idx := make(map[acctKey]int, len(passes))
	for i, p := range passes {
		if p.Known {
			if _, dup := idx[acctKey{p.Pid, p.Inv}]; !dup {
				idx[acctKey{p.Pid, p.Inv}] = i
			}
		}
	}
	out := make([]BindPass, len(rows))
	for r, row := range rows {
		if i, ok := idx[acctKey{row.Pid, row.Inv}]; ok {
			out[r] = passes[i]
			continue
		}
		out[r] = BindPass{Pid: row.Pid, Inv: row.Inv, Known: true}
	}
	return out
}

// SnapshotBindPasses groups `bind phase=` lines into passes with
// trace.GroupPasses and keeps the passes that have host_orch, in log order
// (the order of their first line).
//
// A pass is the run of lines one log thread wrote in enum order, so unlike
// the reference, which closes a pass at arena_h2d, host_view_close stays in
// the pass it was written with (conformance/README.md).
func SnapshotBindPasses(lines []trace.BindPhase) []SpreadPass {
	var out []SpreadPass
	for _, g := range trace.GroupPasses(lines) {
		p := SpreadPass{Thread: g.Thread}
		for i := range g.Segments {
			l := &g.Segments[i]
			p.add(l.Phase, l.StartNs, l.DurNs, l.Attrs, l.Pos)
		}
		if bindPassHasOrch(&p) {
			out = append(out, p)
		}
	}
	return out
}

// summarize reduces invocations (sorted by (pid, inv), as
// trace.GroupInvocations makes them) to summaries.
func summarize(invs []*trace.Invocation) *summaries {
	sm := newSummaries()
	for _, iv := range invs {
		is := &invSummary{pid: iv.Pid, inv: iv.Inv, hid: iv.Hid}
		for _, s := range iv.Spans {
			sm.add(is, s)
		}
		sm.invs = append(sm.invs, is)
	}
	return sm
}

// Column returns the column named metric, or nil.
func (r *Rounds) Column(metric string) *Column {
	for i := range r.Columns {
		if r.Columns[i].Name == metric {
			return &r.Columns[i]
		}
	}
	return nil
}

// ComputeRoundsPerRank builds one rounds table per pid (ascending), each
// over that pid's invocations of the busiest callable of all pids.
func ComputeRoundsPerRank(invs []*trace.Invocation) []RankRounds {
	return roundsPerRank(reduceInvocations(invs))
}

// ComputeTPOT builds the TPOT table of invocations (trace.GroupInvocations
// over trace.InvocationSpans). Every invocation counts, whatever its root's
// name.
func ComputeTPOT(invs []*trace.Invocation) *TPOT {
	return tpotOf(summarize(invs))
}

// ComputeTree builds the median tree of invocations (trace.GroupInvocations
// over trace.InvocationSpans).
func ComputeTree(invs []*trace.Invocation) *Tree {
	sm := summarize(invs)
	orig := make(map[*invSummary]*trace.Invocation, len(invs))
	for i, is := range sm.invs {
		orig[is] = invs[i]
	}
	return treeOf(sm, func(is *invSummary) []refSpan {
		var out []refSpan
		for _, s := range orig[is].Spans {
			out = append(out, refSpan{ts: s.Ts, name: sm.nameIndex(s.Name), dev: s.IsDevice()})
		}
		return out
	})
}

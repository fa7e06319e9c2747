package swimlane

import (
	"fmt"
	"io"
	"testing"

	"github.com/hbgkit/hbgkit/trace"
)

// benchLog is a TMR-like log of n phased runs on four ranks, with node
// submit/dispatch pairs.
func benchLog(n int) *trace.Log {
	l := &trace.Log{}
	ts := int64(1_000_000)
	for inv := 1; inv <= n; inv++ {
		pid := int64(81234 + inv%4)
		for _, s := range []struct {
			name  string
			depth int64
			attrs string
		}{
			{"chip.run.bind", 1, ""},
			{"chip.run.bind.host_orch", 2, "tasks=47 heap_used=127673344 minflt=12 cpu_ns=1890000"},
			{"chip.run.runner_run", 1, ""},
			{"chip.run.runner_run.device_wall", 2, "clk=dev"},
			{"chip.run", 0, fmt.Sprintf("run_id=%d dispatch_id=%d slot_id=%d generation=3 run_epoch=%d", inv, inv, inv%2, inv)},
		} {
			l.Spans = append(l.Spans, trace.Span{Pid: pid, Tid: pid + 6, Inv: uint64(inv), Hid: "9c1e4f03a2b7d655",
				Depth: s.depth, Name: s.name, Ts: ts, Dur: 50_000, Attrs: s.attrs})
			ts += 1000
		}
		l.Spans = append(l.Spans,
			trace.Span{Pid: 80001, Tid: 80006, Inv: uint64(inv), Hid: "0", Name: "node.submit", Ts: ts - 500, Dur: 100,
				Attrs: fmt.Sprintf("run_id=%d task_slot=12 group_index=0 role=facade", inv)},
			trace.Span{Pid: 80001, Tid: 80007, Inv: uint64(inv), Hid: "0", Name: "node.dispatch", Ts: ts, Dur: 8120,
				Attrs: fmt.Sprintf("run_id=%d task_slot=12 group_index=0 worker_id=3 dispatch_id=99 role=scheduler", inv)})
	}
	return l
}

func BenchmarkSwimlane(b *testing.B) {
	l := benchLog(20_000)
	b.ReportAllocs()
	for b.Loop() {
		if err := Build(l, nil).WriteJSON(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(l.Spans))*float64(b.N)/b.Elapsed().Seconds(), "spans/s")
}

func BenchmarkChromeTrace(b *testing.B) {
	l := benchLog(20_000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := WriteChromeTrace(io.Discard, l); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(l.Spans))*float64(b.N)/b.Elapsed().Seconds(), "spans/s")
}

package trace_test

import (
	"bytes"
	"testing"

	"github.com/hbgkit/hbgkit/internal/perflog"
	"github.com/hbgkit/hbgkit/trace"
)

func BenchmarkReader(b *testing.B) {
	data := perflog.Generate(10 << 20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := trace.NewReader([]trace.Source{trace.ReaderSource("perf.log", bytes.NewReader(data))})
		n := 0
		for r.Scan() {
			n++
		}
		if r.Err() != nil || n == 0 {
			b.Fatalf("%d records, %v", n, r.Err())
		}
	}
}

func BenchmarkReadLog(b *testing.B) {
	data := perflog.Generate(10 << 20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l, err := trace.ReadLog([]trace.Source{trace.ReaderSource("perf.log", bytes.NewReader(data))})
		if err != nil || len(l.Spans) == 0 {
			b.Fatal(err)
		}
	}
}

func TestGenPerfLogParses(t *testing.T) {
	data := perflog.Generate(200 << 10)
	l, err := trace.ReadLog([]trace.Source{trace.ReaderSource("perf.log", bytes.NewReader(data))})
	if err != nil {
		t.Fatal(err)
	}
	if l.Heads != len(l.Spans) || len(l.Spans) == 0 || len(l.BindPhases)%10 != 0 || len(l.Anchors) != 3 || l.Stamp == nil {
		t.Fatalf("heads %d spans %d binds %d anchors %d", l.Heads, len(l.Spans), len(l.BindPhases), len(l.Anchors))
	}
	passes := trace.GroupPasses(l.BindPhases)
	trace.AttachPasses(passes, l.Spans)
	for _, p := range passes {
		if p.Bind == nil || len(p.Segments) != 10 {
			t.Fatalf("pass %+v", p)
		}
	}
}

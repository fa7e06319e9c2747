package trace_test

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/hbgkit/hbgkit/internal/perflog"
	"github.com/hbgkit/hbgkit/trace"
)

// BenchmarkReader reads a 10 MB log record by record on one goroutine. It
// reports allocations per record besides the usual per-op figures.
func BenchmarkReader(b *testing.B) {
	benchReader(b, trace.ReadOptions{})
}

// BenchmarkReaderParallel is BenchmarkReader with GOMAXPROCS workers.
func BenchmarkReaderParallel(b *testing.B) {
	benchReader(b, trace.ReadOptions{Workers: runtime.GOMAXPROCS(0)})
}

// BenchmarkReaderBindPhases reads only the records `hbgtrace phases`
// reads of an E1 log: bind phases and stamps.
func BenchmarkReaderBindPhases(b *testing.B) {
	benchReader(b, trace.ReadOptions{Kinds: trace.Kinds(trace.KindBindPhase, trace.KindStamp)})
}

func benchReader(b *testing.B, opts trace.ReadOptions) {
	data := perflog.Generate(10 << 20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	records := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := trace.NewReaderOptions([]trace.Source{trace.ReaderSource("perf.log", bytes.NewReader(data))}, opts)
		n := 0
		for r.Scan() {
			n++
		}
		if r.Err() != nil || n == 0 {
			b.Fatalf("%d records, %v", n, r.Err())
		}
		r.Close()
		records += n
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(records), "allocs/record")
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

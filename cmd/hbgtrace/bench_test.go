package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hbgkit/hbgkit/internal/perflog"
)

// benchLog returns the path of the log the view benchmarks read:
// $HBG_PERF_LOG when set (for example a gen_perf.py log), else a 20 MB
// log from perflog written to a temporary directory.
func benchLog(b *testing.B) string {
	b.Helper()
	if p := os.Getenv("HBG_PERF_LOG"); p != "" {
		return p
	}
	p := filepath.Join(b.TempDir(), "perf.log")
	if err := os.WriteFile(p, perflog.Generate(20<<20), 0o644); err != nil {
		b.Fatal(err)
	}
	return p
}

// benchView runs `hbgtrace <args> LOG` b.N times, output discarded.
func benchView(b *testing.B, args ...string) {
	path := benchLog(b)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var stderr strings.Builder
		if code := run(append(args, path), strings.NewReader(""), io.Discard, &stderr); code != 0 {
			b.Fatalf("hbgtrace %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
		}
	}
}

func BenchmarkRounds(b *testing.B) { benchView(b, "rounds") }
func BenchmarkPhases(b *testing.B) { benchView(b, "phases", "--ranks", "2") }
func BenchmarkTPOT(b *testing.B)   { benchView(b, "tpot") }
func BenchmarkTree(b *testing.B)   { benchView(b, "tree") }

// BenchmarkTraceView writes the per-invocation Chrome trace of the log.
func BenchmarkTraceView(b *testing.B) {
	benchView(b, "trace", "-o", filepath.Join(b.TempDir(), "t.json"))
}

// BenchmarkDistinctCallables runs the per-callable views over logs of 10k,
// 100k and 1M distinct callables (perflog.Callables): the time per op
// should grow about tenfold a step (docs/performance.md).
func BenchmarkDistinctCallables(b *testing.B) {
	dir := b.TempDir()
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		path := filepath.Join(dir, fmt.Sprintf("callables-%d.log", n))
		// Written once, by the first sub-benchmark the -bench filter runs.
		size := sync.OnceValue(func() int64 {
			data := perflog.Callables(n)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				b.Fatal(err)
			}
			return int64(len(data))
		})
		for _, view := range [][]string{{"rounds"}, {"tpot"}, {"tree"}, {"trace", "-o", filepath.Join(dir, "t.json")}} {
			b.Run(fmt.Sprintf("%s/%dk", view[0], n/1000), func(b *testing.B) {
				b.SetBytes(size())
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					var stderr strings.Builder
					if code := run(append(view, path), strings.NewReader(""), io.Discard, &stderr); code != 0 {
						b.Fatalf("hbgtrace %s: exit %d: %s", view[0], code, stderr.String())
					}
				}
			})
		}
	}
}

// BenchmarkPprofView writes the span profile of the log.
func BenchmarkPprofView(b *testing.B) {
	benchView(b, "pprof", "-o", filepath.Join(b.TempDir(), "p.pb.gz"))
}

// BenchmarkSwimlaneView writes the swimlane of the log.
func BenchmarkSwimlaneView(b *testing.B) {
	benchView(b, "swimlane", "-o", filepath.Join(b.TempDir(), "sw.json"))
}

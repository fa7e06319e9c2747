package trace

import (
	"bytes"
	"testing"

	"github.com/hbgkit/hbgkit/internal/perflog"
)

// BenchmarkSpanLineParse parses the envelope and the span head of every
// span line of a perflog log, the per-line work of scanBrackets before the
// attributes, in ns/line (docs/performance.md: eight-byte digit and hex
// scans were measured with it, and lost).
func BenchmarkSpanLineParse(b *testing.B) {
	data := perflog.Generate(10 << 20)
	var lines [][]byte
	for _, ln := range bytes.Split(data, []byte("\n")) {
		if bytes.Contains(ln, tokStrace) && bytes.HasPrefix(ln, tokMonoNs) {
			lines = append(lines, ln)
		}
	}
	if len(lines) == 0 {
		b.Fatal("no span lines")
	}
	b.ResetTimer()
	var h spanHead
	n := 0
	for range b.N {
		for _, ln := range lines {
			_, e, ok := envelopeAt(ln, 0)
			i := bytes.Index(ln[e:], tokStrace)
			if !ok || i < 0 || !parseCanonicalHead(ln, e+i, &h) {
				b.Fatalf("%q does not parse", ln)
			}
			n += int(h.dur)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lines)), "ns/line")
}

package abreport

import (
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/hbgkit/hbgkit/internal/document"
)

// BenchName returns the Go benchmark name of a metric: "ControlPlane" is
// BenchmarkControlPlane, "phase.host_orch" BenchmarkPhase_host_orch.
func BenchName(metric string) string {
	n := strings.NewReplacer(".", "_", " ", "_").Replace(metric)
	r, size := utf8.DecodeRuneInString(n)
	return "Benchmark" + string(unicode.ToUpper(r)) + n[size:]
}

// WriteBenchfmt writes the analysed passes in the Go benchmark format, so
// that benchstat can cross-check the analysis: configuration lines first
// (hbgkit, design, primary, base, head, block-stat, cold, and cpus
// when --cpus pinned the blocks), then one line per
// counted warm pass and analysed metric, "BenchmarkControlPlane/arm=base 1
// 18812100 ns/op", one op being one pass (one bind); CPU time is
// cpu-ns/op, a count count/op, bytes B/op. `benchstat -col /arm`
// then compares base with head, passes taken as independent samples: a
// cross-check of the per-arm columns, never a substitute for the paired
// analysis.
func WriteBenchfmt(w io.Writer, a *analysis.Analysis, j *journal.Journal) error {
	h := a.Header
	ew := &document.ErrWriter{W: w}
	oneLine := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	benchfmtCheck(ew, a, oneLine)
	ew.Printf("hbgkit: %s\n", oneLine(h.Hbgkit))
	ew.Printf("design: %s\n", a.Design)
	ew.Printf("primary: %s\n", a.Primary)
	For(a).benchfmtArms(ew, oneLine)
	ew.Printf("block-stat: %s\n", h.Config.BlockStat)
	ew.Printf("cold: %d\n", h.Config.Cold)
	if h.Config.CPUs != "" {
		ew.Printf("cpus: %s\n", h.Config.CPUs)
	}
	if s := a.Sequential; s != nil {
		ew.Printf("until-decided: %s\n", benchLine(s))
	}
	benchfmtWarnings(ew, a, oneLine)
	ew.Printf("\n")
	names, metrics := h.ArmNames(), For(a).benchfmtMetrics()
	for _, cb := range j.Counted() {
		for i := range cb.Block.Passes {
			p := &cb.Block.Passes[i]
			if p.Index < h.Config.Cold {
				continue
			}
			for _, m := range metrics {
				v, ok := p.Value(m.Key)
				if !ok {
					continue
				}
				ew.Printf("%s/arm=%s 1 %s %s\n", BenchName(m.Name), names[cb.Arm], benchValue(v), benchUnit(m.Kind))
			}
		}
	}
	return ew.Err
}

// benchUnit is the benchfmt unit of a metric kind.
func benchUnit(k metric.MetricKind) string {
	switch k {
	case metric.KindCPU:
		return "cpu-ns/op"
	case metric.KindCount:
		return "count/op"
	case metric.KindBytes:
		return "B/op"
	}
	return "ns/op"
}

// benchValue writes a value exactly, as the fewest digits that read back
// as it; past analysis.MaxFixed in e-notation (which benchfmt readers
// parse), not as hundreds of digits.
func benchValue(v float64) string {
	if math.Abs(v) >= analysis.MaxFixed {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

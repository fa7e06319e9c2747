package phases

import "strings"

// A BindSource is where `hbgtrace phases` takes a log's binds from: its
// `bind phase=` lines (E1/E2, hbg_bind_phases' line-based tool) or its
// chip.run.bind.<segment> spans (E3, the span-based tool).
type BindSource struct {
	// Spans is true for the span-based source.
	Spans bool
	lines *SpreadCollector
	binds []SpreadPass
}

// ChooseBindSource decides between the two for a log whose bind-phase
// lines went to lines (lineCount of them) and whose E3 bind segments went
// to spans. The spans are used when the log has no `bind phase=` line but
// span binds with host_orch. Any other log, even one with a few
// chip.run.bind.<segment> spans that make no bind (a TMR log writes args
// and prebuilt), gets the line-based tool and its refusal, as
// conformance case 079 pins; so the span-based tool's own "no spans"
// refusal is never printed.
func ChooseBindSource(lineCount int, lines *SpreadCollector, spans *SpanBindSpans) BindSource {
	binds := SpanBindPasses(spans.Spans)
	if lineCount > 0 || len(binds) == 0 {
		return BindSource{lines: lines}
	}
	return BindSource{Spans: true, binds: binds}
}

// Spread returns the spread of the source's passes: for the lines, over
// opts (SpreadCollector.Spread); for the spans, the cold bind of each
// process dropped unless opts.KeepFirst (SpanBindSpread), the rank count
// being the number of processes. Call it once.
func (s BindSource) Spread(opts BindSpreadOptions) (*BindSpread, error) {
	if s.Spans {
		return SpanBindSpread(s.binds, opts.KeepFirst)
	}
	return s.lines.Spread(opts)
}

// AccountingWhat names the passes a spread's accounting is over, as its
// warning says (AccountingSpread.Warning): "warm passes", "passes (cold
// kept)" with keepFirst, "binds" for "passes" with the span-based source.
func (s BindSource) AccountingWhat(keepFirst bool) string {
	what := "warm passes"
	if keepFirst {
		what = "passes (cold kept)"
	}
	if s.Spans {
		what = strings.Replace(what, "passes", "binds", 1)
	}
	return what
}

package analysis

import (
	"fmt"

	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/hbgkit/hbgkit/abtest/stats"
)

// A Verdict is the call on one metric row in the words of the metric's
// kind: only time is faster or slower; a count is fewer or more, bytes
// fewer or more bytes, CPU time less or more CPU. It stays typed until a
// writer formats it: String and the JSON form give the words, and the
// predicates, never a word, say what it calls.
type Verdict struct {
	// Call is the statistical call (stats.Decide, Gate, or a sequential
	// look's).
	Call stats.Call
	// Kind is the metric's kind when Call is Faster or Slower, which
	// chooses the words; empty for the other calls.
	Kind metric.MetricKind
	// NA says the row has no analysis (MetricResult.Error): "n/a".
	NA bool
}

// NoVerdict is the verdict of a row with no analysis: "n/a".
var NoVerdict = Verdict{NA: true}

// VerdictOf returns the verdict c on a metric of kind k ("" is time).
func VerdictOf(c stats.Call, k metric.MetricKind) Verdict {
	if c != stats.Faster && c != stats.Slower {
		return Verdict{Call: c}
	}
	if k == "" {
		k = metric.KindTime
	}
	return Verdict{Call: c, Kind: k}
}

// String returns the words a report prints for v: "faster", "slower",
// "fewer", "more", "fewer bytes", "more bytes", "less CPU", "more CPU",
// "no change", "~ small", "bounded", "inconclusive" or "n/a".
func (v Verdict) String() string {
	if v.NA {
		return "n/a"
	}
	down, up := v.Kind.ChangeWords()
	switch v.Call {
	case stats.Faster:
		return down
	case stats.Slower:
		return up
	}
	return v.Call.String()
}

// IsIncrease reports whether v calls an increase beyond the margin:
// slower, or more of a count, bytes or CPU time.
func (v Verdict) IsIncrease() bool { return !v.NA && v.Call == stats.Slower }

// IsDecrease reports whether v calls a decrease beyond the margin.
func (v Verdict) IsDecrease() bool { return !v.NA && v.Call == stats.Faster }

// IsChange reports whether v calls a change beyond the margin, either
// way.
func (v Verdict) IsChange() bool { return v.IsIncrease() || v.IsDecrease() }

// IsSmall reports whether v calls a change that is real but inside the
// margin ("~ small").
func (v Verdict) IsSmall() bool { return !v.NA && v.Call == stats.Small }

// IsBounded reports whether v is a sequential campaign's stop for "no
// change" of --stop-within's bound or more ("bounded").
func (v Verdict) IsBounded() bool { return !v.NA && v.Call == stats.Bounded }

// IsInconclusive reports whether v concludes nothing: an inconclusive
// call, not a row without analysis.
func (v Verdict) IsInconclusive() bool { return !v.NA && v.Call == stats.Inconclusive }

// MarshalText writes v's words, as the JSON forms have always held them.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// verdictWords are the words of every verdict, for UnmarshalText.
var verdictWords = func() map[string]Verdict {
	out := map[string]Verdict{NoVerdict.String(): NoVerdict}
	for _, c := range stats.Calls() {
		for _, k := range []metric.MetricKind{metric.KindTime, metric.KindCPU, metric.KindCount, metric.KindBytes} {
			v := VerdictOf(c, k)
			out[v.String()] = v
		}
	}
	return out
}()

// UnmarshalText reads the words MarshalText writes.
func (v *Verdict) UnmarshalText(b []byte) error {
	w, ok := verdictWords[string(b)]
	if !ok {
		return fmt.Errorf("verdict %q: not a verdict", b)
	}
	*v = w
	return nil
}

// FailsOn reports whether v matches --fail-on mode: "slower" on any
// increase beyond the margin (slower, more, more bytes, more CPU),
// "change" on an increase or a decrease; nothing else matches.
func (v Verdict) FailsOn(mode string) bool {
	switch mode {
	case "slower":
		return v.IsIncrease()
	case "change":
		return v.IsChange()
	}
	return false
}

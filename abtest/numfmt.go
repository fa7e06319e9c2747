package abtest

import (
	"fmt"
	"math"
	"strings"
)

// pct formats a relative change as a signed percentage: "+3.1%".
func pct(x Num) string {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", 100*f)
}

// absPct formats the size of a relative change: "3.1%".
func absPct(x float64) string { return fmt.Sprintf("%.1f%%", 100*math.Abs(x)) }

func us(x Num) string {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "-"
	}
	return fmt.Sprintf("%.1f", f)
}

// value formats an arm's figure in its kind's unit: µs with one decimal,
// a count or bytes whole when it is whole.
func value(x Num, k MetricKind) string {
	f := float64(x)
	if (k == KindCount || k == KindBytes) && !math.IsNaN(f) && f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return fmt.Sprintf("%.0f", f)
	}
	return us(x)
}

func pval(x Num) string {
	f := float64(x)
	switch {
	case math.IsNaN(f):
		return "-"
	case f < 0.001:
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", f)
}

func ci(lo, hi Num) string {
	if math.IsNaN(float64(lo)) || math.IsNaN(float64(hi)) {
		return "-"
	}
	return "[" + pct(lo) + ", " + pct(hi) + "]"
}

// pIs formats a p for prose: "p=0.031", or "p<0.001" where the table's
// cell reads "<0.001" (never "p=<0.001").
func pIs(x Num) string {
	s := pval(x)
	if strings.HasPrefix(s, "<") {
		return "p" + s
	}
	return "p=" + s
}

func num2(x Num) string {
	if math.IsNaN(float64(x)) {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(x))
}

// csvNum is a number as csv writes it: empty when not finite.
func csvNum(x Num) string {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return ""
	}
	return fmt.Sprint(f)
}

// rciText formats a repeated interval; a bound beyond reach (the first
// looks' multiplier can overflow exp) reads ∞.
func rciText(lo, hi Num) string {
	b := func(x Num, inf string) string {
		if f := float64(x); math.IsNaN(f) || math.IsInf(f, 0) {
			return inf
		}
		return pct(x)
	}
	return "[" + b(lo, "-∞") + ", " + b(hi, "+∞") + "]"
}

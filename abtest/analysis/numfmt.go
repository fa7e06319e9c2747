package analysis

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/metric"
)

// pct formats a relative change as a signed percentage: "+3.1%".
func Pct(x journal.Num) string {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "-"
	}
	return Fixed(100*f, 1, true) + "%"
}

// absPct formats the size of a relative change: "3.1%".
func AbsPct(x float64) string { return Fixed(100*math.Abs(x), 1, false) + "%" }

// MaxFixed is the largest magnitude a report writes in fixed notation.
// A measured figure never comes near it; a hand-edited or foreign journal
// can hold 1e300, which is written "1e+300", not as 300 digits.
const MaxFixed = 1e15

// Fixed formats f with prec decimals ("+" first when sign), or, past
// MaxFixed, in scientific notation with 3 significant digits: every
// figure of every report is formatted through it, so none is wider
// than 20 characters.
func Fixed(f float64, prec int, sign bool) string {
	verb := "f"
	if math.Abs(f) >= MaxFixed && !math.IsInf(f, 0) {
		verb, prec = "g", 3
	}
	flag := "%"
	if sign {
		flag = "%+"
	}
	return fmt.Sprintf(flag+"."+strconv.Itoa(prec)+verb, f)
}

func us(x journal.Num) string {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "-"
	}
	return Fixed(f, 1, false)
}

// value formats an arm's figure in its kind's unit: µs with one decimal,
// a count or bytes whole when it is whole.
func Value(x journal.Num, k metric.MetricKind) string {
	f := float64(x)
	if (k == metric.KindCount || k == metric.KindBytes) && !math.IsNaN(f) && f == math.Trunc(f) {
		return Fixed(f, 0, false)
	}
	return us(x)
}

func Pval(x journal.Num) string {
	f := float64(x)
	switch {
	case math.IsNaN(f):
		return "-"
	case f < 0.001:
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", f)
}

func Ci(lo, hi journal.Num) string {
	if math.IsNaN(float64(lo)) || math.IsNaN(float64(hi)) {
		return "-"
	}
	return "[" + Pct(lo) + ", " + Pct(hi) + "]"
}

// pIs formats a p for prose: "p=0.031", or "p<0.001" where the table's
// cell reads "<0.001" (never "p=<0.001").
func PIs(x journal.Num) string {
	s := Pval(x)
	if strings.HasPrefix(s, "<") {
		return "p" + s
	}
	return "p=" + s
}

func Num2(x journal.Num) string {
	if math.IsNaN(float64(x)) {
		return "-"
	}
	return Fixed(float64(x), 2, false)
}

// csvNum is a number as csv writes it: empty when not finite.
func CsvNum(x journal.Num) string {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return ""
	}
	return fmt.Sprint(f)
}

// rciText formats a repeated interval; a bound beyond reach (the first
// looks' multiplier can overflow exp) reads ∞.
func RciText(lo, hi journal.Num) string {
	b := func(x journal.Num, inf string) string {
		if f := float64(x); math.IsNaN(f) || math.IsInf(f, 0) {
			return inf
		}
		return Pct(x)
	}
	return "[" + b(lo, "-∞") + ", " + b(hi, "+∞") + "]"
}

package abreport

import (
	"fmt"
	"math"
	"strings"

	"github.com/hbgkit/hbgkit/abtest/analysis"
)

// CostLine is the noise footer's line on what the campaign cost: the
// wall time of its timed blocks, its warm-ups and its failed tries, apart;
// "" when its blocks carry no wall time.
func (a Report) CostLine() string {
	c := a.Cost
	if c == nil {
		return ""
	}
	l := fmt.Sprintf("card time: %s in %s", seconds(float64(c.BlockSeconds)), plural(c.Blocks, "timed block"))
	if r := float64(c.RoundSeconds); !math.IsNaN(r) {
		l += fmt.Sprintf(" (%s a counted round)", seconds(r))
	}
	if c.Failed > 0 {
		l += fmt.Sprintf(", of which %s in %s", seconds(float64(c.FailedSeconds)), plural(c.Failed, "failed try"))
	}
	switch c.Warmups {
	case 0:
		l += "; no warm-up block"
	default:
		l += fmt.Sprintf("; %s in %s", seconds(float64(c.WarmupSeconds)), plural(c.Warmups, "warm-up block"))
	}
	return l + "; builds, checkouts and checks not included"
}

// DetectableLine says the smallest change the campaign's spread lets a
// fixed design detect in 10, 20 and 40 rounds; "" without a spread.
func (a Report) DetectableLine() string {
	if a.Cost == nil || len(a.Cost.Detectable) == 0 {
		return ""
	}
	var parts []string
	for _, d := range a.Cost.Detectable {
		parts = append(parts, fmt.Sprintf("%s in %d rounds", analysis.AbsPct(float64(d.MDE)), d.Rounds))
	}
	return "the smallest change this host can detect at 80% power with this spread: " + strings.Join(parts, ", ")
}

// seconds formats a duration in seconds for a reader: 1.2 ms, 420 ms,
// 4.25 s, 12.3 s, 4 min 05 s.
func seconds(s float64) string {
	switch {
	case math.IsNaN(s):
		return "unknown"
	case s < 1:
		return fmt.Sprintf("%.3g ms", 1000*s)
	case s < 10:
		return fmt.Sprintf("%.2f s", s)
	case s < 120:
		return fmt.Sprintf("%.1f s", s)
	}
	m := int(s) / 60
	return fmt.Sprintf("%d min %02d s", m, int(s)-60*m)
}

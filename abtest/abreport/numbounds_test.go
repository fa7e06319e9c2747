package abreport

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal/journaltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHugeValuesPrintBounded: a hand-edited or foreign journal whose head
// passes hold 1e300 µs gets a report of readable width in every format:
// no figure is written as hundreds of digits (analysis.Fixed).
func TestHugeValuesPrintBounded(t *testing.T) {
	t.Parallel()
	var vals [][2][]float64
	for i := range 6 {
		e := 1 + 0.01*float64(i)
		vals = append(vals, [2][]float64{{1000 * e, 1010 * e, 1020 * e}, {1e300 * e, 1.01e300 * e, 1.02e300 * e}})
	}
	j := journaltest.Synth(t, vals)
	a := analysis.Analyze(j)
	text, md, _, _ := renderAll(t, a, j)
	var bench bytes.Buffer
	require.NoError(t, WriteBenchfmt(&bench, a, j))
	digits := regexp.MustCompile(`[0-9]{17,}`)
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String(), "benchfmt": bench.String()} {
		assert.Empty(t, digits.FindAllString(out, 3), "%s:\n%s", name, out)
	}
	assert.Contains(t, text.String(), "e+")
	t.Logf("the report:\n%s", text.String())
}

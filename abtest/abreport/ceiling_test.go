package abreport

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/journal/journaltest"
	"github.com/hbgkit/hbgkit/internal/document"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ceilingFixture is 8 rounds of 11-pass blocks: base's floor 100, p90
// 200, max 210; head's floor 80, p90 240, max 260 in each block (a little noise per
// round): a lower floor and a higher ceiling.
func ceilingFixture(t *testing.T) *journal.Journal {
	block := func(lo, mid, p90, hi float64) []float64 {
		v := []float64{lo}
		for range 8 {
			v = append(v, mid)
		}
		return append(v, p90, hi)
	}
	var vals [][2][]float64
	for i := range 8 {
		e := 1 + 0.004*float64(i%4)
		vals = append(vals, [2][]float64{block(100*e, 150*e, 200*e, 210*e), block(80*e, 150*e, 240*e, 260*e)})
	}
	return journaltest.Synth(t, vals)
}

// TestCeilingInEveryFormat: each arm's p90 and max and the Δp90 are in
// the text table, the markdown full table, csv and json; the table for a
// pull request keeps its columns, and the opposite-direction line is
// above it.
func TestCeilingInEveryFormat(t *testing.T) {
	j := ceilingFixture(t)
	a := analysis.Analyze(j)
	text, md, csv, js := renderAll(t, a, j)

	const line = "ControlPlane: lower floor, higher ceiling: head's minimum is"
	assert.Contains(t, text.String(), line)
	assert.Contains(t, md.String(), line)

	tx := text.String()
	assert.Regexp(t, `min +p90 +max +Δ +95% CI +Δmin +Δp90`, tx)
	assert.Regexp(t, `base +88 +151\.\d +151\.\d +100\.0 +202\.\d +212\.\d`, tx)
	assert.Regexp(t, `head +88 +151\.\d +151\.\d +80\.0 +242\.\d +263\.\d .* -20\.0% +\+20\.0% `, tx)

	m := md.String()
	short, full, ok := strings.Cut(m, "full table")
	require.True(t, ok)
	assert.NotContains(t, short[strings.Index(short, "| metric |"):], "p90 |", "the table for a pull request keeps its columns")
	assert.Contains(t, full, "| Δmin | Δp90 | p90 | max | sign |")
	assert.Regexp(t, `\| \+20\.0% \| 202\.\d→242\.\d \| 212\.\d→263\.\d \|`, full)

	lines := strings.Split(csv.String(), "\n")
	assert.Contains(t, lines[0], ",min_us,p90_us,max_us,delta,")
	assert.Contains(t, lines[0], ",delta_min,delta_p90,delta_p90_ci_lo,delta_p90_ci_hi,verdict_p90,")
	assert.Regexp(t, `,80,242\.88,263\.12,0,0,0,-0\.2\d*,0\.(2|19)\d*,0\.(2|19)\d*,0\.(2|19)\d*,slower,`, lines[2])

	var back map[string]any
	require.NoError(t, json.Unmarshal(js.Bytes(), &back))
	row := back["metrics"].([]any)[0].(map[string]any)
	arms := row["arms"].([]any)
	assert.InDelta(t, 202.4, arms[0].(map[string]any)["p90_us"], 0.1)
	assert.InDelta(t, 263.1, arms[1].(map[string]any)["max_us"], 0.1)
	assert.InDelta(t, 0.2, row["delta_p90"], 0.01)
	assert.Equal(t, "slower", row["verdict_p90"])
	assert.Contains(t, back["qualifiers"], a.PrimaryResult().CeilingLine())
}

// TestCeilingInArmsTable: a campaign of more than two arms shows each
// arm's p90, max and Δp90 in its text table, not in its markdown one.
func TestCeilingInArmsTable(t *testing.T) {
	j := ceilingFixture(t)
	a := analysis.Analyze(j)
	n := &analysis.Analysis{Header: a.Header, Comparisons: []*analysis.Analysis{a}}
	tb := For(n).ArmsTable(false)
	require.NotNil(t, tb)
	assert.Contains(t, tb.Header, "p90")
	assert.Contains(t, tb.Header, "Δp90")
	var buf bytes.Buffer
	require.NoError(t, document.WriteCSV(&buf, tb))
	assert.Regexp(t, `,80\.0,242\.\d,263\.\d,`, buf.String())
	assert.NotContains(t, For(n).ArmsTable(true).Header, "p90")
}

package abtest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fasterJournal is a campaign of rounds rounds in which head takes about
// 10% less than base, every round.
func fasterJournal(t *testing.T, rounds int) *Journal {
	t.Helper()
	var vals [][2][]float64
	for i := range rounds {
		d := float64(i)
		vals = append(vals, [2][]float64{{1000, 1010, 995}, {900 - d, 905 - d, 898 - d}})
	}
	return synthJournal(t, vals)
}

// TestHeadlinePBelowOneInAThousand: a p below 0.001 reads "p<0.001" in
// the headline, never "p=<0.001".
func TestHeadlinePBelowOneInAThousand(t *testing.T) {
	a := Analyze(fasterJournal(t, 12))
	m := a.PrimaryResult()
	require.NotNil(t, m)
	require.Less(t, float64(m.P), 0.001)
	hl := a.Headline()
	assert.Contains(t, hl, "sign 12/12, p<0.001)")
	assert.NotContains(t, hl, "p=<")
}

// TestEnvLinesNameTheToolchainOnce: the version line of a campaign whose
// hbgkit string already ends with the toolchain does not repeat it; one
// without build information still names it.
func TestEnvLinesNameTheToolchainOnce(t *testing.T) {
	a := Analyze(fasterJournal(t, 6))
	a.Header.Env.Toolchain = "go1.26.8"
	for hbgkit, want := range map[string]string{
		"hbgkit (devel) go1.26.8": "hbgkit (devel) go1.26.8",
		"hbgkit (devel)":          "hbgkit (devel), go1.26.8",
	} {
		a.Header.Hbgkit = hbgkit
		lines := a.EnvLines()
		assert.Equal(t, want, lines[len(lines)-1])
	}
}

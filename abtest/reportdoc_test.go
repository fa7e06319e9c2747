package abtest

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/internal/report"
	"github.com/hbgkit/hbgkit/internal/report/terminal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReportNamesTheAliasesOfARow: a row that stands for identical metrics
// says which, in every format; metrics that differ keep rows of their own
// and no note.
func TestReportNamesTheAliasesOfARow(t *testing.T) {
	for _, tc := range []struct {
		name    string
		tweak   func(round, arm, rank, pass int, v map[string]float64)
		want    []string // in the text, markdown or csv reports
		not     []string // in none of them
		aliases map[string][]string
	}{
		{
			name: "identical twins",
			want: []string{"ControlPlane * = Gate", "HostOrch = phase.host_orch",
				",Gate\n", ",phase.host_orch\n"},
			not:     []string{"| Gate |", "| phase.host_orch |", "metrics,Gate,", "metrics,phase.host_orch,"},
			aliases: map[string][]string{"ControlPlane": {"Gate"}, "HostOrch": {"phase.host_orch"}},
		},
		{
			name: "gate differs",
			tweak: func(round, arm, _, pass int, v map[string]float64) {
				if round == 3 && arm == Head && pass == 2 {
					v["Gate"]++
				}
			},
			want:    []string{"HostOrch = phase.host_orch", "| Gate |", "metrics,Gate,"},
			not:     []string{"= Gate", ",Gate\n"},
			aliases: map[string][]string{"HostOrch": {"phase.host_orch"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := twinJournal(t, 1, tc.tweak)
			a := Analyze(j)
			var text, md, csv, js bytes.Buffer
			require.NoError(t, terminal.WriteText(&text, a.Document()))
			require.NoError(t, report.WriteMarkdown(&md, a.MarkdownDocument()))
			require.NoError(t, report.WriteCSV(&csv, a.CSVTables(j)[:1]...))
			require.NoError(t, report.WriteJSON(&js, a))
			all := strings.Join([]string{text.String(), md.String(), csv.String()}, "\n")
			for _, w := range tc.want {
				assert.Contains(t, all, w)
			}
			for _, n := range tc.not {
				assert.NotContains(t, all, n)
			}
			// The text and markdown tables both carry the note.
			for _, s := range []string{text.String(), md.String()} {
				assert.Contains(t, s, "HostOrch = phase.host_orch")
			}
			// The json names the aliases of each row, and no alias has a
			// row of its own.
			var back Analysis
			require.NoError(t, json.Unmarshal(js.Bytes(), &back))
			got := map[string][]string{}
			names := map[string]bool{}
			for _, m := range back.Metrics {
				names[m.Name] = true
				if m.Aliases != nil {
					got[m.Name] = m.Aliases
				}
			}
			assert.Equal(t, tc.aliases, got)
			for _, as := range got {
				for _, n := range as {
					assert.False(t, names[n], "%s is an alias and a row", n)
				}
			}
		})
	}
}

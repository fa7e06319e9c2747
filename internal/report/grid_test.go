package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/internal/document"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteGrid(t *testing.T) {
	tab := &document.Table{
		Title:  "callable hid=abc",
		Header: []string{"Span", "Mean (us)"},
		Align:  []document.Align{document.Left, document.Right},
	}
	tab.AddRow("a|b", "1.5")
	tab.AddRow("line\nbreak", "2,0")

	tests := []struct {
		name   string
		format string
		want   string
	}{
		{
			name:   "markdown escapes pipes and line breaks",
			format: FormatMarkdown,
			want: "callable hid=abc\n\n" +
				"| Span | Mean (us) |\n" +
				"| --- | ---: |\n" +
				"| a\\|b | 1.5 |\n" +
				"| line break | 2,0 |\n",
		},
		{
			name:   "csv quotes what needs quoting and has no title",
			format: FormatCSV,
			want:   "Span,Mean (us)\na|b,1.5\n\"line\nbreak\",\"2,0\"\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			require.NoError(t, writeGrid(&b, tc.format, tab))
			assert.Equal(t, tc.want, b.String())
		})
	}
}

func TestWriteGridCSVRoundTrip(t *testing.T) {
	tab := &document.Table{Header: []string{"a", "b"}}
	tab.AddRow(`x"y`, "z,w")
	var b bytes.Buffer
	require.NoError(t, writeGrid(&b, FormatCSV, tab))
	recs, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"a", "b"}, {`x"y`, "z,w"}}, recs)
}

func TestWriteGridRejectsText(t *testing.T) {
	var b bytes.Buffer
	err := writeGrid(&b, FormatText, &document.Table{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "writing table")
}

func TestWriteJSONKeepsHTML(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, document.WriteJSON(&b, map[string]any{"name": "a<b>&c", "n": 1.5}))
	assert.True(t, strings.HasSuffix(b.String(), "}\n"))
	assert.Contains(t, b.String(), "a<b>&c")
	var got map[string]any
	require.NoError(t, json.Unmarshal(b.Bytes(), &got))
	assert.Equal(t, 1.5, got["n"])
}

func TestFixed1MatchesPython(t *testing.T) {
	// The reference rounds table's cells: Python's format(x, ".1f") on these
	// values.
	tests := []struct {
		in   float64
		want string
	}{
		{0.25, "0.2"},
		{0.35, "0.3"},
		{1.05, "1.1"},
		{110.05, "110.0"},
		{0.15, "0.1"},
		{(100.0 + 120.1) / 2, "110.0"},
		{1950.0 / 1000, "1.9"},
		{1950.5 / 1000, "2.0"},
		{0, "0.0"},
		{2413551.3, "2413551.3"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			assert.Equal(t, tc.want, fixed1(tc.in))
		})
	}
}

func TestJustify(t *testing.T) {
	tests := []struct {
		name, got, want string
	}{
		{"ljust pads", ljust("ab", 4), "ab  "},
		{"ljust keeps longer", ljust("abcdef", 4), "abcdef"},
		{"rjust pads", rjust("ab", 4), "  ab"},
		{"code points, not bytes", ljust("é", 3), "é  "},
		{"rjust code points", rjust("∥", 2), " ∥"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, tc.got) })
	}
	assert.Equal(t, "100.5", shortest(100.5))
	assert.Equal(t, "0.001", shortest(0.001))
}

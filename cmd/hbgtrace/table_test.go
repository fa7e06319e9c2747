package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteTable(t *testing.T) {
	tab := &table{
		Title:  "callable hid=abc",
		Header: []string{"Span", "Mean (us)"},
		Right:  []bool{false, true},
	}
	tab.addRow("a|b", "1.5")
	tab.addRow("line\nbreak", "2,0")

	tests := []struct {
		name   string
		format string
		want   string
	}{
		{
			name:   "markdown escapes pipes and line breaks",
			format: formatMarkdown,
			want: "callable hid=abc\n\n" +
				"| Span | Mean (us) |\n" +
				"| --- | ---: |\n" +
				"| a\\|b | 1.5 |\n" +
				"| line break | 2,0 |\n",
		},
		{
			name:   "csv quotes what needs quoting and has no title",
			format: formatCSV,
			want:   "Span,Mean (us)\na|b,1.5\n\"line\nbreak\",\"2,0\"\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			require.NoError(t, writeTable(&b, tc.format, tab))
			assert.Equal(t, tc.want, b.String())
		})
	}
}

func TestWriteTableCSVRoundTrip(t *testing.T) {
	tab := &table{Header: []string{"a", "b"}}
	tab.addRow(`x"y`, "z,w")
	var b bytes.Buffer
	require.NoError(t, writeTable(&b, formatCSV, tab))
	recs, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"a", "b"}, {`x"y`, "z,w"}}, recs)
}

func TestWriteTableRejectsText(t *testing.T) {
	var b bytes.Buffer
	err := writeTable(&b, formatText, &table{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "writing table")
}

func TestWriteJSON(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, writeJSON(&b, map[string]any{"name": "a<b>&c", "n": 1.5}))
	assert.True(t, strings.HasSuffix(b.String(), "}\n"))
	assert.Contains(t, b.String(), "a<b>&c")
	var got map[string]any
	require.NoError(t, json.Unmarshal(b.Bytes(), &got))
	assert.Equal(t, 1.5, got["n"])
}

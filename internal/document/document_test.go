package document

import (
	"bytes"
	"encoding/csv"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sampleDoc() *Document {
	d := &Document{}
	d.Add(&Paragraph{Text: "FASTER: x"},
		&Table{Title: "t (µs)", Header: []string{"metric", "arm", "n"}, Align: []Align{Left, Left, Right}, Merge: []int{0},
			Rows:  [][]string{{"a|b", "base", "10"}, {"a|b", "head", "9"}, {"c", "base", "1"}},
			Notes: []string{"a note"}},
		&List{Items: []string{"one", "two"}},
		&Details{Summary: "method <and> host", Blocks: []Block{&List{Items: []string{"seed 1"}}, &Code{Text: "hbgbench ab --rounds 3"}}},
	)
	return d
}

func TestWriteMarkdown(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteMarkdown(&b, sampleDoc()))
	out := b.String()
	assert.Contains(t, out, "**t (µs)**\n\n| metric | arm | n |\n|---|---|---:|\n")
	assert.Contains(t, out, "| a\\|b | base | 10 |\n|  | head | 9 |\n")
	assert.Contains(t, out, "<details>\n<summary>method &lt;and&gt; host</summary>\n")
	assert.Contains(t, out, "```\nhbgbench ab --rounds 3\n```\n")
	assert.True(t, strings.HasSuffix(out, "</details>\n"))
	// Every table row has as many cells as the header.
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "| ") {
			cells := strings.Count(strings.ReplaceAll(l, `\|`, ""), "|") - 1
			assert.Equal(t, 3, cells, l)
		}
	}
}

// TestWriteMarkdownProseReadsAsText: a redacted placeholder, a glob and a
// backquote in a paragraph or a list item are escaped, so GitHub shows
// them rather than taking <host> for an HTML tag (and dropping it) or
// *.log *.txt for emphasis; a code block is left as it is.
func TestWriteMarkdownProseReadsAsText(t *testing.T) {
	d := &Document{}
	d.Add(&Paragraph{Text: "host <host>: AMD"}, &List{Items: []string{"base: cat <path>/a *.log *.txt `x` a\\b"}},
		&Code{Text: "hbgbench ab --run '<path>/run.sh *.log'"})
	var b bytes.Buffer
	require.NoError(t, WriteMarkdown(&b, d))
	assert.Equal(t, "host \\<host>: AMD\n\n- base: cat \\<path>/a \\*.log \\*.txt \\`x\\` a\\\\b\n\n```\nhbgbench ab --run '<path>/run.sh *.log'\n```\n", b.String())
}

func TestWriteCSV(t *testing.T) {
	var b bytes.Buffer
	d := sampleDoc()
	require.NoError(t, WriteCSV(&b, d.Tables()...))
	recs, err := csv.NewReader(&b).ReadAll()
	require.NoError(t, err)
	assert.Equal(t, [][]string{
		{"table", "metric", "arm", "n"},
		{"t (µs)", "a|b", "base", "10"},
		{"t (µs)", "a|b", "head", "9"},
		{"t (µs)", "c", "base", "1"},
	}, recs)
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errors.New("disk full")
	}
	f.n--
	return len(p), nil
}

func TestWriteErrorsAreReturned(t *testing.T) {
	assert.ErrorContains(t, WriteMarkdown(&failWriter{n: 2}, sampleDoc()), "disk full")
	assert.ErrorContains(t, WriteJSON(&failWriter{}, map[string]int{"a": 1}), "disk full")
	assert.ErrorContains(t, WriteJSON(&bytes.Buffer{}, func() {}), "writing json")
}

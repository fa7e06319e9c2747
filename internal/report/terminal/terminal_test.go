package terminal

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/internal/document"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sampleDoc has a block of every kind (report's tests have its twin).
func sampleDoc() *document.Document {
	d := &document.Document{}
	d.Add(&document.Paragraph{Text: "FASTER: x"},
		&document.Table{Title: "t (µs)", Header: []string{"metric", "arm", "n"}, Align: []document.Align{document.Left, document.Left, document.Right}, Merge: []int{0},
			Rows:  [][]string{{"a|b", "base", "10"}, {"a|b", "head", "9"}, {"c", "base", "1"}},
			Notes: []string{"a note"}},
		&document.List{Items: []string{"one", "two"}},
		&document.Details{Summary: "method <and> host", Blocks: []document.Block{&document.List{Items: []string{"seed 1"}}, &document.Code{Text: "hbgbench ab --rounds 3"}}},
	)
	return d
}

func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteText(&b, sampleDoc()))
	out := b.String()
	lines := strings.Split(out, "\n")
	assert.Equal(t, "FASTER: x", lines[0])
	assert.Contains(t, out, "t (µs)\n")
	// The merged column shows a repeated cell once.
	assert.Equal(t, 1, strings.Count(out, "a|b"))
	assert.Regexp(t, `(?m)^\s+head\s+9$`, out)
	for _, l := range lines {
		assert.Equal(t, strings.TrimRight(l, " "), l, "no trailing blanks")
	}
	assert.Contains(t, out, "  - one\n")
	assert.Contains(t, out, "method <and> host\n")
	assert.Contains(t, out, "  hbgbench ab --rounds 3\n")
	// Right-aligned numbers end in the same column.
	i10 := strings.Index(lines[5], "10")
	i9 := strings.Index(lines[6], "9")
	assert.Equal(t, i10+1, i9, "%q / %q", lines[5], lines[6])
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errors.New("disk full")
	}
	f.n--
	return len(p), nil
}

func TestWriteTextReturnsWriteErrors(t *testing.T) {
	assert.ErrorContains(t, WriteText(&failWriter{n: 1}, sampleDoc()), "disk full")
}

package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// outsideCitation matches a citation of a document that is not in the
// repository: one of the six notes of the design folder (the reference
// behaviour, the design, the A/B method, the harness, the style guide,
// Slurm), by its file name or as NAME followed by a section sign and a
// number, and a section number that names no source (a section sign right
// after an opening parenthesis or opening the comment). A reader of the
// code has only the repository, so a comment cites a page of it
// (docs/formats.md "[CLOCK_ANCHOR]") or states the fact itself. Sections
// of a named source stay: Wilcox 2012 §4.4.1, issue 11 §2,
// docs/accounting.md §5.
var outsideCitation = regexp.MustCompile(`\b(REFERENCE|DESIGN|STATS|HARNESS|STYLE|SLURM)(\.md\b|'s\s+§|\s+§)|(^|\(\s*)§`)

// commentText returns a comment group's text as one line: the comment
// markers and line breaks removed, so that a citation broken over two
// lines ("(REFERENCE\n// §1.4)") still reads as one.
func commentText(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		l = strings.TrimPrefix(l, "//")
		l = strings.TrimPrefix(l, "/*")
		l = strings.TrimSuffix(l, "*/")
		b.WriteString(strings.TrimSpace(l))
		b.WriteByte(' ')
	}
	return strings.TrimSpace(b.String())
}

func TestOutsideCitation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		comment []string
		cites   bool
	}{
		{name: "a section of the reference", comment: []string{"// An Anchor is a [CLOCK_ANCHOR] record (REFERENCE §1.3)."}, cites: true},
		{name: "a section of the design", comment: []string{"// the share blocks of DESIGN §4"}, cites: true},
		{name: "a design file by name", comment: []string{`// (STATS.md "Same ruler")`}, cites: true},
		{name: "a possessive", comment: []string{`// DESIGN §4's H2D spans`, `// STATS.md's rule`}, cites: true},
		{name: "broken over two lines", comment: []string{"// in (REFERENCE", "// §1.4)."}, cites: true},
		{name: "a style item", comment: []string{"// walks every command (STYLE.md item 10)"}, cites: true},
		{name: "the harness and Slurm notes", comment: []string{"// HARNESS.md lists", "// SLURM.md"}, cites: true},
		{name: "a bare section", comment: []string{"// the reference's synthetic passes (§4.1)"}, cites: true},
		{name: "a section opening a comment", comment: []string{"// §1.4: the fields"}, cites: true},
		{name: "a repository page", comment: []string{`// (docs/formats.md "[CLOCK_ANCHOR]")`}},
		{name: "a page's section", comment: []string{"// the table of docs/accounting.md §5"}},
		{name: "a book", comment: []string{"// (Wilcox 2012 §4.4.1; Conover 1999, Practical Nonparametric Statistics, 3rd ed., §3.4)"}},
		{name: "a book over two lines", comment: []string{"// Tibshirani 1993, An Introduction to the Bootstrap, §13.3; Wilcox 2012", "//     §4.4.4 recommends it)"}},
		{name: "an issue", comment: []string{"// These tests pin issue 11 §2."}},
		{name: "the words, not the files", comment: []string{"// the design of the reference's STATS line"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.cites, outsideCitation.MatchString(commentText(tc.comment)), commentText(tc.comment))
		})
	}
}

// TestCommentsCiteTheRepository checks every comment of every Go file of
// the repository: none cites a document outside it (outsideCitation).
func TestCommentsCiteTheRepository(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		for _, g := range f.Comments {
			lines := make([]string, len(g.List))
			for i, c := range g.List {
				lines[i] = c.Text
			}
			text := commentText(lines)
			if m := outsideCitation.FindString(text); m != "" {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s:%d: the comment cites %q, outside the repository: cite a page of docs/ or state the fact\n\t%s",
					rel, fset.Position(g.Pos()).Line, m, text)
			}
		}
		return nil
	})
	require.NoError(t, err)
	assert.Greater(t, files, 200, "the repository's Go files were read")
}

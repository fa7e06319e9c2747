package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The documents these tests read, relative to the repository root: the
// README and every page of docs/.
func docPaths(t *testing.T, root string) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	require.NotEmpty(t, docs)
	return append([]string{filepath.Join(root, "README.md")}, docs...)
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	return root
}

// fence matches the opening or closing line of a fenced code block.
var fence = regexp.MustCompile("^\\s*(```+|~~~+)")

// prose returns text with every fenced code block and inline code span
// replaced by spaces (newlines kept), so that links and headings are
// looked for only where a reader sees them as such.
func prose(text string) string {
	var b strings.Builder
	open := ""
	for _, line := range strings.SplitAfter(text, "\n") {
		body := strings.TrimRight(line, "\n")
		if m := fence.FindStringSubmatch(body); m != nil {
			switch {
			case open == "":
				open = m[1]
			case strings.TrimSpace(body) == open:
				open = ""
			}
			b.WriteString(blank(line))
			continue
		}
		if open != "" {
			b.WriteString(blank(line))
			continue
		}
		b.WriteString(inlineCode.ReplaceAllStringFunc(line, blank))
	}
	return b.String()
}

var inlineCode = regexp.MustCompile("`[^`\n]*`")

func blank(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' {
			return r
		}
		return ' '
	}, s)
}

// heading is one Markdown heading of a document.
type heading struct {
	level  int
	text   string
	anchor string // GitHub's id for it, -1, -2 ... on repeats
}

var headingLine = regexp.MustCompile(`^(#{1,6}) +(.+?) *#* *$`)

// headings lists the headings of a document outside code blocks, each
// with the anchor GitHub gives it.
func headings(text string) []heading {
	// Inline code is blanked by prose; headings keep their words, so
	// read the heading lines from the text at the lines prose left.
	lines := strings.Split(text, "\n")
	plain := strings.Split(prose(text), "\n")
	seen := map[string]int{}
	var out []heading
	for i, l := range plain {
		if headingLine.FindStringSubmatch(l) == nil {
			continue
		}
		m := headingLine.FindStringSubmatch(lines[i])
		a := slug(m[2])
		if n, ok := seen[a]; ok {
			seen[a] = n + 1
			a = fmt.Sprintf("%s-%d", a, n+1)
		} else {
			seen[a] = 0
		}
		out = append(out, heading{len(m[1]), m[2], a})
	}
	return out
}

// slug is GitHub's anchor for a heading: lower case, letters, digits,
// '-' and '_' kept, spaces made '-', everything else dropped.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// mdLink matches an inline Markdown link or image; its text may run over
// a line break.
var mdLink = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)\)`)

// TestDocLinks checks every relative link of the README and of docs/*.md
// (`[text](docs/x.md#anchor)`, `[text](x.md)`, `[text](#anchor)`): the
// file exists, and the anchor is a heading of it.
func TestDocLinks(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	anchorsOf := map[string]map[string]bool{}
	anchors := func(path string) map[string]bool {
		if a, ok := anchorsOf[path]; ok {
			return a
		}
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		a := map[string]bool{}
		for _, h := range headings(string(b)) {
			a[h.anchor] = true
		}
		anchorsOf[path] = a
		return a
	}
	n := 0
	for _, doc := range docPaths(t, root) {
		b, err := os.ReadFile(doc)
		require.NoError(t, err)
		text := prose(string(b))
		rel, _ := filepath.Rel(root, doc)
		for _, m := range mdLink.FindAllStringSubmatchIndex(text, -1) {
			target := text[m[2]:m[3]]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			n++
			line := strings.Count(text[:m[0]], "\n") + 1
			file, anchor, _ := strings.Cut(target, "#")
			path := doc
			if file != "" {
				path = filepath.Join(filepath.Dir(doc), filepath.FromSlash(file))
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s:%d: link %s: no file %s", rel, line, target, file)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(path, ".md") {
				t.Errorf("%s:%d: link %s: an anchor into a file that is not Markdown", rel, line, target)
				continue
			}
			if !anchors(path)[anchor] {
				t.Errorf("%s:%d: link %s: %s has no heading #%s", rel, line, target, file, anchor)
			}
		}
	}
	assert.Greater(t, n, 100, "the documents' relative links were found")
}

// TestABPagesHaveContents: each page of the A/B documentation starts
// (before its first ## heading) with a list of links to every ## and ###
// heading of the page, in order.
func TestABPagesHaveContents(t *testing.T) {
	t.Parallel()
	pages, err := filepath.Glob(filepath.Join(repoRoot(t), "docs", "ab*.md"))
	require.NoError(t, err)
	require.Len(t, pages, 5, "the guide, the reference, the method, the measurements and operations")
	for _, page := range pages {
		t.Run(filepath.Base(page), func(t *testing.T) {
			b, err := os.ReadFile(page)
			require.NoError(t, err)
			text := string(b)
			var want []string
			for _, h := range headings(text) {
				if h.level == 2 || h.level == 3 {
					want = append(want, strings.Repeat("  ", h.level-2)+"- ["+h.text+"](#"+h.anchor+")")
				}
			}
			require.NotEmpty(t, want)
			head, _, ok := strings.Cut(text, "\n## ")
			require.True(t, ok)
			var got []string
			for _, l := range strings.Split(head, "\n") {
				if strings.HasPrefix(strings.TrimLeft(l, " "), "- [") && strings.Contains(l, "](#") {
					got = append(got, l)
				}
			}
			assert.Equal(t, want, got, "the contents list of %s", filepath.Base(page))
		})
	}
}

// flagTable is one table of the reference's "Flags" section.
type flagTable struct {
	heading  string
	commands []string            // the commands the heading names
	rows     map[string][]string // command -> the flags of its rows
	defaults map[string]string   // flag name -> its default cell
	short    map[string]string   // flag name -> the shorthand its cell names
}

var flagInCell = regexp.MustCompile("`(--?)([a-z][a-z0-9-]*)")

// flagTables reads the tables of the "## Flags" section of the reference.
// A table belongs to the commands its ### heading names after
// "hbgbench"; a table with a column per command (ab, aa) gives each row
// to the commands whose cell in it is not empty.
func flagTables(t *testing.T, text string, commands map[string]bool) []flagTable {
	t.Helper()
	_, sec, ok := strings.Cut(text, "\n## Flags\n")
	require.True(t, ok, "the reference has a ## Flags section")
	sec, _, _ = strings.Cut(sec, "\n## ")
	var out []flagTable
	for _, part := range strings.Split(sec, "\n### ")[1:] {
		title, body, _ := strings.Cut(part, "\n")
		ft := flagTable{heading: title, rows: map[string][]string{}, defaults: map[string]string{}, short: map[string]string{}}
		for _, w := range strings.Fields(strings.NewReplacer("`", "", ",", " ").Replace(title)) {
			if commands[w] {
				ft.commands = append(ft.commands, w)
			}
		}
		require.NotEmpty(t, ft.commands, "### %s names no command", title)
		var header []string
		for _, l := range strings.Split(body, "\n") {
			if !strings.HasPrefix(l, "|") {
				if header != nil {
					break // the first table only
				}
				continue
			}
			cells := splitRow(l)
			if header == nil {
				header = cells
				require.Equal(t, "flag", header[0], "### %s: the first column is the flag", title)
				continue
			}
			if strings.Trim(l, "|-: ") == "" {
				continue // the delimiter row
			}
			require.Len(t, cells, len(header), "### %s: %s", title, l)
			var long []string
			short := ""
			for _, m := range flagInCell.FindAllStringSubmatch(cells[0], -1) {
				if m[1] == "-" {
					short = m[2]
				} else {
					long = append(long, m[2])
				}
			}
			require.Len(t, long, 1, "### %s: one flag a row: %s", title, cells[0])
			name := long[0]
			ft.short[name] = short
			for i, h := range header {
				if h == "default" {
					ft.defaults[name] = cells[i]
				}
			}
			columns := false
			for i, h := range header {
				if commands[h] {
					columns = true
					if strings.TrimSpace(cells[i]) != "" {
						ft.rows[h] = append(ft.rows[h], name)
					}
				}
			}
			if !columns {
				for _, c := range ft.commands {
					ft.rows[c] = append(ft.rows[c], name)
				}
			}
		}
		require.NotNil(t, header, "### %s has no table", title)
		out = append(out, ft)
	}
	return out
}

func splitRow(l string) []string {
	l = strings.TrimSpace(l)
	l = strings.TrimPrefix(strings.TrimSuffix(l, "|"), "|")
	// An escaped \| stays in its cell.
	l = strings.ReplaceAll(l, `\|`, "\x00")
	cells := strings.Split(l, "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(strings.ReplaceAll(cells[i], "\x00", `\|`))
	}
	return cells
}

// zeroDefault is a flag default that means "not set": the table may say
// in words what the command does then (computed defaults: "random",
// "ControlPlane or Host", "none").
func zeroDefault(v string) bool {
	return v == "" || v == "0" || v == "0s" || v == "[]" || v == "false"
}

var literalCell = regexp.MustCompile(`^-?[0-9][0-9.]*(%|[a-zA-Zµ]+)?$`)

// checkDefault compares a table's default cell with the flag's default:
// a switch reads "off"; a flag with a default names it in the cell (the
// trimmed mean's -1 reads "20% (`-1` in `--help`)"); a flag without one
// may describe what happens, but a bare number in the cell must be the
// flag's.
func checkDefault(f *pflag.Flag, cell string) error {
	c := strings.TrimSpace(strings.ReplaceAll(cell, "`", ""))
	if f.Value.Type() == "bool" {
		if c != "off" {
			return fmt.Errorf("--%s is a switch, off by default; the table says %q", f.Name, cell)
		}
		return nil
	}
	if zeroDefault(f.DefValue) {
		if literalCell.MatchString(c) && c != f.DefValue {
			return fmt.Errorf("--%s has no default (%q); the table says %q", f.Name, f.DefValue, cell)
		}
		return nil
	}
	for _, w := range strings.FieldsFunc(c, func(r rune) bool { return r == ' ' || r == ',' || r == '(' || r == ')' }) {
		if w == f.DefValue {
			return nil
		}
	}
	return fmt.Errorf("--%s defaults to %q; the table says %q", f.Name, f.DefValue, cell)
}

// TestFlagTablesMatchTheCommands walks the commands newRootCmd builds and
// checks the reference's flag tables against them: every command has a
// table, each table lists exactly its command's flags (shorthands
// included), and its default column agrees with each flag's default.
func TestFlagTablesMatchTheCommands(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "ab-reference.md"))
	require.NoError(t, err)
	cmds := map[string]*cobra.Command{}
	names := map[string]bool{}
	for _, c := range newRootCmd(nil).Commands() {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		cmds[c.Name()] = c
		names[c.Name()] = true
	}
	require.Len(t, cmds, 5, "ab, aa, report, compare, harness")
	covered := map[string]bool{}
	for _, ft := range flagTables(t, string(b), names) {
		for _, name := range ft.commands {
			covered[name] = true
			c := cmds[name]
			t.Run(name, func(t *testing.T) {
				var want []string
				c.Flags().VisitAll(func(f *pflag.Flag) {
					if f.Name != "help" && !f.Hidden {
						want = append(want, f.Name)
					}
				})
				got := append([]string(nil), ft.rows[name]...)
				sort.Strings(want)
				sort.Strings(got)
				assert.Equal(t, want, got, "### %s: the flags of hbgbench %s", ft.heading, name)
				for _, n := range ft.rows[name] {
					f := c.Flags().Lookup(n)
					if f == nil {
						continue // reported above
					}
					assert.Equal(t, f.Shorthand, ft.short[n], "### %s: the shorthand of --%s", ft.heading, n)
					if cell, ok := ft.defaults[n]; ok {
						assert.NoError(t, checkDefault(f, cell), "### %s", ft.heading)
					}
				}
			})
		}
	}
	for name := range cmds {
		assert.True(t, covered[name], "the reference has no flag table for hbgbench %s", name)
	}
}

// TestCheckDefault: the default rule of the flag tables tells a right
// cell from a wrong one.
func TestCheckDefault(t *testing.T) {
	t.Parallel()
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.Int("block", 20, "")
	fs.Int("trim", -1, "")
	fs.Int("bootstrap", 0, "")
	fs.Uint64("seed", 0, "")
	fs.Bool("resume", false, "")
	fs.String("order", "rmit", "")
	for _, tc := range []struct {
		flag, cell string
		ok         bool
	}{
		{"block", "20", true},
		{"block", "5", false},
		{"trim", "20% (`-1` in `--help`)", true},
		{"trim", "20%", false},
		{"bootstrap", "0", true},
		{"bootstrap", "1000", false},
		{"seed", "random", true},
		{"resume", "off", true},
		{"resume", "", false},
		{"order", "`rmit`", true},
		{"order", "`abba`", false},
	} {
		t.Run(tc.flag+"="+tc.cell, func(t *testing.T) {
			err := checkDefault(fs.Lookup(tc.flag), tc.cell)
			assert.Equal(t, tc.ok, err == nil, "%v", err)
		})
	}
}

// docExample is one ```console block of a document whose first line is
// `$ hbgbench …`: the command, then the lines it prints. A line "..."
// stands for any number of lines, and a line ending in " ..." for a line
// that starts with what comes before the dots.
type docExample struct {
	doc  string
	line int
	args []string
	want []string
}

func docExamples(t *testing.T, root string) []docExample {
	t.Helper()
	var out []docExample
	for _, doc := range docPaths(t, root) {
		b, err := os.ReadFile(doc)
		require.NoError(t, err)
		text := string(b)
		rel, _ := filepath.Rel(root, doc)
		const open = "```console\n"
		pos := 0
		for {
			i := strings.Index(text[pos:], open)
			if i < 0 {
				break
			}
			start := pos + i + len(open)
			j := strings.Index(text[start:], "```")
			require.GreaterOrEqual(t, j, 0, "%s: an unclosed console block", rel)
			body := text[start : start+j]
			pos = start + j + 3
			first, rest, _ := strings.Cut(body, "\n")
			cmdline, ok := strings.CutPrefix(first, "$ hbgbench ")
			if !ok {
				continue
			}
			out = append(out, docExample{
				doc:  rel,
				line: strings.Count(text[:start], "\n") + 1,
				args: strings.Fields(cmdline),
				want: strings.Split(strings.TrimSuffix(rest, "\n"), "\n"),
			})
		}
	}
	return out
}

// matchLines reports whether got reads as want, with want's elisions.
func matchLines(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == "..." {
		for k := 0; k <= len(got); k++ {
			if matchLines(want[1:], got[k:]) {
				return true
			}
		}
		return false
	}
	if len(got) == 0 {
		return false
	}
	if prefix, ok := strings.CutSuffix(want[0], " ..."); ok {
		if !strings.HasPrefix(got[0], prefix) {
			return false
		}
	} else if want[0] != got[0] {
		return false
	}
	return matchLines(want[1:], got[1:])
}

// TestDocExamples runs every `$ hbgbench …` console example of the README
// and docs/*.md (the docs are tested, as cmd/hbgtrace's TestDocExamples
// runs hbgtrace's) and checks that it exits 0 and prints the lines the page
// shows. Paths are the repository's fixtures, read from the repository
// root; shell globs are expanded there. ab and aa run in a scratch
// directory, so their journals and block logs stay out of the repository.
func TestDocExamples(t *testing.T) {
	root := repoRoot(t)
	examples := docExamples(t, root)
	byCmd := map[string]int{}
	for _, ex := range examples {
		byCmd[ex.args[0]]++
	}
	for _, c := range []string{"ab", "report", "compare"} {
		require.NotZero(t, byCmd[c], "the docs show a runnable hbgbench %s example", c)
	}
	for _, ex := range examples {
		t.Run(fmt.Sprintf("%s:%d", ex.doc, ex.line), func(t *testing.T) {
			var args []string
			for _, a := range ex.args {
				if !strings.ContainsAny(a, "*?[") {
					args = append(args, a)
					continue
				}
				m, err := filepath.Glob(filepath.Join(root, a))
				require.NoError(t, err)
				require.NotEmpty(t, m, "%s matches no file", a)
				for _, p := range m {
					r, _ := filepath.Rel(root, p)
					args = append(args, r)
				}
			}
			dir := root
			if args[0] == "ab" || args[0] == "aa" {
				dir = t.TempDir()
			}
			t.Chdir(dir)
			var stdout, stderr bytes.Buffer
			code := run(args, &stdout, &stderr)
			require.Equal(t, 0, code, "hbgbench %s: %s", strings.Join(ex.args, " "), stderr.String())
			got := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
			assert.True(t, matchLines(ex.want, got),
				"%s line %d: hbgbench %s printed\n%s\nwhere the page shows\n%s",
				ex.doc, ex.line, strings.Join(ex.args, " "), stdout.String(), strings.Join(ex.want, "\n"))
		})
	}
}

// TestMatchLines: the elisions of the examples match what they stand for
// and nothing else.
func TestMatchLines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		want, got []string
		ok        bool
	}{
		{"exact", []string{"a", "b"}, []string{"a", "b"}, true},
		{"a line differs", []string{"a", "b"}, []string{"a", "c"}, false},
		{"a line more", []string{"a"}, []string{"a", "b"}, false},
		{"dots take the rest", []string{"a", "..."}, []string{"a", "b", "c"}, true},
		{"dots take nothing", []string{"a", "..."}, []string{"a"}, true},
		{"dots in the middle", []string{"a", "...", "d"}, []string{"a", "b", "c", "d"}, true},
		{"a prefix line", []string{"FEWER: x ..."}, []string{"FEWER: x y z"}, true},
		{"a prefix line differs", []string{"FEWER: x ..."}, []string{"MORE: x y"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.ok, matchLines(tc.want, tc.got))
		})
	}
}

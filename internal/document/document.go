// Package document is hbgkit's format-neutral report model: a document of
// headings, paragraphs, lists, tables and collapsible details, and the
// writers that turn it into GitHub markdown, CSV or JSON (terminal text is
// package internal/report/terminal's, so that the hbgtrace binary does not
// link tablewriter). It is a leaf: hbgtrace's views (internal/report) and
// hbgbench's report documents (abtest/abreport) both build documents, and
// neither links the other. Its opinion: a number is formatted once, by
// whoever built the cell, so every format shows the same digits.
package document

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"github.com/hbgkit/hbgkit/internal/termsafe"
	"io"
	"strings"
)

// An Align is a column's alignment.
type Align uint8

// The alignments.
const (
	Left Align = iota
	Right
)

// A Table is a titled grid of preformatted cells.
type Table struct {
	Title  string
	Header []string
	Align  []Align // per column; missing columns align left
	Rows   [][]string
	// Merge lists the columns whose equal adjacent cells the text writer
	// shows once (a metric name over its base and head rows).
	Merge []int
	Notes []string // lines under the table
}

// A Block is one element of a Document.
type Block interface{ block() }

// A Heading is a section title; Level 1 is the largest.
type Heading struct {
	Level int
	Text  string
}

// A Paragraph is text; its lines are kept as they are.
type Paragraph struct{ Text string }

// A List is a bulleted list.
type List struct{ Items []string }

// Details is a collapsible section (a <details> element in markdown;
// shown in full as text).
type Details struct {
	Summary string
	Blocks  []Block
}

// Code is preformatted text (a command line).
type Code struct{ Text string }

func (*Table) block()     {}
func (*Heading) block()   {}
func (*Paragraph) block() {}
func (*List) block()      {}
func (*Details) block()   {}
func (*Code) block()      {}

// A Document is what a command reports.
type Document struct{ Blocks []Block }

// Add appends blocks to the document.
func (d *Document) Add(b ...Block) { d.Blocks = append(d.Blocks, b...) }

// Tables returns every table of the document, nested ones included, in
// order.
func (d *Document) Tables() []*Table { return tablesOf(d.Blocks) }

func tablesOf(bs []Block) []*Table {
	var out []*Table
	for _, b := range bs {
		switch v := b.(type) {
		case *Table:
			out = append(out, v)
		case *Details:
			out = append(out, tablesOf(v.Blocks)...)
		}
	}
	return out
}

// An ErrWriter writes formatted text to W and keeps the first write error
// in Err, writing nothing after it: a writer of many lines checks once.
type ErrWriter struct {
	W   io.Writer
	Err error
}

// Printf is fmt.Fprintf to W unless an earlier write failed.
func (e *ErrWriter) Printf(format string, a ...any) {
	if e.Err == nil {
		// What a report prints comes from recipes, command lines,
		// journals of other hosts and logs: nothing in it may act on the
		// reader's terminal (termsafe).
		_, e.Err = io.WriteString(e.W, termsafe.Escape(fmt.Sprintf(format, a...)))
	}
}

// MergedRows returns t's rows with, in the Merge columns, a cell equal to
// the one above blanked: what a writer draws.
func MergedRows(t *Table) [][]string {
	rows := make([][]string, len(t.Rows))
	for i, r := range t.Rows {
		rows[i] = append([]string(nil), r...)
		if i == 0 {
			continue
		}
		for _, c := range t.Merge {
			if c < len(r) && c < len(t.Rows[i-1]) && r[c] == t.Rows[i-1][c] {
				rows[i][c] = ""
			}
		}
	}
	return rows
}

// mdEscape makes s safe in a markdown table cell: | escaped, newlines
// turned into spaces.
func mdEscape(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

// mdText makes prose (a paragraph, a list item) read in markdown as it
// reads in text: a backslash escapes each character GitHub would take for
// markup in a report's text — < (a <host> placeholder is an HTML tag to
// it, and vanishes), * (a glob in a command, emphasis to it), ` and \.
func mdText(s string) string {
	return strings.NewReplacer(`\`, `\\`, "<", `\<`, "*", `\*`, "`", "\\`").Replace(s)
}

// WriteMarkdown writes the document as GitHub markdown: tables as pipe
// tables with | escaped, details as <details> blocks.
func WriteMarkdown(w io.Writer, d *Document) error {
	ew := &ErrWriter{W: w}
	writeMDBlocks(ew, d.Blocks)
	return ew.Err
}

func writeMDBlocks(ew *ErrWriter, bs []Block) {
	for i, b := range bs {
		if i > 0 {
			ew.Printf("\n")
		}
		switch v := b.(type) {
		case *Heading:
			ew.Printf("%s %s\n", strings.Repeat("#", max(1, min(v.Level, 6))), v.Text)
		case *Paragraph:
			ew.Printf("%s\n", mdText(strings.TrimRight(v.Text, "\n")))
		case *Code:
			ew.Printf("```\n%s\n```\n", strings.TrimRight(v.Text, "\n"))
		case *List:
			for _, it := range v.Items {
				ew.Printf("- %s\n", mdText(it))
			}
		case *Details:
			ew.Printf("<details>\n<summary>%s</summary>\n\n", htmlEscape(v.Summary))
			writeMDBlocks(ew, v.Blocks)
			ew.Printf("\n</details>\n")
		case *Table:
			writeMDTable(ew, v)
		}
	}
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

func writeMDTable(ew *ErrWriter, t *Table) {
	if t.Title != "" {
		ew.Printf("**%s**\n\n", mdEscape(t.Title))
	}
	cells := make([]string, len(t.Header))
	for i, h := range t.Header {
		cells[i] = mdEscape(h)
	}
	ew.Printf("| %s |\n", strings.Join(cells, " | "))
	for i := range t.Header {
		cells[i] = "---"
		if i < len(t.Align) && t.Align[i] == Right {
			cells[i] = "---:"
		}
	}
	ew.Printf("|%s|\n", strings.Join(cells, "|"))
	for _, r := range MergedRows(t) {
		row := make([]string, len(t.Header))
		for i := range row {
			if i < len(r) {
				row[i] = mdEscape(r[i])
			}
		}
		ew.Printf("| %s |\n", strings.Join(row, " | "))
	}
	for _, n := range t.Notes {
		ew.Printf("\n%s\n", n)
	}
}

// WriteCSV writes tables as one CSV stream: a first column names each
// row's table, then the table's own columns; a table's header row comes
// before its rows (with "table" in the first column).
func WriteCSV(w io.Writer, tables ...*Table) error {
	cw := csv.NewWriter(w)
	for _, t := range tables {
		if err := cw.Write(append([]string{"table"}, t.Header...)); err != nil {
			return err
		}
		for _, r := range t.Rows {
			row := []string{termsafe.Escape(t.Title)}
			for _, c := range r {
				row = append(row, termsafe.Escape(c))
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteJSON writes v as indented JSON and a newline. <, > and & are
// written as they are, not \u-escaped: the output is read by people and
// programs, never embedded in HTML.
func WriteJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("writing json: %w", err)
	}
	// encoding/json escapes the C0 controls but writes C1 and
	// bidirectional controls as they are; as \uXXXX they read back the
	// same and act on no terminal (termsafe).
	_, err := w.Write([]byte(termsafe.EscapeJSON(buf.String())))
	return err
}

// AddRow appends one row of cells.
func (t *Table) AddRow(cells ...string) {
	t.Rows = append(t.Rows, cells)
}

package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A table is one output table whose cells are already formatted: the
// shared shape behind --format markdown and --format csv. JSON output does
// not go through it (each command writes its own schema with writeJSON, so
// that every number keeps its unit).
type table struct {
	// Title, when set, is printed before a markdown table as a line of
	// its own; csv output has no title.
	Title  string
	Header []string
	// Right marks the columns aligned right in markdown (numbers); it may
	// be shorter than Header.
	Right []bool
	Rows  [][]string
}

// addRow appends one row of cells.
func (t *table) addRow(cells ...string) {
	t.Rows = append(t.Rows, cells)
}

// writeTable writes t as a GitHub markdown table (format "markdown") or as
// CSV with a header line (format "csv").
func writeTable(w io.Writer, format string, t *table) error {
	switch format {
	case formatMarkdown:
		return writeMarkdownTable(w, t)
	case formatCSV:
		return writeCSVTable(w, t)
	}
	return fmt.Errorf("writing table: unsupported format %q", format)
}

// writeMarkdownTable writes t as a GitHub table: `|` in a cell is escaped
// as `\|`, a line break becomes a space.
func writeMarkdownTable(w io.Writer, t *table) error {
	var b strings.Builder
	if t.Title != "" {
		b.WriteString(t.Title)
		b.WriteString("\n\n")
	}
	mdRow(&b, t.Header)
	b.WriteString("|")
	for i := range t.Header {
		if i < len(t.Right) && t.Right[i] {
			b.WriteString(" ---: |")
		} else {
			b.WriteString(" --- |")
		}
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		mdRow(&b, r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

var mdEscaper = strings.NewReplacer(`|`, `\|`, "\r\n", " ", "\n", " ", "\r", " ")

func mdRow(b *strings.Builder, cells []string) {
	b.WriteString("|")
	for _, c := range cells {
		b.WriteString(" ")
		b.WriteString(mdEscaper.Replace(c))
		b.WriteString(" |")
	}
	b.WriteString("\n")
}

// writeCSVTable writes the header and rows of t as RFC 4180 CSV.
func writeCSVTable(w io.Writer, t *table) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(t.Header); err != nil {
		return err
	}
	if err := cw.WriteAll(t.Rows); err != nil {
		return err
	}
	return cw.Error()
}

// writeJSON writes v as indented JSON followed by a newline, without
// HTML escaping.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// fixed1 formats x with one decimal, rounding the exact binary value half
// to even like Python's format(x, ".1f").
func fixed1(x float64) string {
	return strconv.FormatFloat(x, 'f', 1, 64)
}

// shortest formats x with the fewest digits that read back as x (for
// machine formats: csv cells).
func shortest(x float64) string {
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// ljust pads s on the right to width characters (code points, as Python's
// str.ljust counts); a longer s is returned unchanged.
func ljust(s string, width int) string {
	if n := utf8.RuneCountInString(s); n < width {
		return s + strings.Repeat(" ", width-n)
	}
	return s
}

// rjust pads s on the left to width characters (code points).
func rjust(s string, width int) string {
	if n := utf8.RuneCountInString(s); n < width {
		return strings.Repeat(" ", width-n) + s
	}
	return s
}

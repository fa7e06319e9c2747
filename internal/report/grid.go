package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hbgkit/hbgkit/internal/document"
)

// The output formats of hbgtrace's table views (--format).
const (
	FormatText     = "text"
	FormatMarkdown = "markdown"
	FormatJSON     = "json"
	FormatCSV      = "csv"
)

// noMarkers is what the table views print when the log has nothing to
// show.
const noMarkers = "No [STRACE] markers found."

// writeNoMarkers writes the noMarkers line.
func writeNoMarkers(w io.Writer) error {
	_, err := fmt.Fprintln(w, noMarkers)
	return err
}

// writeGrid writes t as one table of a view: a GitHub table (format
// markdown, see writeGridMarkdown) or CSV with a header line (format csv,
// see writeGridCSV).
func writeGrid(w io.Writer, format string, t *document.Table) error {
	switch format {
	case FormatMarkdown:
		return writeGridMarkdown(w, t)
	case FormatCSV:
		return writeGridCSV(w, t)
	}
	return fmt.Errorf("writing table: unsupported format %q", format)
}

// writeGridMarkdown writes t as hbgtrace's views write a GitHub table:
// the title, when set, as a line of its own and a blank line, then the
// header, a rule of " --- |" (" ---: |" for a right-aligned column) and
// the rows. `|` in a cell is escaped as `\|`, a line break becomes a
// space. Merge and Notes are not used.
func writeGridMarkdown(w io.Writer, t *document.Table) error {
	var b strings.Builder
	if t.Title != "" {
		b.WriteString(t.Title)
		b.WriteString("\n\n")
	}
	gridRow(&b, t.Header)
	b.WriteString("|")
	for i := range t.Header {
		if i < len(t.Align) && t.Align[i] == document.Right {
			b.WriteString(" ---: |")
		} else {
			b.WriteString(" --- |")
		}
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		gridRow(&b, r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

var gridEscaper = strings.NewReplacer(`|`, `\|`, "\r\n", " ", "\n", " ", "\r", " ")

func gridRow(b *strings.Builder, cells []string) {
	b.WriteString("|")
	for _, c := range cells {
		b.WriteString(" ")
		b.WriteString(gridEscaper.Replace(c))
		b.WriteString(" |")
	}
	b.WriteString("\n")
}

// writeGridCSV writes the header and rows of t as RFC 4180 CSV; the
// title is not written.
func writeGridCSV(w io.Writer, t *document.Table) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(t.Header); err != nil {
		return err
	}
	if err := cw.WriteAll(t.Rows); err != nil {
		return err
	}
	return cw.Error()
}

// rightAligned returns n Right alignments.
func rightAligned(n int) []document.Align {
	a := make([]document.Align, n)
	for i := range a {
		a[i] = document.Right
	}
	return a
}

// fixed1 formats x with one decimal, rounding the exact binary value half
// to even like Python's format(x, ".1f").
func fixed1(x float64) string {
	return strconv.FormatFloat(x, 'f', 1, 64)
}

// appendFixed1 appends fixed1(x). A value that is a whole number of ns in
// µs (float64(n)/1000, as durations are) takes an integer path: the digits
// of n/1000 rounded to one decimal are those of x unless n/1000 lies
// exactly halfway between two of them (n%100 == 50), where only the
// binary value of x decides, and then, like any other value, x goes
// through strconv. For n below 2^50 the binary error of x is under a
// thousandth of the 10 ns between x and a rounding boundary.
func appendFixed1(dst []byte, x float64) []byte {
	if x >= 0 && x < 1<<40 && !math.Signbit(x) {
		if n := int64(math.Round(x * 1000)); float64(n)/1000 == x {
			return appendNsMicros1(dst, n)
		}
	}
	return strconv.AppendFloat(dst, x, 'f', 1, 64)
}

// appendNsMicros1 appends fixed1(float64(n)/1000) for a duration of n ns.
func appendNsMicros1(dst []byte, n int64) []byte {
	if n < 0 || n >= 1<<50 || n%100 == 50 {
		return strconv.AppendFloat(dst, float64(n)/1000, 'f', 1, 64)
	}
	d := (n + 50) / 100 // tenths of a µs, rounded
	dst = strconv.AppendInt(dst, d/10, 10)
	return append(dst, '.', byte('0'+d%10))
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

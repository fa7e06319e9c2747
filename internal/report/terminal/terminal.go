// Package terminal writes a document.Document for a terminal, its tables
// drawn by tablewriter. It is apart from package report so that only the
// binaries that print documents this way (hbgbench) link tablewriter.
package terminal

import (
	"fmt"
	"io"
	"strings"

	"github.com/hbgkit/hbgkit/internal/document"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// WriteText writes d for a terminal: tables drawn by
// tablewriter with light rules, details shown in full.
func WriteText(w io.Writer, d *document.Document) error {
	ew := &document.ErrWriter{W: w}
	writeTextBlocks(ew, d.Blocks)
	return ew.Err
}

func writeTextBlocks(ew *document.ErrWriter, bs []document.Block) {
	for i, b := range bs {
		if i > 0 {
			ew.Printf("\n")
		}
		switch v := b.(type) {
		case *document.Heading:
			ew.Printf("%s\n", v.Text)
			if v.Level <= 1 {
				ew.Printf("%s\n", strings.Repeat("=", len([]rune(v.Text))))
			}
		case *document.Paragraph:
			ew.Printf("%s\n", strings.TrimRight(v.Text, "\n"))
		case *document.Code:
			for _, l := range strings.Split(strings.TrimRight(v.Text, "\n"), "\n") {
				ew.Printf("  %s\n", l)
			}
		case *document.List:
			for _, it := range v.Items {
				ew.Printf("  - %s\n", it)
			}
		case *document.Details:
			ew.Printf("%s\n", v.Summary)
			writeTextBlocks(ew, v.Blocks)
		case *document.Table:
			writeTextTable(ew, v)
		}
	}
}

func twAlign(a []document.Align, n int) []tw.Align {
	out := make([]tw.Align, n)
	for i := range out {
		out[i] = tw.AlignLeft
		if i < len(a) && a[i] == document.Right {
			out[i] = tw.AlignRight
		}
	}
	return out
}

func writeTextTable(ew *document.ErrWriter, t *document.Table) {
	if t.Title != "" {
		ew.Printf("%s\n", t.Title)
	}
	if ew.Err != nil {
		return
	}
	var sb strings.Builder
	n := len(t.Header)
	al := twAlign(t.Align, n)
	table := tablewriter.NewTable(&sb,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.Border{Left: tw.Off, Right: tw.Off, Top: tw.Off, Bottom: tw.Off},
			Symbols: tw.NewSymbols(tw.StyleLight),
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenColumns: tw.Off, BetweenRows: tw.Off},
				Lines:      tw.Lines{ShowHeaderLine: tw.On},
			},
		})),
		tablewriter.WithConfig(tablewriter.Config{
			Header: tw.CellConfig{
				Alignment:  tw.CellAlignment{PerColumn: al},
				Formatting: tw.CellFormatting{AutoFormat: tw.Off},
			},
			Row: tw.CellConfig{Alignment: tw.CellAlignment{PerColumn: al}},
		}),
	)
	table.Header(t.Header)
	if err := table.Bulk(document.MergedRows(t)); err != nil {
		ew.Err = fmt.Errorf("writing table %q: %w", t.Title, err)
		return
	}
	if err := table.Render(); err != nil {
		ew.Err = fmt.Errorf("writing table %q: %w", t.Title, err)
		return
	}
	for _, line := range strings.SplitAfter(sb.String(), "\n") {
		if line != "" {
			ew.Printf("%s\n", strings.TrimRight(line, " \n"))
		}
	}
	for _, n := range t.Notes {
		ew.Printf("%s\n", n)
	}
}

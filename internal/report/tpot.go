package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/hbgkit/hbgkit/internal/document"
	"github.com/hbgkit/hbgkit/phases"
)

// The views of `hbgtrace tpot`: strace_timing's default table and its
// markdown, csv and json forms.

// tpotMicros formats a duration in ns as µs with one decimal.
func tpotMicros(ns int64) string {
	return fixed1(float64(ns) / 1000)
}

// tpotTitle is the line that introduces a callable.
func tpotTitle(c phases.TPOTCallable) string {
	return fmt.Sprintf("callable hid=%s \u2014 %d invocation(s)", c.Hid, c.Invocations)
}

// WriteTPOT writes tp in format (FormatText is strace_timing's default
// table, byte for byte).
func WriteTPOT(w io.Writer, format string, tp *phases.TPOT) error {
	switch format {
	case FormatJSON:
		return document.WriteJSON(w, tpotDoc(tp))
	case FormatCSV:
		return writeGridCSV(w, tpotCSV(tp))
	}
	if len(tp.Callables) == 0 {
		return writeNoMarkers(w)
	}
	if format == FormatMarkdown {
		return writeTPOTMarkdown(w, tp)
	}
	var b strings.Builder
	for _, c := range tp.Callables {
		b.WriteString(tpotTitle(c))
		b.WriteString("\n")
		if r := c.Root; r != nil {
			fmt.Fprintf(&b, "  chip.run: mean=%sus min=%sus max=%sus\n",
				tpotMicros(r.MeanNs), tpotMicros(r.MinNs), tpotMicros(r.MaxNs))
		}
		for _, s := range c.Stages {
			indent := 2 + 2*strings.Count(s.Name, ".")
			fmt.Fprintf(&b, "%s%s: mean=%sus (n=%d)\n", strings.Repeat(" ", indent), s.Name, tpotMicros(s.MeanNs), s.N)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeTPOTMarkdown(w io.Writer, tp *phases.TPOT) error {
	for i, c := range tp.Callables {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		t := &document.Table{
			Title:  tpotTitle(c),
			Header: []string{"Span", "n", "Mean (us)", "Min (us)", "Max (us)"},
			Align:  []document.Align{document.Left, document.Right, document.Right, document.Right, document.Right},
		}
		for _, s := range tpotStats(c) {
			t.AddRow(s.Name, strconv.Itoa(s.N), tpotMicros(s.MeanNs), tpotMicros(s.MinNs), tpotMicros(s.MaxNs))
		}
		if err := writeGridMarkdown(w, t); err != nil {
			return err
		}
	}
	return nil
}

// tpotStats is the root (when there is one) followed by the stages.
func tpotStats(c phases.TPOTCallable) []phases.TPOTStat {
	var out []phases.TPOTStat
	if c.Root != nil {
		out = append(out, *c.Root)
	}
	return append(out, c.Stages...)
}

func tpotCSV(tp *phases.TPOT) *document.Table {
	t := &document.Table{Header: []string{"hid", "invocations", "span", "n", "mean_us", "min_us", "max_us"}}
	for _, c := range tp.Callables {
		for _, s := range tpotStats(c) {
			t.AddRow(c.Hid, strconv.Itoa(c.Invocations), s.Name, strconv.Itoa(s.N),
				shortest(float64(s.MeanNs)/1000), shortest(float64(s.MinNs)/1000), shortest(float64(s.MaxNs)/1000))
		}
	}
	return t
}

type tpotJSON struct {
	Callables []tpotCallableJSON `json:"callables"`
}

type tpotCallableJSON struct {
	Hid         string         `json:"hid"`
	Invocations int            `json:"invocations"`
	Root        *tpotStatJSON  `json:"root"`
	Stages      []tpotStatJSON `json:"stages"`
}

type tpotStatJSON struct {
	Name   string  `json:"name"`
	N      int     `json:"n"`
	MeanUs float64 `json:"mean_us"`
	MinUs  float64 `json:"min_us"`
	MaxUs  float64 `json:"max_us"`
}

func tpotStatDoc(s phases.TPOTStat) tpotStatJSON {
	return tpotStatJSON{
		Name:   s.Name,
		N:      s.N,
		MeanUs: float64(s.MeanNs) / 1000,
		MinUs:  float64(s.MinNs) / 1000,
		MaxUs:  float64(s.MaxNs) / 1000,
	}
}

func tpotDoc(tp *phases.TPOT) tpotJSON {
	doc := tpotJSON{Callables: []tpotCallableJSON{}}
	for _, c := range tp.Callables {
		jc := tpotCallableJSON{Hid: c.Hid, Invocations: c.Invocations, Stages: []tpotStatJSON{}}
		if c.Root != nil {
			r := tpotStatDoc(*c.Root)
			jc.Root = &r
		}
		for _, s := range c.Stages {
			jc.Stages = append(jc.Stages, tpotStatDoc(s))
		}
		doc.Callables = append(doc.Callables, jc)
	}
	return doc
}

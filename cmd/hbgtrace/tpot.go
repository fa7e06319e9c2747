package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/hbgkit/hbgkit/phases"
	"github.com/spf13/cobra"
)

// tpotOptions are the flags and arguments of `hbgtrace tpot`.
type tpotOptions struct {
	logs   []string
	format string
}

func newTpotCmd() *cobra.Command {
	opts := &tpotOptions{}
	cmd := &cobra.Command{
		Use:   "tpot LOG...",
		Short: "Per-callable stage means (= strace_timing's default table)",
		Long: `tpot prints, for every callable (hid) in descending invocation count,
the mean, minimum and maximum duration of each invocation's root span,
then the mean of every named stage, as strace_timing does by default.
Each invocation contributes its earliest span of each name; stages come
in descending sample count, then by name, indented by their dots. Means
are truncated to whole nanoseconds before printing, as the reference
does.

Output formats (--format):
  text      the reference layout, byte for byte
  markdown  per callable, a title line and a GitHub table of its spans
  json      {"callables": [{"hid", "invocations",
            "root": null or {"name", "n", "mean_us", "min_us", "max_us"},
            "stages": [{"name", "n", "mean_us", "min_us", "max_us"}]}]};
            n is the number of invocations each number is over
  csv       header hid,invocations,span,n,mean_us,min_us,max_us; one
            line per root and stage`,
		Example: `  hbgtrace tpot host.log
  hbgtrace tpot --format markdown spool/
  cat host.log | hbgtrace tpot -`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.logs = args
			if err := checkFormat(cmd, opts.format); err != nil {
				return err
			}
			return tpotRun(cmd, opts)
		},
	}
	addFormatFlag(cmd, &opts.format)
	return cmd
}

func tpotRun(cmd *cobra.Command, opts *tpotOptions) error {
	c, err := summariseInvocations(cmd, opts.logs, false)
	if err != nil {
		return err
	}
	tp := c.TPOT()
	return writeView(cmd, "tpot", func(w io.Writer) error { return writeTPOT(w, opts.format, tp) })
}

// tpotMicros formats a duration in ns as µs with one decimal.
func tpotMicros(ns int64) string {
	return fixed1(float64(ns) / 1000)
}

// tpotTitle is the line that introduces a callable.
func tpotTitle(c phases.TPOTCallable) string {
	return fmt.Sprintf("callable hid=%s \u2014 %d invocation(s)", c.Hid, c.Invocations)
}

// writeTPOT writes tp in format.
func writeTPOT(w io.Writer, format string, tp *phases.TPOT) error {
	switch format {
	case formatJSON:
		return writeJSON(w, tpotDoc(tp))
	case formatCSV:
		return writeCSVTable(w, tpotCSV(tp))
	}
	if len(tp.Callables) == 0 {
		_, err := fmt.Fprintln(w, noMarkers)
		return err
	}
	if format == formatMarkdown {
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
		t := &table{
			Title:  tpotTitle(c),
			Header: []string{"Span", "n", "Mean (us)", "Min (us)", "Max (us)"},
			Right:  []bool{false, true, true, true, true},
		}
		for _, s := range tpotStats(c) {
			t.addRow(s.Name, strconv.Itoa(s.N), tpotMicros(s.MeanNs), tpotMicros(s.MinNs), tpotMicros(s.MaxNs))
		}
		if err := writeMarkdownTable(w, t); err != nil {
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

func tpotCSV(tp *phases.TPOT) *table {
	t := &table{Header: []string{"hid", "invocations", "span", "n", "mean_us", "min_us", "max_us"}}
	for _, c := range tp.Callables {
		for _, s := range tpotStats(c) {
			t.addRow(c.Hid, strconv.Itoa(c.Invocations), s.Name, strconv.Itoa(s.N),
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

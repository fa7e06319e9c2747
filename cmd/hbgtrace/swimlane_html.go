package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/hbgkit/hbgkit/swimlane"
	"github.com/hbgkit/hbgkit/trace"
)

// swimlaneHTML writes the --html page of `hbgtrace swimlane`: the lanes of
// sw, binds labelled with their row of `hbgtrace rounds`, and, when
// artifacts were given, the gaps of `hbgtrace gaps`.
func swimlaneHTML(opts *swimlaneOptions, log *trace.Log, sw *swimlane.Swimlane) error {
	hopts := swimlane.HTMLOptions{
		Title: strings.Join(opts.logs, " "),
		Round: roundIndex(log),
		Gaps:  len(opts.records) > 0,
	}
	if err := writeOutput(opts.Stdout, opts.html, func(w io.Writer) error { return sw.WriteHTML(w, hopts) }); err != nil {
		return fmt.Errorf("swimlane: %w", err)
	}
	wrote(opts.ioStreams, opts.html, "Wrote HTML swimlane: %s (%s)\n", opts.html,
		swimlaneCounts(sw.Summary(), len(opts.records) > 0))
	return nil
}

package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/hbgkit/hbgkit/swimlane"
	"github.com/hbgkit/hbgkit/trace"
	"github.com/spf13/cobra"
)

// swimlaneHTML writes the --html page of `hbgtrace swimlane`: the lanes of
// sw, binds labelled with their row of `hbgtrace rounds`, and, when
// artifacts were given, the gaps of `hbgtrace gaps`.
func swimlaneHTML(cmd *cobra.Command, log *trace.Log, sw *swimlane.Swimlane, args []string, opts swimlaneOptions) error {
	hopts := swimlane.HTMLOptions{
		Title: strings.Join(args, " "),
		Round: roundIndex(log),
		Gaps:  len(opts.records) > 0,
	}
	if err := swimlane.WriteFile(opts.html, func(w io.Writer) error { return sw.WriteHTML(w, hopts) }); err != nil {
		return fmt.Errorf("swimlane: %w", err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "Wrote HTML swimlane: %s (%s)\n", opts.html,
		swimlaneCounts(sw.Summary(), len(opts.records) > 0))
	return nil
}

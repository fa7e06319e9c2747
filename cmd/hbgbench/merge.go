package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/hbgkit/hbgkit/abtest/abreport"
	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
)

// isDir reports whether path is a directory.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// mergeRun reads the shards' journals, merges them and writes the merged
// report.
func mergeRun(opts *ReportOptions) error {
	if opts.Format == "benchfmt" {
		return &usageError{err: errors.New("report: --format benchfmt is per journal: run report --format benchfmt on each shard's journal")}
	}
	js, err := journal.ReadShards(opts.Journals)
	if err != nil {
		return err
	}
	m, err := analysis.Merge(js)
	if err != nil {
		return err
	}
	if opts.Redact {
		m = abreport.RedactedMerged(m)
	}
	for _, w := range m.Warnings {
		fmt.Fprintf(opts.Err, "hbgbench: warning: %s\n", w)
	}
	return abreport.WriteMerged(opts.Out, opts.Format, m)
}

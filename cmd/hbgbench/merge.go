package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/hbgkit/hbgkit/abtest/abreport"
	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
)

// isDir reports whether path is a directory.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// shardJournals expands report's arguments: a directory becomes the
// journals (*.jsonl) in it.
func shardJournals(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		if !isDir(a) {
			out = append(out, a)
			continue
		}
		js, err := filepath.Glob(filepath.Join(a, "*.jsonl"))
		if err != nil {
			return nil, err
		}
		if len(js) == 0 {
			return nil, fmt.Errorf("%s: no journal (*.jsonl) in the directory", a)
		}
		sort.Strings(js)
		out = append(out, js...)
	}
	return out, nil
}

// mergeRun reads the shards' journals, merges them and writes the merged
// report.
func mergeRun(opts *ReportOptions) error {
	if opts.Format == "benchfmt" {
		return &usageError{err: errors.New("report: --format benchfmt is per journal: run report --format benchfmt on each shard's journal")}
	}
	paths, err := shardJournals(opts.Journals)
	if err != nil {
		return err
	}
	var js []*journal.Journal
	for _, p := range paths {
		j, err := journal.ReadJournal(p)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		js = append(js, j)
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

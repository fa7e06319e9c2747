package main

import (
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/hbgkit/hbgkit/internal/outfile"
	"github.com/hbgkit/hbgkit/swimlane"
	"github.com/hbgkit/hbgkit/trace"
)

// writeOutput writes the -o target path by the rule of internal/outfile
// ("-" is stdout, a device or FIFO is written in place, a directory is an
// error, a file > could not write is refused, a regular file is replaced
// atomically); a name ending in .gz is written gzip-compressed. Commands
// call checkOutputs first.
func writeOutput(stdout io.Writer, path string, write func(io.Writer) error) error {
	return outfile.Write(path, stdout, func(w io.Writer) error {
		if !strings.HasSuffix(path, ".gz") {
			return write(w)
		}
		zw := gzip.NewWriter(w)
		zw.Name = strings.TrimSuffix(filepath.Base(path), ".gz")
		if err := write(zw); err != nil {
			return err
		}
		return zw.Close()
	})
}

// checkOutputs refuses, before anything is read, outputs that would
// destroy an input (a log, a file of a log directory, a --records
// artifact) or one another, or a file the user may not write
// (outfile.Check).
func checkOutputs(st ioStreams, logs, records []string, outputs ...string) error {
	inputs := append([]string(nil), records...)
	if srcs, err := trace.Inputs(logs, st.Stdin); err == nil {
		for _, s := range srcs {
			inputs = append(inputs, s.Name)
		}
	} // else reading the logs reports it
	return outfile.Check(outputs, inputs)
}

// wrote prints a command's "Wrote …" summary line: on stdout, as the
// reference does, unless the output itself went to stdout (-o -), where it
// would corrupt it; then on stderr.
func wrote(st ioStreams, path, format string, a ...any) {
	w := st.Stdout
	if path == "-" {
		w = st.Stderr
	}
	fmt.Fprintf(w, format, a...)
}

// loadRecords reads the --records artifacts and prints their warnings (a
// file that yields no pass is named) on stderr; with skipped, also the
// lines it left out (a truncated line), which the reference's swimlane
// skips silently and views of hbgkit's own name. They hold at most
// trace.RecordValuesPerSpan JSON values per span of --max-spans.
func loadRecords(in logInput, paths []string, skipped bool) ([]trace.RecordPass, error) {
	stderr := in.Stderr
	maxValues := 0 // none, with --max-spans 0 or past what an int holds
	if in.maxSpans > 0 && in.maxSpans <= math.MaxInt/trace.RecordValuesPerSpan {
		maxValues = in.maxSpans * trace.RecordValuesPerSpan
	}
	passes, warns, skip, err := trace.LoadPhaseRecordsMax(paths, maxValues)
	if err != nil {
		return nil, tooManySpans(err, "--max-spans")
	}
	for _, w := range warns {
		fmt.Fprintln(stderr, w)
	}
	if skipped && len(skip) > 0 {
		var at []string
		for _, p := range skip[:min(len(skip), trace.MaxExamples)] {
			at = append(at, fmt.Sprintf("%s:%d", p.File, p.Line))
		}
		more := ""
		if len(skip) > trace.MaxExamples {
			more = fmt.Sprintf(" and %d more", len(skip)-trace.MaxExamples)
		}
		fmt.Fprintf(stderr, "warning: %d host_phase_records line(s) are not a pass (truncated?) and are left out, with the records of their binds: %s%s\n",
			len(skip), strings.Join(at, ", "), more)
	}
	return passes, nil
}

// readSwimlane reads the logs and the --records artifacts of command name
// and builds their swimlane, printing every warning on stderr on the way:
// the common start of swimlane, gaps and pprof.
func readSwimlane(in logInput, name string, records []string) (*trace.Log, *swimlane.Swimlane, error) {
	st := in.ioStreams
	log, err := readLog(in)
	if err != nil {
		return nil, nil, err
	}
	printWarnings(st.Stderr, log)
	passes, err := loadRecords(in, records, name != "swimlane")
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	sw := swimlane.Build(log, passes)
	for _, w := range sw.Warnings() {
		fmt.Fprintln(st.Stderr, w)
	}
	return log, sw, nil
}

package main

import (
	"compress/gzip"
	"fmt"
	"github.com/hbgkit/hbgkit/trace"
	"io"
	"path/filepath"
	"strings"

	"github.com/hbgkit/hbgkit/internal/outfile"
)

// writeOutput writes the -o target path by the rule of internal/outfile
// ("-" is stdout, a device or FIFO is written in place, a directory is an
// error, a regular file is replaced atomically); a name ending in .gz is
// written gzip-compressed.
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
// file that yields no pass is named) on stderr.
func loadRecords(stderr io.Writer, paths []string) ([]trace.RecordPass, error) {
	passes, warns, err := trace.LoadPhaseRecordsWarn(paths)
	if err != nil {
		return nil, err
	}
	for _, w := range warns {
		fmt.Fprintln(stderr, w)
	}
	return passes, nil
}

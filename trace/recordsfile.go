package trace

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// RecordsFile is the per-event artifact a run leaves beside its
// host.*.log files (docs/formats.md "host_phase_records.jsonl").
const RecordsFile = "host_phase_records.jsonl"

// DirRecords returns the records artifact of the run directory dir: its
// host_phase_records.jsonl, else the gzip copy host_phase_records.jsonl.gz
// that hbgbench keeps of a block's (as it keeps host.N.log.gz), else "".
// It is the one rule for which records a run directory holds (hbgtrace's
// run-directory sides, hbgbench's blocks and compare sides).
func DirRecords(dir string) string {
	for _, name := range []string{RecordsFile, RecordsFile + ".gz"} {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// MaxRecordsBytes bounds what one records file may expand to when it is
// gzip-compressed: the file is read whole, and a few KB of gzip can hold
// gigabytes. A plain file is read as it stands. Tests lower it.
var MaxRecordsBytes int64 = 1 << 30

// readRecordsFile returns the content of a records file, decompressed
// when it starts with gzip's magic bytes (whatever its name), and an
// error naming the file and the bound past MaxRecordsBytes of content.
func readRecordsFile(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", p, err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	magic, _ := br.Peek(2)
	if len(magic) < 2 || magic[0] != 0x1f || magic[1] != 0x8b {
		// Sized from the file, as os.ReadFile does, not grown by doubling.
		var size int64
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			size = st.Size()
		}
		buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
		if _, err := buf.ReadFrom(br); err != nil {
			return nil, fmt.Errorf("reading %s: %w", p, err)
		}
		return buf.Bytes(), nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", p, err)
	}
	data, err := io.ReadAll(io.LimitReader(zr, MaxRecordsBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", p, err)
	}
	if int64(len(data)) > MaxRecordsBytes {
		return nil, &RecordsExpandError{File: p, Limit: MaxRecordsBytes}
	}
	return data, nil
}

// A RecordsExpandError is a gzip-compressed records file whose content
// runs past MaxRecordsBytes: the file's fault, not the reader's.
type RecordsExpandError struct {
	File  string
	Limit int64
}

func (e *RecordsExpandError) Error() string {
	return fmt.Sprintf("reading %s: it expands past %d MiB, the most a gzip-compressed records file is read to", e.File, e.Limit>>20)
}

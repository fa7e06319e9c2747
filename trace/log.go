package trace

import (
	"errors"
	"io"
)

// PLACEHOLDER: the reader engineer replaces this file with the real
// implementation; the signatures below are the contract other packages use.

// A Source is one input of a log: a file (optionally gzip-compressed), or
// standard input.
type Source struct {
	Name string // as the user named it ("-" for standard input)
	Open func() (io.ReadCloser, error)
}

// Inputs expands command-line arguments into sources, in order: "-" is
// stdin, a directory is its sorted host.*.log files (none is an error), any
// file or stdin may be gzip-compressed. Missing files are errors naming the
// file.
func Inputs(args []string, stdin io.Reader) ([]Source, error) {
	return nil, errors.New("trace.Inputs: not implemented yet")
}

// A Log is everything a whole log holds, in log order.
type Log struct {
	Sources    []string // the input names, in order
	Spans      []Span
	Heads      int // [STRACE] record heads counted (every family); Heads > len(Spans) means torn records
	Anchors    []Anchor
	BindPhases []BindPhase
	HostOrch   []HostOrchPhase
	Stamp      *Stamp  // the first [stamp] line, nil when none
	Drops      []Drops // per pid the summary with the largest Total (ties: the later), sorted by pid
}

// ReadLog reads every source in order as one stream.
func ReadLog(srcs []Source) (*Log, error) {
	return nil, errors.New("trace.ReadLog: not implemented yet")
}

// Warnings returns the stderr warnings of REFERENCE §3.2 in order, each
// without the trailing newline: multiple anchors per pid (ascending pid),
// torn records, then [HOSTLOG_DROPS] per pid.
func (l *Log) Warnings() []string { return nil }

// AnchorFor returns the last anchor seen for pid.
func (l *Log) AnchorFor(pid int64) (Anchor, bool) { return Anchor{}, false }

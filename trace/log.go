package trace

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// A Source is one input of a log: a file (optionally gzip-compressed), or
// standard input.
type Source struct {
	Name string // as the user named it ("-" for standard input)
	Open func() (io.ReadCloser, error)
}

// FileSource returns the source that reads the file at path.
func FileSource(path string) Source {
	return Source{Name: path, Open: func() (io.ReadCloser, error) { return os.Open(path) }}
}

// ReaderSource returns a source named name that reads r (not closed).
func ReaderSource(name string, r io.Reader) Source {
	return Source{Name: name, Open: func() (io.ReadCloser, error) { return io.NopCloser(r), nil }}
}

// Inputs expands command-line arguments into sources, in order: "-" is
// stdin, a directory is its host.*.log and host.*.log.gz files sorted by
// name (none is an error), any file or stdin may be gzip-compressed
// (recognised by its magic bytes, not its name). A file that cannot be
// opened is not an error here: reading it is, with a message naming the
// file. Inputs drops the warnings of InputsWarn.
func Inputs(args []string, stdin io.Reader) ([]Source, error) {
	srcs, _, err := InputsWarn(args, stdin)
	return srcs, err
}

// InputsWarn is Inputs that also returns a warning for each entry of a
// directory it skips: one that is not a regular file (a FIFO would block
// the read), and a host.N.log.gz beside its host.N.log (the same log).
func InputsWarn(args []string, stdin io.Reader) ([]Source, []string, error) {
	if len(args) == 0 {
		return nil, nil, errors.New("no input: name a log file, a directory of host.*.log files, or - for standard input")
	}
	var out []Source
	var warns []string
	for _, a := range args {
		if a == "-" {
			out = append(out, ReaderSource("-", stdin))
			continue
		}
		st, err := os.Stat(a)
		if err != nil || !st.IsDir() {
			out = append(out, FileSource(a))
			continue
		}
		files, w, err := hostLogs(a)
		if err != nil {
			return nil, nil, fmt.Errorf("listing %s: %w", a, err)
		}
		warns = append(warns, w...)
		if len(files) == 0 {
			return nil, nil, fmt.Errorf("%s is a directory but holds no host.*.log or host.*.log.gz files", a)
		}
		for _, f := range files {
			out = append(out, FileSource(f))
		}
	}
	return out, warns, nil
}

// hostLogs returns the host.*.log and host.*.log.gz regular files of dir
// (symbolic links followed), sorted by name, and a warning per entry of
// that name it skips: not a regular file, or a .gz twin of a host.*.log.
func hostLogs(dir string) ([]string, []string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	names := make(map[string]bool)
	var out, warns []string
	for _, e := range ents {
		name := e.Name()
		plain, _ := filepath.Match("host.*.log", name)
		gz, _ := filepath.Match("host.*.log.gz", name)
		if !plain && !gz {
			continue
		}
		path := filepath.Join(dir, name)
		st, err := os.Stat(path)
		switch {
		case err != nil:
			warns = append(warns, fmt.Sprintf("warning: skipping %s: %v", path, err))
			continue
		case st.IsDir():
			continue
		case !st.Mode().IsRegular():
			warns = append(warns, fmt.Sprintf("warning: skipping %s: not a regular file (%s)", path, fileKind(st.Mode())))
			continue
		}
		names[name] = true
		out = append(out, path)
	}
	kept := out[:0]
	for _, p := range out {
		if base := filepath.Base(p); strings.HasSuffix(base, ".gz") && names[strings.TrimSuffix(base, ".gz")] {
			warns = append(warns, fmt.Sprintf("warning: skipping %s: %s is beside it, the same log uncompressed", p, strings.TrimSuffix(base, ".gz")))
			continue
		}
		kept = append(kept, p)
	}
	sort.Strings(kept)
	return kept, warns, nil
}

// fileKind names a file mode that is not a regular file.
func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}

// A Log is everything a whole log holds, in log order.
type Log struct {
	Sources []string // the input names, in order
	Spans   []Span
	Heads   int // [STRACE] record heads counted (every family); Heads > len(Spans) means torn records
	// Parsed is the number of heads that parsed as spans. It is above
	// len(Spans) when ReadLogOptions kept only some spans; 0 in a Log built
	// by hand stands for len(Spans).
	Parsed     int
	Anchors    []Anchor
	BindPhases []BindPhase
	HostOrch   []HostOrchPhase
	Stamp      *Stamp // the first [stamp] line, nil when none
	// Autoloads are the distinct torch_backend_autoload records, in the
	// order first seen.
	Autoloads []string
	Drops     []Drops // per pid the summary with the largest Total (ties: the later), sorted by pid

	// TornLines are the first MaxExamples torn records, with their
	// reasons; TornCount counts them all (lines, not heads).
	TornLines []Torn
	TornCount int
	// Malformed are the first MaxExamples malformed lines of each kind;
	// MalformedCount counts them all, per kind.
	Malformed      []Malformed
	MalformedCount map[Kind]int
	// Binary lists the sources that do not look like text logs, with what
	// was read from them.
	Binary []BinarySource
}

// MaxExamples is how many torn or malformed lines of each kind a Log keeps
// to name in its warnings.
const MaxExamples = 3

// ReadLog reads every source in order as one stream, parsing on every
// processor Go may use (GOMAXPROCS).
func ReadLog(srcs []Source) (*Log, error) {
	return ReadLogOptions(srcs, ReadOptions{Workers: runtime.GOMAXPROCS(0)})
}

// ReadLogOptions reads every source in order as one stream, keeping the
// records opts asks for (see ReadOptions). Heads and Parsed always count
// every [STRACE] record when spans or torn records are asked for, so
// Warnings stays right when KeepSpan keeps only some spans.
func ReadLogOptions(srcs []Source, opts ReadOptions) (*Log, error) {
	return StreamLog(srcs, opts, Visitors{})
}

// spanBlock is how many records StreamLog collects per block.
const spanBlock = 16 << 10

// A blockList collects records in blocks of spanBlock, joined once at the
// end: appending to one slice copies every record about twice as it
// grows, under the collector's write barrier while it marks.
type blockList[T any] struct {
	blocks [][]T
}

func (b *blockList[T]) add(v *T) {
	n := len(b.blocks)
	if n == 0 || len(b.blocks[n-1]) == cap(b.blocks[n-1]) {
		b.blocks = append(b.blocks, make([]T, 0, spanBlock))
		n++
	}
	b.blocks[n-1] = append(b.blocks[n-1], *v)
}

// join returns every record in order, nil when there is none; the blocks
// are let go of as they are copied.
func (b *blockList[T]) join() []T {
	switch len(b.blocks) {
	case 0:
		return nil
	case 1:
		return b.blocks[0]
	}
	n := 0
	for _, x := range b.blocks {
		n += len(x)
	}
	out := make([]T, 0, n)
	for i, x := range b.blocks {
		out = append(out, x...)
		b.blocks[i] = nil
	}
	return out
}

// Visitors take the records of the kinds they are set for as a stream
// reads them, in log order, instead of a Log keeping them. A pointer is
// valid during the call only; the strings in the record stay valid.
type Visitors struct {
	Span      func(s *Span)
	BindPhase func(l *BindPhase)
	HostOrch  func(l *HostOrchPhase)
	// Err, when not nil, is asked after each record a visitor took; an
	// error it returns ends the read, and StreamLog returns it. A
	// visitor that keeps what it is given bounds itself this way.
	Err func() error
}

// A TooManySpansError ends a read that would hold more spans and
// bind-phase records than a bound allows (ReadOptions.MaxSpans, or a
// view's own): Pos is the record that went past it.
type TooManySpansError struct {
	Max int
	Pos Pos
	// What names what is held, "spans and phase lines" when empty.
	What string
}

func (e *TooManySpansError) Error() string {
	return fmt.Sprintf("reading %s: line %d: more than %d %s to hold in memory", e.Pos.File, e.Pos.Line, e.Max, e.Held())
}

// Held names what the bound counts: What, or "spans and phase lines".
func (e *TooManySpansError) Held() string {
	if e.What == "" {
		return "spans and phase lines"
	}
	return e.What
}

// StreamLog reads srcs like ReadLogOptions, but hands each span, bind-phase
// and host-orch record to the function of v for its kind, when set,
// instead of keeping it in the Log. The Log then holds the small records
// (anchors, stamp, drops, the counts behind Warnings), so the memory a
// view needs is what its visitors keep.
func StreamLog(srcs []Source, opts ReadOptions, v Visitors) (*Log, error) {
	l := &Log{}
	for _, s := range srcs {
		l.Sources = append(l.Sources, s.Name)
	}
	drops := make(map[int64]Drops)
	var spans blockList[Span]
	var phases blockList[BindPhase]
	r := NewReaderOptions(srcs, opts)
	defer r.Close()
	held := &Bound{Max: opts.MaxSpans} // spans, bind-phase and host-orch lines kept in l
	hold := func(p Pos) error {
		if !held.Hold(p) {
			return held.Err()
		}
		return nil
	}
	for r.Scan() {
		switch r.Kind() {
		case KindSpan:
			if v.Span != nil {
				v.Span(r.Span())
				if v.Err != nil {
					if err := v.Err(); err != nil {
						return nil, err
					}
				}
				break
			}
			if err := hold(r.Span().Pos); err != nil {
				return nil, err
			}
			spans.add(r.Span())
		case KindAnchor:
			l.Anchors = append(l.Anchors, *r.Anchor())
		case KindBindPhase:
			if v.BindPhase != nil {
				v.BindPhase(r.BindPhase())
				if v.Err != nil {
					if err := v.Err(); err != nil {
						return nil, err
					}
				}
			} else {
				if err := hold(r.BindPhase().Pos); err != nil {
					return nil, err
				}
				phases.add(r.BindPhase())
			}
		case KindHostOrch:
			if v.HostOrch != nil {
				v.HostOrch(r.HostOrch())
				if v.Err != nil {
					if err := v.Err(); err != nil {
						return nil, err
					}
				}
			} else {
				if err := hold(r.HostOrch().Pos); err != nil {
					return nil, err
				}
				l.HostOrch = append(l.HostOrch, *r.HostOrch())
			}
		case KindStamp:
			if l.Stamp == nil {
				st := *r.Stamp()
				l.Stamp = &st
			}
		case KindAutoload:
			if text := r.Autoload().Text; !slices.Contains(l.Autoloads, text) {
				l.Autoloads = append(l.Autoloads, text)
			}
		case KindTorn:
			if l.TornCount++; len(l.TornLines) < MaxExamples {
				l.TornLines = append(l.TornLines, *r.Torn())
			}
		case KindMalformed:
			m := *r.Malformed()
			if l.MalformedCount == nil {
				l.MalformedCount = make(map[Kind]int)
			}
			if l.MalformedCount[m.Kind]++; l.MalformedCount[m.Kind] <= MaxExamples {
				l.Malformed = append(l.Malformed, m)
			}
		case KindDrops:
			d := *r.Drops()
			if cur, ok := drops[d.Pid]; !ok || d.Total >= cur.Total {
				drops[d.Pid] = d
			}
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	l.Heads, l.Parsed = r.Heads(), r.Parsed()
	l.Binary = r.Binary()
	l.Spans = spans.join()
	l.BindPhases = phases.join()
	for _, d := range drops {
		l.Drops = append(l.Drops, d)
	}
	sort.Slice(l.Drops, func(i, j int) bool { return l.Drops[i].Pid < l.Drops[j].Pid })
	return l, nil
}

// Warnings returns the reference's stderr warnings in order, each
// without the trailing newline: multiple anchors per pid (ascending pid),
// torn records, then [HOSTLOG_DROPS] per pid (their text is in
// docs/formats.md). The "no [CLOCK_ANCHOR]" warning that only a fork of
// the reference prints is not among them: hbgtrace does not print it.
//
// hbgkit's own warnings come first: sources that are not text, and
// malformed lines (MalformedWarnings). After the torn-record count comes
// the reasons and the first lines of the torn records (TornDetail), when
// the reference would not have counted them (TornBeyondReference) or
// when every record was torn, so stdout's "No [STRACE] markers found" is
// explained; else the count alone stays as the reference prints it.
func (l *Log) Warnings() []string {
	return l.warnings(false)
}

func (l *Log) warnings(verbose bool) []string {
	var out []string
	for _, s := range l.Binary {
		out = append(out, binaryWarning(s))
	}
	out = append(out, l.MalformedWarnings(AllKinds)...)
	counts := make(map[int64]int)
	var pids []int64
	for _, a := range l.Anchors {
		if counts[a.Pid] == 0 {
			pids = append(pids, a.Pid)
		}
		counts[a.Pid]++
	}
	sort.Slice(pids, func(i, j int) bool { return pids[i] < pids[j] })
	for _, p := range pids {
		if n := counts[p]; n > 1 {
			out = append(out, fmt.Sprintf("warning: multiple [CLOCK_ANCHOR] records found for pid %d (%d records); using the last one", p, n))
		}
	}
	if parsed := max(l.Parsed, len(l.Spans)); l.Heads > parsed {
		out = append(out, fmt.Sprintf("warning: %d of %d [STRACE] records are incomplete and are excluded from the timing below", l.Heads-parsed, l.Heads))
		if verbose || parsed == 0 || l.TornBeyondReference() {
			out = append(out, l.TornDetail())
		}
	}
	for _, d := range l.Drops {
		out = append(out, fmt.Sprintf("warning: pid %d dropped %d host-log record(s) before they reached the destination (queue_full=%d claim_exhausted=%d output_failed=%d not_admitted=%d); the timing below is computed from an incomplete log",
			d.Pid, d.Total, d.QueueFull, d.ClaimExhausted, d.OutputFailed, d.NotAdmitted))
	}
	return out
}

// binaryWarning says that a source is not text, and what was read from it
// and what was not.
func binaryWarning(s BinarySource) string {
	w := fmt.Sprintf("warning: %s does not look like a text log (it holds binary data)", s.Name)
	if s.Spans+s.Others == 0 {
		if s.Heads > 0 {
			return w + fmt.Sprintf("; none of its %d [STRACE] record(s) could be read", s.Heads)
		}
		return w + "; nothing in it can be read as records"
	}
	var read []string
	if s.Heads > 0 {
		what := fmt.Sprintf("%d of %d [STRACE] record(s)", s.Spans, s.Heads)
		if s.ControlNames > 0 {
			what += fmt.Sprintf(" (%d with control bytes such as NUL in the span name, printed as they are)", s.ControlNames)
		}
		read = append(read, what)
	}
	if s.Others > 0 {
		read = append(read, fmt.Sprintf("%d other record(s)", s.Others))
	}
	w += "; read from it: " + strings.Join(read, " and ")
	if s.Heads > s.Spans {
		w += fmt.Sprintf("; not read: %d [STRACE] record(s), counted below", s.Heads-s.Spans)
	}
	return w
}

// hbgkitOnlyTorn are the torn reasons of records the reference reads as
// spans: hbgkit tears them rather than print a wrong number.
var hbgkitOnlyTorn = map[string]bool{
	"unterminated last line": true,
	"dur is not an integer":  true,
	"dur overflows int64":    true,
	"ts overflows int64":     true,
	"ts+dur overflows int64": true,
	"inv overflows 64 bits":  true,
	"pid overflows int64":    true,
	"tid overflows int64":    true,
	"depth overflows int64":  true,
}

// TornBeyondReference reports whether a torn record kept in TornLines is
// one the reference would have read as a span (an unterminated last line,
// dur=9e30, a number beyond int64).
func (l *Log) TornBeyondReference() bool {
	for _, t := range l.TornLines {
		if hbgkitOnlyTorn[t.Reason] {
			return true
		}
	}
	return false
}

// TornDetail is the warning that names the first torn records and why
// each did not parse.
func (l *Log) TornDetail() string {
	return "warning: incomplete [STRACE] records: " + examples(len(l.TornLines), l.TornCount, func(i int) (Pos, string) {
		return l.TornLines[i].Pos, l.TornLines[i].Reason
	})
}

// malformedWhat names the line of each kind in warnings.
var malformedWhat = map[Kind]string{
	KindBindPhase: "`bind phase=`",
	KindHostOrch:  "`host-orch phase=`",
	KindAnchor:    "[CLOCK_ANCHOR]",
	KindDrops:     "[HOSTLOG_DROPS]",
}

// MalformedWarnings returns one warning per kind in ks that has malformed
// lines, in the order bind phase, host-orch, anchor, drops: how many were
// left out, and the first lines with their reasons.
func (l *Log) MalformedWarnings(ks KindSet) []string {
	var out []string
	for _, k := range []Kind{KindBindPhase, KindHostOrch, KindAnchor, KindDrops} {
		n := l.MalformedCount[k]
		if n == 0 || !ks.Has(k) {
			continue
		}
		var ex []Malformed
		for _, m := range l.Malformed {
			if m.Kind == k {
				ex = append(ex, m)
			}
		}
		out = append(out, fmt.Sprintf("warning: %d %s line(s) did not parse and are left out: %s", n, malformedWhat[k],
			examples(len(ex), n, func(i int) (Pos, string) { return ex[i].Pos, ex[i].Reason })))
	}
	return out
}

// examples renders the first n of total places as `file:line (why)`,
// comma-separated, and how many more there are.
func examples(n, total int, at func(int) (Pos, string)) string {
	var b []byte
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ", "...)
		}
		p, why := at(i)
		b = fmt.Appendf(b, "%s:%d (%s)", p.File, p.Line, why)
	}
	if total > n {
		b = fmt.Appendf(b, " and %d more", total-n)
	}
	return string(b)
}

// AnchorFor returns the last anchor seen for pid.
func (l *Log) AnchorFor(pid int64) (Anchor, bool) {
	for i := len(l.Anchors) - 1; i >= 0; i-- {
		if l.Anchors[i].Pid == pid {
			return l.Anchors[i], true
		}
	}
	return Anchor{}, false
}

// WallNs returns WallTime's ns as an int64 when it is one: ok is false
// when t is before the anchor or the wall time is past the int64 range.
func WallNs(a Anchor, t int64) (int64, bool) {
	if a.MonoNs > t {
		return 0, false
	}
	diff := t - a.MonoNs
	if diff >= 0 && (a.WallNs <= 0 || diff <= math.MaxInt64-a.WallNs) {
		return a.WallNs + diff, true
	}
	return 0, false
}

// WallTime maps the monotonic time t of the anchor's process to wall time
// (docs/formats.md "[CLOCK_ANCHOR]"): WallNs + t − MonoNs, computed exactly
// as the reference's Python integers do (it may exceed int64 with extreme
// values, so ns is its decimal text), and text renders it as UTC
// `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ`. ok is false when t is before the anchor
// (a.MonoNs > t); such a time gets no wall time.
func WallTime(a Anchor, t int64) (ns string, text string, ok bool) {
	if a.MonoNs > t {
		return "", "", false
	}
	var sec, frac int64
	if n, ok := WallNs(a, t); ok {
		ns = strconv.FormatInt(n, 10)
		sec, frac = n/1e9, n%1e9
		if frac < 0 {
			sec, frac = sec-1, frac+1e9
		}
	} else {
		// Past int64: the exact value in a big.Int; its seconds fit.
		n := new(big.Int).Sub(big.NewInt(t), big.NewInt(a.MonoNs))
		n.Add(n, big.NewInt(a.WallNs))
		ns = n.String()
		q, m := new(big.Int).DivMod(n, big.NewInt(1e9), new(big.Int))
		sec, frac = q.Int64(), m.Int64()
	}
	// One allocation for the text: a view writes one for every span.
	var buf [40]byte
	b := time.Unix(sec, 0).UTC().AppendFormat(buf[:0], "2006-01-02T15:04:05")
	b = append(b, '.')
	for d := int64(1e8); d > 0; d /= 10 {
		b = append(b, byte('0'+frac/d%10))
	}
	b = append(b, 'Z')
	return ns, string(b), true
}

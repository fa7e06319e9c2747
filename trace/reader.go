package trace

import (
	"fmt"
	"sync/atomic"
)

// A Kind says what record a Reader is positioned on.
type Kind int

// The kinds of records a Reader yields.
const (
	KindNone      Kind = iota // before the first Scan or after the last
	KindSpan                  // a [STRACE] span: Span
	KindAnchor                // a [CLOCK_ANCHOR]: Anchor
	KindBindPhase             // a `bind phase=` line: BindPhase
	KindHostOrch              // a `host-orch phase=` line: HostOrch
	KindStamp                 // a `[stamp] ` line: Stamp
	KindDrops                 // a [HOSTLOG_DROPS] summary: Drops
	KindTorn                  // [STRACE] heads of one line that did not parse: Torn
	KindAutoload              // a torch_backend_autoload record: Autoload
	KindMalformed             // a line of a known kind that did not parse: Malformed
)

var kindNames = [...]string{"none", "span", "anchor", "bind-phase", "host-orch", "stamp", "drops", "torn", "autoload", "malformed"}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// A KindSet is a set of record kinds; the zero set stands for every kind
// where ReadOptions takes one.
type KindSet uint32

// AllKinds holds every kind of record.
const AllKinds = KindSet(1<<KindSpan | 1<<KindAnchor | 1<<KindBindPhase | 1<<KindHostOrch | 1<<KindStamp | 1<<KindDrops | 1<<KindTorn | 1<<KindAutoload | 1<<KindMalformed)

// Kinds returns the set of ks.
func Kinds(ks ...Kind) KindSet {
	var s KindSet
	for _, k := range ks {
		s |= 1 << k
	}
	return s
}

// Has reports whether k is in s.
func (s KindSet) Has(k Kind) bool { return s&(1<<k) != 0 }

// A Torn record stands for the [STRACE] record heads of one physical line
// that did not parse as spans (docs/formats.md "[STRACE] spans", Torn
// records): cut records, negative or
// overflowing numbers, missing fields.
type Torn struct {
	Pos   Pos
	Count int // heads on the line minus spans parsed from it, ≥ 1
	// Reason says why the line's first torn head did not parse: "cut
	// before ts=", "negative dur", "dur is not an integer", "unterminated
	// last line", ...
	Reason string
}

// A Malformed record is a line that holds a `bind phase=`, `host-orch
// phase=`, [CLOCK_ANCHOR] or [HOSTLOG_DROPS] record that is not used: its
// numbers do not parse, or it is the unterminated last line of its source,
// where it may have been cut. A Reader yields one when the kind it stands
// for is asked for (ReadOptions.Kinds); KindMalformed itself need not be.
type Malformed struct {
	Pos    Pos
	Kind   Kind   // the kind of record the line would have been
	Reason string // "dur_ns is not an integer", "unterminated last line", ...
}

// MaxLineBytes is the longest physical line a Reader accepts; a longer one
// ends the stream with an error naming its file and line.
const MaxLineBytes = 64 << 20

// ReadOptions say which records a Reader makes and how many goroutines
// parse. The zero value reads every record on the calling goroutine, as
// NewReader does.
type ReadOptions struct {
	// Kinds are the kinds of records to yield; the zero set means all.
	// A Reader skips the work of the kinds left out: without spans and
	// torn records it does not parse [STRACE] records at all, without
	// bind phases and host-orch lines it does not look for "phase=".
	Kinds KindSet
	// KeepSpan, when not nil, is asked for the name (percent-decoded) of
	// every span parsed; a span it rejects is not yielded, but it still
	// counts as a parsed head (see Reader.Heads), never as torn. With
	// Workers above 1 it is called from several goroutines at once. It
	// must answer by the name alone: its answers are remembered per name.
	KeepSpan func(name string) bool
	// FirstSpans, when not nil, makes a Reader yield, whatever KeepSpan
	// says, every span that may be the first of its (pid, inv) among the
	// spans whose names FirstSpans accepts (the first of its invocation in
	// its chunk), so a reader that takes an invocation's hid from its first
	// span may reject the others by name. Like KeepSpan it may be called
	// from several goroutines at once, and its answers are remembered.
	FirstSpans func(name string) bool
	// SkipIfBindPhases are kinds that a chunk holding a `bind phase=` record
	// does not yield: for a view that reads them only from logs without such
	// lines (hbgtrace phases reads E3 bind spans and their warnings only
	// then). Such a chunk is not searched for them at all, and its heads are
	// not counted; a log without bind-phase lines is read in full.
	SkipIfBindPhases KindSet
	// MaxSpans, when above 0, bounds what a Log holds: the spans,
	// bind-phase and host-orch records StreamLog keeps (those no visitor
	// takes). The
	// record past it ends the read with a *TooManySpansError, before it
	// is stored, so a hostile log (millions of identical spans) costs a
	// bounded amount of memory and a clear error, not the machine's.
	MaxSpans int
	// HBGBindPhases makes the `bind phase=` record of a line the one
	// hbg_bind_phases' search finds there: the first whose fields are one
	// space apart, which may be a record glued after one with a tab or
	// two spaces between its fields. A line with no such record yields
	// its first record with other whitespace, with Spaced set. Without
	// it a line's record is its first with any whitespace (strace_timing's),
	// whose attributes take the rest of the line.
	HBGBindPhases bool
	// NoAttrs are kinds whose records come with empty Attrs: for a view
	// that reads none of them, which then costs no copy of their text.
	NoAttrs KindSet
	// Workers is the number of goroutines that parse the input, which is
	// cut into chunks of whole lines; records still come in log order,
	// with the same positions. 0 or 1: the goroutine calling Scan parses.
	// A Reader with workers must be closed (Close).
	Workers int
	// Progress, when not nil, is advanced by the bytes of every chunk as
	// the Reader yields its records (decompressed bytes for gzip input),
	// so another goroutine can report how far a long read is.
	Progress *atomic.Int64
}

// A Reader reads simpler host logs record by record. Its API is modelled on
// bufio.Scanner: Scan advances to the next record, Kind says what it is, the
// accessor of that kind returns it, Err reports the error that ended the
// stream. A line that does not parse is never an error: torn [STRACE]
// records come back as KindTorn and anything unrecognised is skipped.
//
// The Reader owns the records it returns: a pointer from an accessor is
// valid until the next call to Scan. The strings inside records are
// immutable and stay valid forever, so copying a record by value keeps it.
type Reader struct {
	srcs []Source
	cfg  readConfig
	err  error
	done bool

	// The batch being yielded and the cursor into it.
	b  *batch
	bi int
	// base is the number of lines of b's source before b's chunk;
	// nextBase is base for the chunk after b, if it is of source lastSrc.
	base, nextBase int
	lastSrc        int
	heads, parsed  int
	binary         []BinarySource // sources whose first chunk looks binary
	inBinary       bool           // the current source is the last of binary

	// Sequential reading: the feeder, its buffer, the parser and the one
	// batch.
	feed  feeder
	buf   []byte
	p     *parser
	batch batch

	// Parallel reading.
	pipe *pipeline
	cur  *chunk // the chunk b belongs to
}

// NewReader returns a Reader of srcs, read in order as one stream on the
// goroutine that calls Scan; each source is opened when the Reader reaches
// it.
func NewReader(srcs []Source) *Reader {
	return NewReaderOptions(srcs, ReadOptions{})
}

// NewReaderOptions returns a Reader of srcs that yields the records opts
// asks for. With opts.Workers above 1 the Reader reads ahead and parses on
// that many goroutines; Close stops them.
func NewReaderOptions(srcs []Source, opts ReadOptions) *Reader {
	return newReader(srcs, newReadConfig(opts), opts.Workers)
}

func newReader(srcs []Source, cfg readConfig, workers int) *Reader {
	r := &Reader{srcs: srcs, cfg: cfg, bi: -1, lastSrc: -1}
	r.feed.srcs, r.feed.size, r.feed.maxLine = srcs, cfg.chunk, cfg.maxLine
	if workers > 1 {
		r.pipe = startPipeline(srcs, cfg, workers)
	} else {
		r.p = newParser(cfg)
	}
	return r
}

// Close stops the goroutines of a parallel Reader and closes the source
// being read. Scan returns false after Close. Close is safe to call more
// than once and on a Reader that reached the end.
func (r *Reader) Close() error {
	r.done = true
	r.release()
	r.b, r.cur = nil, nil
	return nil
}

// release stops the pipeline and closes the source being read.
func (r *Reader) release() {
	if r.pipe != nil {
		r.pipe.stop()
		r.pipe = nil
	}
	r.feed.closeSrc()
}

// Scan advances to the next record and reports whether there is one. At
// the end of the input or on an error it returns false; Err tells which.
func (r *Reader) Scan() bool {
	if r.b != nil && r.bi < len(r.b.recs) {
		r.bi++
	}
	for r.b == nil || r.bi >= len(r.b.recs) {
		if r.done || !r.nextBatch() {
			r.done = true
			r.b, r.bi = nil, -1
			r.release()
			return false
		}
	}
	r.position()
	return true
}

// nextBatch makes the next chunk's records current; false at the end of
// the stream or on an error.
func (r *Reader) nextBatch() bool {
	var b *batch
	var err error
	var src int
	if r.pipe != nil {
		if r.cur != nil {
			r.pipe.recycle(r.cur)
			r.cur = nil
		}
		c, ok := r.pipe.next()
		if !ok {
			return false
		}
		if c.err != nil {
			err, src = c.err, c.src
			r.pipe.recycle(c)
		} else {
			r.cur, b = c, &c.b
		}
	} else {
		c, buf, ok := r.feed.next(r.buf)
		r.buf = buf
		if !ok {
			return false
		}
		if c.err != nil {
			err, src = c.err, c.src
		} else {
			b = &r.batch
			b.reset(r.srcs[c.src].Name, c.src)
			r.p.parseChunk(c.data, c.final, c.first, b)
		}
	}
	if err != nil {
		if tl, ok := err.(*lineTooLong); ok {
			before := 0
			if src == r.lastSrc {
				before = r.nextBase
			}
			err = tl.at(before + 1)
		}
		r.err = err
		return false
	}
	if b.src != r.lastSrc {
		r.lastSrc, r.nextBase = b.src, 0
		r.inBinary = b.binary
		if b.binary {
			r.binary = append(r.binary, BinarySource{Name: b.file})
		}
	}
	if r.inBinary {
		r.binary[len(r.binary)-1].add(b)
	}
	r.base = r.nextBase
	r.nextBase += b.lines
	r.heads += b.heads
	r.parsed += b.parsed
	if r.cfg.progress != nil {
		r.cfg.progress.Add(int64(b.bytes))
	}
	r.b, r.bi = b, 0
	return true
}

// position turns the current record's chunk line number into the line
// number in its source.
func (r *Reader) position() {
	q := r.b.recs[r.bi]
	var p *Pos
	switch q.kind {
	case KindSpan:
		p = &r.b.spans[q.idx].Pos
	case KindAnchor:
		p = &r.b.anch[q.idx].Pos
	case KindBindPhase:
		p = &r.b.binds[q.idx].Pos
	case KindHostOrch:
		p = &r.b.orch[q.idx].Pos
	case KindStamp:
		p = &r.b.stamps[q.idx].Pos
	case KindDrops:
		p = &r.b.drops[q.idx].Pos
	case KindTorn:
		p = &r.b.torn[q.idx].Pos
	case KindAutoload:
		p = &r.b.autoloads[q.idx].Pos
	case KindMalformed:
		p = &r.b.malformed[q.idx].Pos
	}
	p.Line += r.base
}

// Err returns the first error that ended the stream (opening, reading,
// decompressing a source, an overlong line), or nil at a clean end.
func (r *Reader) Err() error { return r.err }

// Heads returns the number of [STRACE] record heads read so far: after
// Scan has returned false, the input's. Heads − Parsed is the number of
// torn records. Both are 0 when ReadOptions.Kinds asks for neither spans
// nor torn records.
func (r *Reader) Heads() int { return r.heads }

// Binary returns the sources read so far whose first bytes do not look
// like text (a NUL byte, or many control characters), with what was read
// from each: a log given the wrong file, or a log with binary bytes in it.
func (r *Reader) Binary() []BinarySource { return r.binary }

// A BinarySource is a source that does not look like text, and what was
// read from it all the same.
type BinarySource struct {
	Name string
	// Heads counts its [STRACE] record heads, Spans those that parsed.
	Heads, Spans int
	// ControlNames counts the spans whose name holds a control byte
	// (NUL, …); names are kept and printed as they are.
	ControlNames int
	// Others counts its other records (bind-phase lines, anchors, …).
	Others int
}

func (s *BinarySource) add(b *batch) {
	s.Heads += b.heads
	s.Spans += b.parsed
	for _, q := range b.recs {
		switch q.kind {
		case KindSpan:
			if hasControlByte(b.spans[q.idx].Name) {
				s.ControlNames++
			}
		case KindTorn, KindMalformed:
		default:
			s.Others++
		}
	}
}

func hasControlByte(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return true
		}
	}
	return false
}

// Parsed returns the number of record heads read so far that parsed as
// spans, including those ReadOptions.KeepSpan rejected.
func (r *Reader) Parsed() int { return r.parsed }

// Kind returns the kind of the current record.
func (r *Reader) Kind() Kind {
	if r.b != nil && r.bi >= 0 && r.bi < len(r.b.recs) {
		return r.b.recs[r.bi].kind
	}
	return KindNone
}

func (r *Reader) at(k Kind) (int, bool) {
	if r.b != nil && r.bi >= 0 && r.bi < len(r.b.recs) && r.b.recs[r.bi].kind == k {
		return int(r.b.recs[r.bi].idx), true
	}
	return 0, false
}

// Span returns the current span, or nil when the record is not a span.
func (r *Reader) Span() *Span {
	if i, ok := r.at(KindSpan); ok {
		return &r.b.spans[i]
	}
	return nil
}

// Anchor returns the current clock anchor, or nil.
func (r *Reader) Anchor() *Anchor {
	if i, ok := r.at(KindAnchor); ok {
		return &r.b.anch[i]
	}
	return nil
}

// BindPhase returns the current `bind phase=` line, or nil.
func (r *Reader) BindPhase() *BindPhase {
	if i, ok := r.at(KindBindPhase); ok {
		return &r.b.binds[i]
	}
	return nil
}

// HostOrch returns the current `host-orch phase=` line, or nil.
func (r *Reader) HostOrch() *HostOrchPhase {
	if i, ok := r.at(KindHostOrch); ok {
		return &r.b.orch[i]
	}
	return nil
}

// Autoload returns the current torch_backend_autoload record, or nil.
func (r *Reader) Autoload() *Autoload {
	if i, ok := r.at(KindAutoload); ok {
		return &r.b.autoloads[i]
	}
	return nil
}

// Stamp returns the current `[stamp] ` line, or nil. Every stamp line is
// yielded; ReadLog keeps the first.
func (r *Reader) Stamp() *Stamp {
	if i, ok := r.at(KindStamp); ok {
		return &r.b.stamps[i]
	}
	return nil
}

// Drops returns the current [HOSTLOG_DROPS] summary, or nil. Every summary
// is yielded; ReadLog keeps the largest total per pid.
func (r *Reader) Drops() *Drops {
	if i, ok := r.at(KindDrops); ok {
		return &r.b.drops[i]
	}
	return nil
}

// Malformed returns the current malformed line, or nil.
func (r *Reader) Malformed() *Malformed {
	if i, ok := r.at(KindMalformed); ok {
		return &r.b.malformed[i]
	}
	return nil
}

// Torn returns the current torn-record count, or nil.
func (r *Reader) Torn() *Torn {
	if i, ok := r.at(KindTorn); ok {
		return &r.b.torn[i]
	}
	return nil
}

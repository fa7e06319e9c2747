package trace

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
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
)

var kindNames = [...]string{"none", "span", "anchor", "bind-phase", "host-orch", "stamp", "drops", "torn"}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// A Torn record stands for the [STRACE] record heads of one physical line
// that did not parse as spans (REFERENCE §1.2.4): cut records, negative or
// overflowing numbers, missing fields.
type Torn struct {
	Pos   Pos
	Count int // heads on the line minus spans parsed from it, ≥ 1
}

// MaxLineBytes is the longest physical line a Reader accepts; a longer one
// ends the stream with an error naming its file and line.
const MaxLineBytes = 64 << 20

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
	si   int // index of the source being read, len(srcs) at the end
	src  io.ReadCloser
	lr   lineReader
	name string // current source's name
	line int    // current line number in that source
	err  error
	done bool

	strs strTable

	// The records of the current line, in order, and the cursor into them.
	queue []queued
	qi    int
	spans []Span
	anch  []Anchor
	binds []BindPhase
	orch  []HostOrchPhase
	stamp Stamp
	drops []Drops
	torn  Torn

	head spanHead
	ph   phaseLine
}

type queued struct {
	kind Kind
	idx  int
}

// NewReader returns a Reader of srcs, read in order as one stream; each
// source is opened when the Reader reaches it.
func NewReader(srcs []Source) *Reader {
	return &Reader{srcs: srcs, strs: newStrTable()}
}

// Scan advances to the next record and reports whether there is one. At
// the end of the input or on an error it returns false; Err tells which.
func (r *Reader) Scan() bool {
	if r.qi < len(r.queue) {
		r.qi++
	}
	for r.qi >= len(r.queue) {
		if r.done {
			r.queue = r.queue[:0]
			r.qi = 0
			return false
		}
		line, eol, ok := r.nextLine()
		if !ok {
			r.done = true
			r.closeSrc()
			continue
		}
		r.parseLine(line, eol)
	}
	return true
}

// Err returns the first error that ended the stream (opening, reading,
// decompressing a source, an overlong line), or nil at a clean end.
func (r *Reader) Err() error { return r.err }

// Kind returns the kind of the current record.
func (r *Reader) Kind() Kind {
	if r.qi < len(r.queue) {
		return r.queue[r.qi].kind
	}
	return KindNone
}

func (r *Reader) cur(k Kind) (int, bool) {
	if r.qi < len(r.queue) && r.queue[r.qi].kind == k {
		return r.queue[r.qi].idx, true
	}
	return 0, false
}

// Span returns the current span, or nil when the record is not a span.
func (r *Reader) Span() *Span {
	if i, ok := r.cur(KindSpan); ok {
		return &r.spans[i]
	}
	return nil
}

// Anchor returns the current clock anchor, or nil.
func (r *Reader) Anchor() *Anchor {
	if i, ok := r.cur(KindAnchor); ok {
		return &r.anch[i]
	}
	return nil
}

// BindPhase returns the current `bind phase=` line, or nil.
func (r *Reader) BindPhase() *BindPhase {
	if i, ok := r.cur(KindBindPhase); ok {
		return &r.binds[i]
	}
	return nil
}

// HostOrch returns the current `host-orch phase=` line, or nil.
func (r *Reader) HostOrch() *HostOrchPhase {
	if i, ok := r.cur(KindHostOrch); ok {
		return &r.orch[i]
	}
	return nil
}

// Stamp returns the current `[stamp] ` line, or nil. Every stamp line is
// yielded; ReadLog keeps the first.
func (r *Reader) Stamp() *Stamp {
	if _, ok := r.cur(KindStamp); ok {
		return &r.stamp
	}
	return nil
}

// Drops returns the current [HOSTLOG_DROPS] summary, or nil. Every summary
// is yielded; ReadLog keeps the largest total per pid.
func (r *Reader) Drops() *Drops {
	if i, ok := r.cur(KindDrops); ok {
		return &r.drops[i]
	}
	return nil
}

// Torn returns the current torn-record count, or nil.
func (r *Reader) Torn() *Torn {
	if _, ok := r.cur(KindTorn); ok {
		return &r.torn
	}
	return nil
}

// nextLine returns the next physical line of the stream, opening sources as
// needed. eol reports whether the line had a terminator (LF, or a CR at the
// end of the input), which the grammar treats as whitespace.
func (r *Reader) nextLine() (line []byte, eol bool, ok bool) {
	for r.err == nil {
		if r.src == nil {
			if r.si >= len(r.srcs) {
				return nil, false, false
			}
			if !r.openSrc() {
				return nil, false, false
			}
		}
		line, eol, err := r.lr.next()
		if err != nil {
			if err == io.EOF {
				r.closeSrc()
				r.si++
				continue
			}
			if err == errLineTooLong {
				r.err = fmt.Errorf("reading %s: line %d is longer than %d MiB", r.name, r.line+1, r.lr.limit()>>20)
			} else {
				r.err = fmt.Errorf("reading %s: %w", r.name, err)
			}
			r.closeSrc()
			return nil, false, false
		}
		r.line++
		return line, eol, true
	}
	return nil, false, false
}

func (r *Reader) openSrc() bool {
	s := r.srcs[r.si]
	r.name, r.line = s.Name, 0
	if s.Open == nil {
		r.err = fmt.Errorf("reading %s: no way to open it", s.Name)
		return false
	}
	rc, err := s.Open()
	if err != nil {
		r.err = fmt.Errorf("reading %s: %w", s.Name, err)
		return false
	}
	br := bufio.NewReaderSize(rc, 64<<10)
	var in io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			rc.Close()
			r.err = fmt.Errorf("reading %s: %w", s.Name, err)
			return false
		}
		in = zr
	}
	r.src = rc
	r.lr.reset(in)
	return true
}

func (r *Reader) closeSrc() {
	if r.src != nil {
		r.src.Close()
		r.src = nil
	}
}

// parseLine turns one physical line into queued records.
func (r *Reader) parseLine(line []byte, eol bool) {
	r.queue = r.queue[:0]
	r.qi = 0
	r.spans = r.spans[:0]
	r.anch = r.anch[:0]
	r.binds = r.binds[:0]
	r.orch = r.orch[:0]
	r.drops = r.drops[:0]
	pos := Pos{File: r.name, Line: r.line}

	if bytes.HasPrefix(line, tokStamp) {
		r.stamp = Stamp{Text: r.strs.bytes(line[len(tokStamp):]), Pos: pos}
		r.queue = append(r.queue, queued{KindStamp, 0})
	}

	// One pass over the '[' bytes finds envelopes (for Thread), record
	// heads, spans, anchors and drop summaries.
	heads, nspans := 0, 0
	var thread []byte // the last envelope's thread not yet claimed by a span
	open := false     // inside the attribute text of a span
	var openSpan spanHead
	var openThread []byte
	cur := newLineCursor(line, eol)
	i := 0
	for {
		k := bytes.IndexByte(line[i:], '[')
		if k < 0 {
			break
		}
		i += k
		if i+1 >= len(line) {
			break
		}
		switch line[i+1] {
		case 'S':
			if !bytes.HasPrefix(line[i:], tokStrace) {
				break
			}
			if open {
				r.addSpan(&openSpan, openThread, line[openSpan.attrsStart:i], pos)
				open = false
				nspans++
			}
			if !isHeadAt(line, i) {
				break
			}
			heads++
			if parseSpanHead(line, i, &r.head) {
				openSpan, openThread, open = r.head, thread, true
				thread = nil
				i = r.head.attrsStart
				continue
			}
		case 'm':
			if open && cur.prefixAt(i) {
				r.addSpan(&openSpan, openThread, line[openSpan.attrsStart:i], pos)
				open = false
				nspans++
			}
			if th, e, ok := envelopeAt(line, i); ok {
				thread = th
				i = e
				continue
			}
		case 'C':
			if bytes.HasPrefix(line[i:], tokAnchor) {
				if pid, mono, wall, ok := parseAnchorAt(line, i); ok {
					r.anch = append(r.anch, Anchor{Pid: pid, MonoNs: mono, WallNs: wall, Pos: pos})
					r.queue = append(r.queue, queued{KindAnchor, len(r.anch) - 1})
				}
			}
		case 'H':
			if bytes.HasPrefix(line[i:], tokDrops) {
				var d Drops
				if parseDropsAt(line, i, &d) {
					d.Pos = pos
					r.drops = append(r.drops, d)
					r.queue = append(r.queue, queued{KindDrops, len(r.drops) - 1})
				}
			}
		}
		i++
	}
	if open {
		r.addSpan(&openSpan, openThread, line[openSpan.attrsStart:], pos)
		nspans++
	}

	if bytes.Contains(line, tokPhaseEq) {
		if findBindPhase(line, &r.ph) {
			r.binds = append(r.binds, BindPhase{
				Phase:     r.strs.intern(r.ph.phase),
				StartNs:   r.ph.start,
				DurNs:     r.ph.dur,
				Attrs:     r.strs.bytes(r.ph.attrs),
				Thread:    r.strs.intern(r.ph.thread),
				Enveloped: r.ph.enveloped,
				Pos:       pos,
			})
			r.queue = append(r.queue, queued{KindBindPhase, len(r.binds) - 1})
		}
		if findHostOrch(line, &r.ph) {
			r.orch = append(r.orch, HostOrchPhase{
				Phase:  r.strs.intern(r.ph.phase),
				Attrs:  r.strs.bytes(r.ph.attrs),
				Thread: r.strs.intern(r.ph.thread),
				Pos:    pos,
			})
			r.queue = append(r.queue, queued{KindHostOrch, len(r.orch) - 1})
		}
	}

	if heads > nspans {
		r.torn = Torn{Pos: pos, Count: heads - nspans}
		r.queue = append(r.queue, queued{KindTorn, 0})
	}
}

func (r *Reader) addSpan(h *spanHead, thread, attrs []byte, pos Pos) {
	r.spans = append(r.spans, Span{
		Pid:    h.pid,
		Tid:    h.tid,
		Inv:    h.inv,
		Hid:    r.strs.hid(h.hid),
		Depth:  h.depth,
		Name:   r.strs.name(h.name),
		Ts:     h.ts,
		Dur:    h.dur,
		Attrs:  r.strs.bytes(trimSpaceBytes(attrs)),
		Thread: r.strs.intern(thread),
		Pos:    pos,
	})
	r.queue = append(r.queue, queued{KindSpan, len(r.spans) - 1})
}

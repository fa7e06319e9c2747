package trace

import (
	"bytes"
	"sync/atomic"
)

// A batch holds the records of one chunk of lines, in log order. Line
// numbers in its records count from 1 at the chunk's first line; the
// Reader adds the lines of the earlier chunks of the same source when it
// yields a record.
type batch struct {
	file      string
	src       int
	lines     int // physical lines in the chunk
	heads     int // [STRACE] record heads
	parsed    int // heads that parsed as spans, yielded or not
	recs      []queued
	spans     []Span
	anch      []Anchor
	binds     []BindPhase
	orch      []HostOrchPhase
	stamps    []Stamp
	autoloads []Autoload
	drops     []Drops
	torn      []Torn
	malformed []Malformed
	binary    bool // the chunk starts its source, and its first bytes do not look like text (looksBinary)
	bytes     int  // the chunk's length
}

type queued struct {
	kind Kind
	idx  int32
}

// reset empties b for a chunk of source src named file. The records'
// arrays are reused; the strings they still hold stay reachable until
// they are overwritten, which bounds that garbage by the batch's size.
func (b *batch) reset(file string, src int) {
	b.file, b.src = file, src
	b.lines, b.heads, b.parsed = 0, 0, 0
	// binary and bytes are parseChunk's to set, for the whole chunk.
	b.recs = b.recs[:0]
	b.spans = b.spans[:0]
	b.anch = b.anch[:0]
	b.binds = b.binds[:0]
	b.orch = b.orch[:0]
	b.stamps = b.stamps[:0]
	b.autoloads = b.autoloads[:0]
	b.drops = b.drops[:0]
	b.torn = b.torn[:0]
	b.malformed = b.malformed[:0]
}

// readConfig is what a parser needs of ReadOptions.
type readConfig struct {
	kinds    KindSet // never empty
	noAttrs  KindSet // ReadOptions.NoAttrs
	keepSpan func(name string) bool
	firsts   func(name string) bool // compete for the first span of each (pid, inv) of a chunk
	brackets bool                   // some wanted kind is found by the '[' scan
	phases   bool                   // bind phases or host-orch lines are wanted
	chunk    int                    // bytes per chunk; chunkSize when zero (tests make it small)
	maxLine  int                    // the longest line; MaxLineBytes when zero (tests make it small)
	progress *atomic.Int64          // ReadOptions.Progress
	hbgBind  bool                   // ReadOptions.HBGBindPhases
	lean     *readConfig            // without the kinds a chunk with bind phases skips
}

func newReadConfig(o ReadOptions) readConfig {
	k := o.Kinds
	if k == 0 {
		k = AllKinds
	}
	c := readConfig{
		kinds:    k,
		noAttrs:  o.NoAttrs,
		keepSpan: o.KeepSpan,
		firsts:   o.FirstSpans,
		progress: o.Progress,
		hbgBind:  o.HBGBindPhases,
		brackets: k.Has(KindSpan) || k.Has(KindTorn) || k.Has(KindAnchor) || k.Has(KindDrops),
		phases:   k.Has(KindBindPhase) || k.Has(KindHostOrch),
	}
	if skip := o.SkipIfBindPhases & k &^ Kinds(KindBindPhase); skip != 0 && k.Has(KindBindPhase) {
		o.Kinds, o.SkipIfBindPhases = k&^skip, 0
		lean := newReadConfig(o)
		c.lean = &lean
	}
	return c
}

// A parser turns chunks of lines into batches (docs/formats.md). It owns the
// string table the records' strings come from; one goroutine uses it.
type parser struct {
	cfg  readConfig
	strs strTable
	head spanHead
	cur  lineCursor // scanBrackets' cursor over the line being parsed
	ph   phaseLine  // a `bind phase=` match
	orch phaseLine  // a `host-orch phase=` match

	hids, threads recentStrs
	names         []nameSlot // span names seen (nameInfo)

	// skip holds the [start, end) of the span heads and envelopes of the
	// line being parsed, in pairs: no bind-phase or host-orch match starts
	// in one (findPhases).
	skip []int

	// tornWhy is why the first torn record head of the line being parsed
	// did not parse, "" while none did.
	tornWhy string

	// seen holds the invocations of the chunk being parsed that have
	// yielded a span (ReadOptions.FirstSpans).
	seen       map[invKey]struct{}
	lastSeen   invKey
	lastSeenOK bool
}

func newParser(cfg readConfig) *parser {
	return &parser{cfg: cfg, strs: newStrTable()}
}

// parseChunk parses the lines of data into b. final says data ends its
// source: a last line without LF is a line, and a lone CR ending it is
// its terminator. first says data starts its source, whose first bytes
// tell whether it is text (looksBinary).
func (p *parser) parseChunk(data []byte, final, first bool, b *batch) {
	b.binary = first && looksBinary(data[:min(len(data), binarySample)])
	b.bytes = len(data)
	if lean := p.cfg.lean; lean != nil {
		// First the chunk without the kinds to skip: if it has a bind
		// phase, that is all; else again, in full.
		full := p.cfg
		p.cfg = *lean
		p.parseLines(data, final, b)
		p.cfg = full
		if len(b.binds) > 0 {
			return
		}
		b.reset(b.file, b.src)
	}
	p.parseLines(data, final, b)
}

func (p *parser) parseLines(data []byte, final bool, b *batch) {
	if p.cfg.firsts != nil {
		if p.seen == nil {
			p.seen = make(map[invKey]struct{})
		}
		clear(p.seen)
		p.lastSeenOK = false
	}
	line := 0
	for len(data) > 0 {
		var ln []byte
		eol := true
		if k := bytes.IndexByte(data, '\n'); k >= 0 {
			ln, data = data[:k], data[k+1:]
			if n := len(ln); n > 0 && ln[n-1] == '\r' {
				ln = ln[:n-1]
			}
		} else {
			// Only the last chunk of a source ends without a LF.
			ln, data = data, nil
			eol = false
			if n := len(ln); n > 0 && ln[n-1] == '\r' {
				ln, eol = ln[:n-1], true
			}
		}
		line++
		p.parseLine(ln, eol, line, b)
	}
	b.lines = line
}

// parseLine turns one physical line into records appended to b.
func (p *parser) parseLine(line []byte, eol bool, lineNo int, b *batch) {
	pos := Pos{File: b.file, Line: lineNo}
	kinds := p.cfg.kinds

	if len(line) >= len(tokStamp) && line[0] == '[' && line[1] == 's' && kinds.Has(KindStamp) && bytes.HasPrefix(line, tokStamp) {
		b.stamps = append(b.stamps, Stamp{Text: p.strs.bytes(line[len(tokStamp):]), Pos: pos})
		b.recs = append(b.recs, queued{KindStamp, int32(len(b.stamps) - 1)})
	}

	if kinds.Has(KindAutoload) {
		if i := bytes.Index(line, tokAutoload); i >= 0 {
			if n, ok := parseAutoload(line[i:]); ok {
				b.autoloads = append(b.autoloads, Autoload{Text: p.strs.bytes(line[i : i+n]), Pos: pos})
				b.recs = append(b.recs, queued{KindAutoload, int32(len(b.autoloads) - 1)})
			}
		}
	}

	heads, nspans := 0, 0
	p.skip = p.skip[:0]
	p.tornWhy = ""
	if p.cfg.brackets {
		heads, nspans = p.scanBrackets(line, eol, pos, b)
	}

	if p.cfg.phases {
		p.scanPhases(line, eol, pos, b)
	}

	b.heads += heads
	b.parsed += nspans
	if heads > nspans && kinds.Has(KindTorn) {
		why := p.tornWhy
		if why == "" {
			why = "cut after v="
		}
		b.torn = append(b.torn, Torn{Pos: pos, Count: heads - nspans, Reason: why})
		b.recs = append(b.recs, queued{KindTorn, int32(len(b.torn) - 1)})
	}
}

// scanBrackets makes one pass over the '[' bytes of a line to find
// envelopes (for Thread), record heads, spans, anchors and drop summaries.
// It returns the record heads on the line and the spans parsed from them.
func (p *parser) scanBrackets(line []byte, eol bool, pos Pos, b *batch) (heads, nspans int) {
	kinds := p.cfg.kinds
	var thread []byte // the last envelope's thread not yet claimed by a span
	// open says the attribute text of the span of p.head, with thread
	// openThread, runs from p.head.attrsStart: the span is added before
	// the next head is parsed into p.head.
	open := false
	var openThread []byte
	// The cursor lives in the parser and is set field by field: a local
	// one cost a copy of the struct per line (a store-forwarding stall).
	cur := &p.cur
	cur.reset(line, eol)
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
				p.addSpan(&p.head, openThread, line[p.head.attrsStart:i], pos, b)
				open = false
				nspans++
			}
			// A canonical head is a record head (FuzzSpanHeadPaths), so
			// only another shape is asked isHeadAt.
			ok := parseCanonicalHead(line, i, &p.head)
			if !ok {
				if !isHeadAt(line, i) {
					break
				}
				ok = parseAnyHead(line, i, &p.head)
			}
			heads++
			if !ok {
				p.noteTorn(p.head.why)
			} else {
				p.skip = append(p.skip, i, p.head.attrsStart)
				openThread, open = thread, true
				thread = nil
				i = p.head.attrsStart
				continue
			}
		case 'm':
			if open && cur.prefixAt(i) {
				p.addSpan(&p.head, openThread, line[p.head.attrsStart:i], pos, b)
				open = false
				nspans++
			}
			if th, e, ok := envelopeAt(line, i); ok {
				p.skip = append(p.skip, i, e)
				thread = th
				i = e
				continue
			}
		case 'C':
			if kinds.Has(KindAnchor) && bytes.HasPrefix(line[i:], tokAnchor) {
				if pid, mono, wall, ok := parseAnchorAt(line, i); ok && !eol {
					b.addMalformed(pos, KindAnchor, "unterminated last line")
				} else if ok {
					b.anch = append(b.anch, Anchor{Pid: pid, MonoNs: mono, WallNs: wall, Pos: pos})
					b.recs = append(b.recs, queued{KindAnchor, int32(len(b.anch) - 1)})
				}
			}
		case 'H':
			if kinds.Has(KindDrops) && bytes.HasPrefix(line[i:], tokDrops) {
				var d Drops
				if ok := parseDropsAt(line, i, &d); ok && !eol {
					b.addMalformed(pos, KindDrops, "unterminated last line")
				} else if ok {
					d.Pos = pos
					b.drops = append(b.drops, d)
					b.recs = append(b.recs, queued{KindDrops, int32(len(b.drops) - 1)})
				}
			}
		}
		i++
	}
	if open {
		if !eol {
			// The last line of a source without a terminator: the
			// record may have been cut anywhere in its attributes or
			// in dur's digits, so it is torn (docs/formats.md).
			p.noteTorn("unterminated last line")
		} else {
			p.addSpan(&p.head, openThread, line[p.head.attrsStart:], pos, b)
			nspans++
		}
	}
	return heads, nspans
}

// scanPhases finds the `bind phase=` and `host-orch phase=` records of a
// line.
func (p *parser) scanPhases(line []byte, eol bool, pos Pos, b *batch) {
	kinds := p.cfg.kinds
	hasBind, hasOrch, why := findPhases(line, p.skip, kinds.Has(KindBindPhase), kinds.Has(KindHostOrch), p.cfg.hbgBind, &p.ph, &p.orch)
	if why != "" {
		b.addMalformed(pos, KindBindPhase, why)
	}
	if !eol {
		// The unterminated last line of a source: dur_ns or a count may
		// have been cut short.
		if hasBind {
			b.addMalformed(pos, KindBindPhase, "unterminated last line")
		}
		if hasOrch {
			b.addMalformed(pos, KindHostOrch, "unterminated last line")
		}
		return
	}
	if hasBind {
		b.binds = append(b.binds, BindPhase{
			Phase:     p.strs.intern(p.ph.phase),
			StartNs:   p.ph.start,
			DurNs:     p.ph.dur,
			Attrs:     p.attrs(KindBindPhase, p.ph.attrs),
			Thread:    p.strs.intern(p.ph.thread),
			Enveloped: p.ph.enveloped,
			Spaced:    !p.ph.single,
			Pos:       pos,
		})
		b.recs = append(b.recs, queued{KindBindPhase, int32(len(b.binds) - 1)})
	}
	if hasOrch {
		b.orch = append(b.orch, HostOrchPhase{
			Phase:  p.strs.intern(p.orch.phase),
			Attrs:  p.attrs(KindHostOrch, p.orch.attrs),
			Thread: p.strs.intern(p.orch.thread),
			Pos:    pos,
		})
		b.recs = append(b.recs, queued{KindHostOrch, int32(len(b.orch) - 1)})
	}
}

// attrs returns the Attrs of a record of kind k: b, or "" for a kind in
// ReadOptions.NoAttrs.
func (p *parser) attrs(k Kind, b []byte) string {
	if p.cfg.noAttrs.Has(k) {
		return ""
	}
	return p.strs.bytes(b)
}

func (b *batch) addMalformed(pos Pos, k Kind, why string) {
	b.malformed = append(b.malformed, Malformed{Pos: pos, Kind: k, Reason: why})
	b.recs = append(b.recs, queued{KindMalformed, int32(len(b.malformed) - 1)})
}

// noteTorn keeps why, when it is the line's first reason.
func (p *parser) noteTorn(why string) {
	if p.tornWhy == "" {
		p.tornWhy = why
	}
}

// seenInv reports whether the chunk being parsed had a span of invocation
// k among those ReadOptions.FirstSpans accepts, and notes that it has now.
func (p *parser) seenInv(k invKey) bool {
	if p.lastSeen == k && p.lastSeenOK {
		return true
	}
	p.lastSeen, p.lastSeenOK = k, true
	if _, ok := p.seen[k]; ok {
		return true
	}
	p.seen[k] = struct{}{}
	return false
}

// addSpan makes the span of a parsed head, when spans are wanted and the
// KeepSpan filter takes its name.
func (p *parser) addSpan(h *spanHead, thread, attrs []byte, pos Pos, b *batch) {
	if !p.cfg.kinds.Has(KindSpan) {
		return
	}
	ni := p.nameInfo(h.name)
	keep := ni.keep
	if ni.first {
		if k := (invKey{h.pid, h.inv}); !p.seenInv(k) {
			keep = true
		}
	}
	if !keep {
		return
	}
	name := ni.name
	b.spans = append(b.spans, Span{
		Pid:    h.pid,
		Tid:    h.tid,
		Inv:    h.inv,
		Hid:    p.hids.get(h.hid, p.strs.hid),
		Depth:  h.depth,
		Name:   name,
		Ts:     h.ts,
		Dur:    h.dur,
		Attrs:  p.attrs(KindSpan, trimSpaceBytes(attrs)),
		Thread: p.threads.get(thread, p.strs.intern),
		Pos:    pos,
	})
	b.recs = append(b.recs, queued{KindSpan, int32(len(b.spans) - 1)})
}

// A spanName is what a parser knows of a raw span name: the decoded,
// interned name and the answers of ReadOptions.KeepSpan and FirstSpans.
type spanName struct {
	name        string
	keep, first bool
}

// nameSlots is the size of a parser's table of span names: direct-mapped
// by shortHash, a colliding name replacing the one in its slot.
const nameSlots = recentSlots

// nameSlot is a slot of the table: the raw name and what is known of it.
type nameSlot struct {
	raw string
	spanName
}

// nameInfo returns what the parser knows of the raw name b: for a name
// seen before one slot compare instead of the intern table and both
// filters.
func (p *parser) nameInfo(b []byte) spanName {
	if p.names == nil {
		p.names = make([]nameSlot, nameSlots)
	}
	sl := &p.names[shortHash(b)]
	if len(sl.raw) == len(b) && sl.raw == string(b) && len(b) > 0 {
		return sl.spanName
	}
	name := p.strs.name(b)
	ni := spanName{
		name:  name,
		keep:  p.cfg.keepSpan == nil || p.cfg.keepSpan(name),
		first: p.cfg.firsts != nil && p.cfg.firsts(name),
	}
	*sl = nameSlot{raw: string(b), spanName: ni}
	return ni
}

// binarySample is how many leading bytes of a chunk looksBinary reads.
const binarySample = 8 << 10

// looksBinary reports whether b is not text: it holds a NUL byte, or more
// than one byte in ten is a control character other than whitespace and
// ESC (colour codes). Bytes of 0x80 and above pass: UTF-8 and Latin-1
// text both use them.
func looksBinary(b []byte) bool {
	ctl := 0
	for _, c := range b {
		switch {
		case c == 0:
			return true
		case c < 0x20 && !isSpaceByte(c) && c != 0x1b, c == 0x7f:
			ctl++
		}
	}
	return ctl*10 > len(b)
}

package trace

import "bytes"

// This file holds the byte-level grammar of one log line (docs/formats.md). It
// uses no regexp: every rule is a hand-written scan, so one line costs a few
// passes over its bytes. Character classes are ASCII (docs/formats.md
// "Decisions that apply everywhere"): \d is
// 0-9, \w is [0-9A-Za-z_], \s is space, \t, \n, \v, \f and \r.

var (
	tokStrace      = []byte("[STRACE]")
	tokMonoNs      = []byte("[mono_ns=")
	tokT0x         = []byte("[T0x")
	tokAnchor      = []byte("[CLOCK_ANCHOR]")
	tokDrops       = []byte("[HOSTLOG_DROPS]")
	tokPhaseEq     = []byte("phase=")
	tokBindSp      = []byte("bind ")
	tokHostOrchSp  = []byte("host-orch ")
	tokStamp       = []byte("[stamp] ")
	tokTiming      = []byte("[TIMING]")
	tokClockAnchor = []byte("clock_anchor:")
)

// spaceTab marks the whitespace bytes: one load instead of six compares
// in the loops that skip names and attributes.
var spaceTab = [256]bool{' ': true, '\t': true, '\n': true, '\v': true, '\f': true, '\r': true}

func isSpaceByte(c byte) bool { return spaceTab[c] }

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

func isHexByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func isUpperByte(c byte) bool { return c >= 'A' && c <= 'Z' }

// skipSpace returns the index after the run of whitespace at i, and whether
// the run was at least one byte long.
func skipSpace(b []byte, i int) (int, bool) {
	j := i
	for j < len(b) && isSpaceByte(b[j]) {
		j++
	}
	return j, j > i
}

// digitsEnd returns the end of the run of ASCII digits at i (i itself when
// there is none).
func digitsEnd(b []byte, i int) int {
	for i < len(b) && isDigitByte(b[i]) {
		i++
	}
	return i
}

// parseUint parses unsigned decimal digits; ok is false for an empty run or
// a value above max.
func parseUint(d []byte, max uint64) (uint64, bool) {
	if len(d) == 0 {
		return 0, false
	}
	var n uint64
	if len(d) <= 18 {
		// At most 18 digits cannot overflow a uint64: no checks needed
		// except against max.
		for _, c := range d {
			n = n*10 + uint64(c-'0')
		}
		return n, n <= max
	}
	for _, c := range d {
		v := uint64(c - '0')
		if n > (max-v)/10 {
			return 0, false
		}
		n = n*10 + v
	}
	return n, true
}

const maxInt64 = 1<<63 - 1

// field expects `key` at i followed by a run of digits; it returns the
// digits and the index after them.
func digitField(b []byte, i int, key string) (digits []byte, end int, ok bool) {
	if len(b)-i < len(key) || string(b[i:i+len(key)]) != key {
		return nil, i, false
	}
	i += len(key)
	e := digitsEnd(b, i)
	if e == i {
		return nil, i, false
	}
	return b[i:e], e, true
}

// int64Field is digitField converted to an int64 (overflow fails).
func int64Field(b []byte, i int, key string) (int64, int, bool) {
	d, e, ok := digitField(b, i, key)
	if !ok {
		return 0, i, false
	}
	n, ok := parseUint(d, maxInt64)
	if !ok {
		return 0, i, false
	}
	return int64(n), e, true
}

// envelopeAt parses `[mono_ns=<digits>][T0x<hex>]` at i and returns the hex
// digits and the index after the closing bracket.
func envelopeAt(b []byte, i int) (thread []byte, end int, ok bool) {
	if !bytes.HasPrefix(b[i:], tokMonoNs) {
		return nil, i, false
	}
	j := i + len(tokMonoNs)
	e := digitsEnd(b, j)
	if e == j || e >= len(b) || b[e] != ']' {
		return nil, i, false
	}
	j = e + 1
	if !bytes.HasPrefix(b[j:], tokT0x) {
		return nil, i, false
	}
	j += len(tokT0x)
	e = j
	for e < len(b) && isHexByte(b[e]) {
		e++
	}
	if e == j || e >= len(b) || b[e] != ']' {
		return nil, i, false
	}
	return b[j:e], e + 1, true
}

// levelAt parses `[<UPPER>+]` at i and returns the level word and the index
// after it.
func levelAt(b []byte, i int) (level []byte, end int, ok bool) {
	if i >= len(b) || b[i] != '[' {
		return nil, i, false
	}
	j := i + 1
	for j < len(b) && isUpperByte(b[j]) {
		j++
	}
	if j == i+1 || j >= len(b) || b[j] != ']' {
		return nil, i, false
	}
	return b[i+1 : j], j + 1, true
}

// A lineCursor answers "where is the next ':' / CR at or after i" for one
// line. Queries come with mostly increasing i, so the cached answers make
// the boundary checks of a whole line linear instead of quadratic.
type lineCursor struct {
	b         []byte
	eolSpace  bool // the end of the line counts as whitespace (it had a terminator)
	colonFrom int  // the first ':' at or after colonFrom is at colonAt (-1: none)
	colonAt   int
	crFrom    int // the first CR at or after crFrom is at crAt (-1: none)
	crAt      int
}

// reset makes c a cursor over b with nothing cached.
func (c *lineCursor) reset(b []byte, eolSpace bool) {
	c.b, c.eolSpace = b, eolSpace
	c.colonFrom, c.crFrom = len(b)+1, len(b)+1
}

func (c *lineCursor) nextColon(i int) int {
	if i < c.colonFrom || (c.colonAt >= 0 && c.colonAt < i) {
		c.colonFrom = i
		c.colonAt = bytes.IndexByte(c.b[i:], ':')
		if c.colonAt >= 0 {
			c.colonAt += i
		}
	}
	return c.colonAt
}

func (c *lineCursor) nextCR(i int) int {
	if i < c.crFrom || (c.crAt >= 0 && c.crAt < i) {
		c.crFrom = i
		c.crAt = bytes.IndexByte(c.b[i:], '\r')
		if c.crAt >= 0 {
			c.crAt += i
		}
	}
	return c.crAt
}

// funcColonSpace reports whether b[i:] starts with whitespace, a func of
// bytes other than ':', CR and LF, a ':' and one whitespace byte — the tail
// of a host-log prefix (docs/formats.md "The host-log envelope"). The end
// of the line counts as
// whitespace when the line had a terminator, since the reference matches
// lines that keep their newline. (A line holds no LF, so CR is the only
// byte the func cannot hold besides ':'.)
func (c *lineCursor) funcColonSpace(i int) bool {
	b := c.b
	if i >= len(b) || !isSpaceByte(b[i]) {
		return false
	}
	k := c.nextColon(i)
	if k < 0 {
		return false
	}
	// The regexp splits b[i:k] into whitespace (≥1) then a func (≥1) with
	// no CR; the func may start with whitespace. So every CR in b[i:k]
	// must lie in the leading whitespace run, and the func starts after
	// the last of them.
	w, _ := skipSpace(b[:k], i)
	if cr := c.nextCR(w); cr >= 0 && cr < k {
		return false
	}
	a := i + 1
	for x := w - 1; x >= i; x-- {
		if b[x] == '\r' {
			a = max(a, x+1)
			break
		}
	}
	if a >= k {
		return false
	}
	if k+1 < len(b) {
		return isSpaceByte(b[k+1])
	}
	return c.eolSpace
}

// prefixAt reports whether a complete host-log prefix (docs/formats.md
// "The host-log envelope")
// starts at i: the boundary that ends a [STRACE] record's attributes.
func (c *lineCursor) prefixAt(i int) bool {
	_, j, ok := envelopeAt(c.b, i)
	if !ok {
		return false
	}
	_, j, ok = levelAt(c.b, j)
	if !ok {
		return false
	}
	return c.funcColonSpace(j)
}

// isHeadAt reports whether a [STRACE] at i is a record head: `[STRACE]`,
// whitespace, `v=<digits>` (count_record_heads).
func isHeadAt(b []byte, i int) bool {
	j, ok := skipSpace(b, i+len(tokStrace))
	if !ok {
		return false
	}
	_, _, ok = digitField(b, j, "v=")
	return ok
}

// spanHead is the fixed part of a [STRACE] record, parsed in place.
type spanHead struct {
	pid, tid   int64
	inv        uint64
	hid, name  []byte
	depth      int64
	ts, dur    int64
	attrsStart int
	why        string // why the last parse failed
}

// parseCanonicalHead parses the head the emitter writes: one space before
// each field and at most 18 digits a number. Any other shape makes it
// return false, and parseAnyHead decides; where it succeeds, parseAnyHead
// would give the same head (FuzzSpanHeadPaths checks this).
func parseCanonicalHead(b []byte, i int, h *spanHead) bool {
	j := i + len(tokStrace)
	if !keyAt(b, j, " v=") {
		return false
	}
	j += 3
	e := digitsEnd(b, j)
	if e == j {
		return false
	}
	var ok bool
	var n uint64
	if !keyAt(b, e, " pid=") {
		return false
	}
	if n, j, ok = canonicalDigits(b, e+5); !ok {
		return false
	}
	h.pid = int64(n)
	if !keyAt(b, j, " tid=") {
		return false
	}
	if n, j, ok = canonicalDigits(b, j+5); !ok {
		return false
	}
	h.tid = int64(n)
	if !keyAt(b, j, " inv=") {
		return false
	}
	if h.inv, j, ok = canonicalDigits(b, j+5); !ok {
		return false
	}
	if !keyAt(b, j, " hid=") {
		return false
	}
	j += 5
	e = j
	for e < len(b) && isHexByte(b[e]) {
		e++
	}
	if e == j {
		return false
	}
	h.hid = b[j:e]
	if !keyAt(b, e, " depth=") {
		return false
	}
	if n, j, ok = canonicalDigits(b, e+7); !ok {
		return false
	}
	h.depth = int64(n)
	if !keyAt(b, j, " name=") {
		return false
	}
	j += 6
	e = j
	for e < len(b) && !isSpaceByte(b[e]) {
		e++
	}
	if e == j {
		return false
	}
	h.name = b[j:e]
	if !keyAt(b, e, " ts=") {
		return false
	}
	if n, j, ok = canonicalDigits(b, e+4); !ok {
		return false
	}
	h.ts = int64(n)
	if !keyAt(b, j, " dur=") {
		return false
	}
	if n, j, ok = canonicalDigits(b, j+5); !ok {
		return false
	}
	h.dur = int64(n)
	if j < len(b) && !isSpaceByte(b[j]) && b[j] != '[' || h.ts > maxInt64-h.dur {
		return false
	}
	h.attrsStart, h.why = j, ""
	return true
}

// keyAt reports whether b holds key at i. It is small enough to inline,
// so that a constant key is compared in a load or two.
func keyAt(b []byte, i int, key string) bool {
	return len(b)-i >= len(key) && string(b[i:i+len(key)]) == key
}

// canonicalDigits parses 1 to 18 digits at j, not followed by another: a
// value that cannot overflow int64. ok is false for any other text. (The
// caller checks the key before them, as a constant.)
func canonicalDigits(b []byte, j int) (n uint64, end int, ok bool) {
	k := j
	for k < len(b) && k-j < 18 {
		c := b[k] - '0'
		if c > 9 {
			break
		}
		n = n*10 + uint64(c)
		k++
	}
	if k == j || k < len(b) && isDigitByte(b[k]) {
		return 0, j, false
	}
	return n, k, true
}

// parseAnyHead parses the fixed fields of a [STRACE] record at i (which
// holds `[STRACE]`). It fails, making the record torn, when a field is
// missing, out of order, not unsigned digits, or overflows, when dur's
// digits run on into other text (dur=9e30 is not the integer 9), and when
// ts+dur overflows int64; h.why then says which.
func parseAnyHead(b []byte, i int, h *spanHead) bool {
	h.why = ""
	j, ok := skipSpace(b, i+len(tokStrace))
	if !ok {
		return false
	}
	if _, j, ok = digitField(b, j, "v="); !ok {
		return false
	}
	for _, f := range [...]struct {
		key string
		dst *int64
	}{{"pid=", &h.pid}, {"tid=", &h.tid}} {
		if j, ok = skipSpace(b, j); !ok {
			return h.fail(b, j, f.key, true)
		}
		if *f.dst, j, ok = int64Field(b, j, f.key); !ok {
			return h.fail(b, j, f.key, false)
		}
	}
	if j, ok = skipSpace(b, j); !ok {
		return h.fail(b, j, "inv=", true)
	}
	var d []byte
	if d, j, ok = digitField(b, j, "inv="); !ok {
		return h.fail(b, j, "inv=", false)
	}
	if h.inv, ok = parseUint(d, 1<<64-1); !ok {
		h.why = "inv overflows 64 bits"
		return false
	}
	if j, ok = skipSpace(b, j); !ok {
		return h.fail(b, j, "hid=", true)
	}
	if len(b)-j < 4 || string(b[j:j+4]) != "hid=" {
		return h.fail(b, j, "hid=", false)
	}
	j += 4
	e := j
	for e < len(b) && isHexByte(b[e]) {
		e++
	}
	if e == j {
		h.why = "hid is not hex"
		return false
	}
	h.hid = b[j:e]
	if j, ok = skipSpace(b, e); !ok {
		return h.fail(b, j, "depth=", true)
	}
	if h.depth, j, ok = int64Field(b, j, "depth="); !ok {
		return h.fail(b, j, "depth=", false)
	}
	if j, ok = skipSpace(b, j); !ok {
		return h.fail(b, j, "name=", true)
	}
	if len(b)-j < 5 || string(b[j:j+5]) != "name=" {
		return h.fail(b, j, "name=", false)
	}
	j += 5
	e = j
	for e < len(b) && !isSpaceByte(b[e]) {
		e++
	}
	if e == j {
		h.why = "empty name"
		return false
	}
	h.name = b[j:e]
	if j, ok = skipSpace(b, e); !ok {
		return h.fail(b, j, "ts=", true)
	}
	if h.ts, j, ok = int64Field(b, j, "ts="); !ok {
		return h.fail(b, j, "ts=", false)
	}
	if j, ok = skipSpace(b, j); !ok {
		return h.fail(b, j, "dur=", true)
	}
	if h.dur, j, ok = int64Field(b, j, "dur="); !ok {
		return h.fail(b, j, "dur=", false)
	}
	// The emitter writes a space after dur's digits; anything but
	// whitespace or the '[' of the next record there means the digits
	// were the prefix of something else.
	if j < len(b) && !isSpaceByte(b[j]) && b[j] != '[' {
		h.why = "dur is not an integer"
		return false
	}
	if h.ts > maxInt64-h.dur {
		h.why = "ts+dur overflows int64"
		return false
	}
	h.attrsStart = j
	return true
}

// fail sets h.why for a field key (with its '=') that did not parse at j:
// gap says the whitespace before it was missing. It returns false.
func (h *spanHead) fail(b []byte, j int, key string, gap bool) bool {
	name := key[:len(key)-1]
	switch {
	case j >= len(b):
		h.why = "cut before " + key
	case gap:
		h.why = "text runs on before " + key
		if j > 0 && isDigitByte(b[j-1]) {
			// The digits of the field before ran on into other text.
			h.why = "a field before " + key + " is not an integer"
		}
	case len(b)-j < len(key) || string(b[j:j+len(key)]) != key:
		h.why = "missing " + key
	default:
		v := b[j+len(key):]
		switch {
		case len(v) == 0:
			h.why = "cut after " + key
		case v[0] == '-':
			h.why = "negative " + name
		case isDigitByte(v[0]):
			h.why = name + " overflows int64"
		default:
			h.why = name + " is not an integer"
		}
	}
	return false
}

// trimSpaceBytes strips ASCII whitespace from both ends.
func trimSpaceBytes(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && isSpaceByte(b[i]) {
		i++
	}
	for j > i && isSpaceByte(b[j-1]) {
		j--
	}
	return b[i:j]
}

// parseAnchorAt checks a [CLOCK_ANCHOR] at i against docs/formats.md
// "[CLOCK_ANCHOR]": the
// complete envelope `[mono_ns=][T0x][TIMING] clock_anchor:` right before it
// (anything may precede the envelope), the four fields, then only spaces
// and tabs to the end of the line. ok is false for any other shape and for
// v other than 1.
func parseAnchorAt(b []byte, i int) (pid, mono, wall int64, ok bool) {
	if !anchorEnvelopeBefore(b, i) {
		return 0, 0, 0, false
	}
	j, sp := skipSpace(b, i+len(tokAnchor))
	if !sp {
		return 0, 0, 0, false
	}
	vd, j, okv := digitField(b, j, "v=")
	if !okv {
		return 0, 0, 0, false
	}
	if j, sp = skipSpace(b, j); !sp {
		return 0, 0, 0, false
	}
	if pid, j, ok = int64Field(b, j, "pid="); !ok {
		return 0, 0, 0, false
	}
	if j, sp = skipSpace(b, j); !sp {
		return 0, 0, 0, false
	}
	if mono, j, ok = int64Field(b, j, "mono_ns="); !ok {
		return 0, 0, 0, false
	}
	if j, sp = skipSpace(b, j); !sp {
		return 0, 0, 0, false
	}
	if wall, j, ok = int64Field(b, j, "wall_ns="); !ok {
		return 0, 0, 0, false
	}
	for ; j < len(b); j++ {
		if b[j] != ' ' && b[j] != '\t' {
			return 0, 0, 0, false
		}
	}
	if v, vok := parseUint(vd, maxInt64); !vok || v != 1 {
		return 0, 0, 0, false
	}
	return pid, mono, wall, true
}

// anchorEnvelopeBefore checks, backwards from i, for
// `[mono_ns=<d>][T0x<hex>][TIMING]<ws>clock_anchor:<ws>`.
func anchorEnvelopeBefore(b []byte, i int) bool {
	j := i
	for j > 0 && isSpaceByte(b[j-1]) {
		j--
	}
	if j == i || !bytes.HasSuffix(b[:j], tokClockAnchor) {
		return false
	}
	j -= len(tokClockAnchor)
	k := j
	for k > 0 && isSpaceByte(b[k-1]) {
		k--
	}
	if k == j || !bytes.HasSuffix(b[:k], tokTiming) {
		return false
	}
	k -= len(tokTiming)
	// [T0x<hex>]
	if k == 0 || b[k-1] != ']' {
		return false
	}
	k--
	e := k
	for k > 0 && isHexByte(b[k-1]) {
		k--
	}
	if k == e || !bytes.HasSuffix(b[:k], tokT0x) {
		return false
	}
	k -= len(tokT0x)
	// [mono_ns=<digits>]
	if k == 0 || b[k-1] != ']' {
		return false
	}
	k--
	e = k
	for k > 0 && isDigitByte(b[k-1]) {
		k--
	}
	return k < e && bytes.HasSuffix(b[:k], tokMonoNs)
}

// parseDropsAt parses a [HOSTLOG_DROPS] summary at i (docs/formats.md):
// fields in order, v must be 1.
func parseDropsAt(b []byte, i int, d *Drops) bool {
	j, sp := skipSpace(b, i+len(tokDrops))
	if !sp {
		return false
	}
	vd, j, ok := digitField(b, j, "v=")
	if !ok {
		return false
	}
	keys := [...]string{"pid=", "new=", "total=", "queue_full=", "claim_exhausted=", "output_failed=", "not_admitted="}
	var vals [len(keys)]int64
	for n, k := range keys {
		if j, sp = skipSpace(b, j); !sp {
			return false
		}
		if vals[n], j, ok = int64Field(b, j, k); !ok {
			return false
		}
	}
	if v, vok := parseUint(vd, maxInt64); !vok || v != 1 {
		return false
	}
	d.Pid, d.New, d.Total, d.QueueFull = vals[0], vals[1], vals[2], vals[3]
	d.ClaimExhausted, d.OutputFailed, d.NotAdmitted = vals[4], vals[5], vals[6]
	return true
}

// phaseLine is a `bind phase=` or `host-orch phase=` match in a line.
type phaseLine struct {
	at        int // index of "bind" / "host-orch"
	phase     []byte
	start     int64
	dur       int64
	attrs     []byte
	thread    []byte
	enveloped bool
	single    bool // fields separated by one space each (hbg_bind_phases' form)
}

// findPhases finds, in one pass over the "phase=" of b, the `bind phase=`
// record of the line when wantBind, and the first `host-orch
// phase=(\w+)` when wantOrch. The attributes of either are the rest of
// the line.
//
// The bind record is the first `bind phase=(\w+)\s+start_ns=(\d+)\s+dur_ns=(\d+)`
// (strace_timing's fields, any run of whitespace between them; its
// attributes then take the rest of the line, so a second record glued on
// is never read); with hbg, the first such match whose fields are one
// space apart (hbg_bind_phases' search, which passes over a record with a
// tab or two spaces between its fields and reads one glued after it),
// and, when the line has none, the first with other whitespace, single
// false. single reports whether the fields were one space apart.
//
// The match is the record whatever its values: when they do not hold
// (start_ns or dur_ns past int64, their sum past int64, dur_ns digits
// running on into other text as in dur_ns=9e30), the line has no record
// and bindWhy says why, rather than a later record on the line standing
// in for it (the reference reads the leading digits, or the Python
// integer, of that first match).
//
// skip holds [start, end) pairs, in order, of parsed [STRACE] heads (from
// the '[' to the end of the dur digits) and envelopes (`[mono_ns=…][T0x…]`),
// which are not searched: a match cannot start in one. Its "phase=" would
// start a whitespace-separated token (after "bind " or "host-orch "), and
// every token of a head is a fixed key (v=, pid=, ... name=, ts=, dur=); a
// "phase=" inside the name token follows no space. An envelope holds no
// 'p' at all. Nor can a match straddle the edge of either: both start
// with '[', which "phase=" does not hold, and a head ends in digits.
//
// When b holds `bind phase=` but no record, bindWhy says why (the
// reference's search would skip it silently; hbgkit counts it).
func findPhases(b []byte, skip []int, wantBind, wantOrch, hbg bool, bind, orch *phaseLine) (hasBind, hasOrch bool, bindWhy string) {
	from := 0
	// spaced is the first match with other whitespace than one space,
	// which with hbg stands for the line only when no single-spaced
	// record follows; spacedWhy is why its values do not hold.
	var spaced phaseLine
	hasSpaced, spacedWhy := false, ""
	bindDone := !wantBind
	refused := false // the line's record does not hold
	for !bindDone || wantOrch && !hasOrch {
		to := len(b)
		for len(skip) >= 2 && skip[1] <= from {
			skip = skip[2:]
		}
		if len(skip) >= 2 {
			if skip[0] <= from {
				from = skip[1]
				continue
			}
			to = skip[0]
		}
		k := indexPhaseEq(b[from:to])
		if k < 0 {
			if to == len(b) {
				break
			}
			from = to
			continue
		}
		k += from
		from = k + 1
		j := k + len(tokPhaseEq)
		e := j
		for e < len(b) && isWordByte(b[e]) {
			e++
		}
		isBind := !bindDone && k >= len(tokBindSp) && string(b[k-len(tokBindSp):k]) == "bind "
		if e == j {
			if isBind {
				bindWhy = firstWhy(bindWhy, "no phase name")
			}
			continue
		}
		switch {
		case isBind:
			sh, why := phaseShapeAt(b, e)
			if why != "" {
				bindWhy = firstWhy(bindWhy, why)
				continue
			}
			at := k - len(tokBindSp)
			if hbg && !sh.single {
				if !hasSpaced && spacedWhy == "" {
					if spacedWhy = sh.fill(b, at, b[j:e], &spaced); spacedWhy == "" {
						hasSpaced = true
					}
				}
				continue
			}
			bindDone = true
			if why := sh.fill(b, at, b[j:e], bind); why != "" {
				bindWhy, refused = why, true
				continue
			}
			hasBind = true
		case wantOrch && !hasOrch && k >= len(tokHostOrchSp) && string(b[k-len(tokHostOrchSp):k]) == "host-orch ":
			orch.at = k - len(tokHostOrchSp)
			orch.phase = b[j:e]
			orch.attrs = trimSpaceBytes(b[e:])
			orch.thread, _ = bindEnvelope(b, orch.at)
			hasOrch = true
		}
	}
	switch {
	case hasBind:
		bindWhy = ""
	case refused:
	case hasSpaced:
		*bind = spaced
		hasBind, bindWhy = true, ""
	case spacedWhy != "":
		bindWhy = spacedWhy
	}
	return hasBind, hasOrch, bindWhy
}

// phaseShape is the text of `\s+start_ns=(\d+)\s+dur_ns=(\d+)` after a
// `bind phase=<word>`: the two digit runs, the end of dur_ns' digits and
// whether both separators are one space.
type phaseShape struct {
	start, dur []byte
	end        int
	single     bool
}

// phaseShapeAt matches the fields of a `bind phase=` line at i, by their
// text alone; why says what is missing when they do not match.
func phaseShapeAt(b []byte, i int) (sh phaseShape, why string) {
	j, sp := skipSpace(b, i)
	d1, e1, ok := digitField(b, j, "start_ns=")
	if !sp || !ok {
		return sh, phaseFieldWhy(b, i, "start_ns=")
	}
	k, sp := skipSpace(b, e1)
	d2, e2, ok := digitField(b, k, "dur_ns=")
	if !sp || !ok {
		return sh, phaseFieldWhy(b, e1, "dur_ns=")
	}
	single := j == i+1 && b[i] == ' ' && k == e1+1 && b[e1] == ' '
	return phaseShape{start: d1, dur: d2, end: e2, single: single}, ""
}

// fill makes ph the record of a matched `bind phase=` at at with phase
// name phase, or says why its values do not hold.
func (sh phaseShape) fill(b []byte, at int, phase []byte, ph *phaseLine) (why string) {
	start, ok := parseUint(sh.start, maxInt64)
	if !ok {
		return "start_ns overflows int64"
	}
	dur, ok := parseUint(sh.dur, maxInt64)
	if !ok {
		return "dur_ns overflows int64"
	}
	if sh.end < len(b) && !isSpaceByte(b[sh.end]) {
		return "dur_ns is not an integer"
	}
	if start > maxInt64-dur {
		// Its end is past int64: refused, as a span whose ts+dur is.
		return "start_ns + dur_ns overflows int64"
	}
	ph.at, ph.phase = at, phase
	ph.start, ph.dur, ph.single = int64(start), int64(dur), sh.single
	ph.attrs = trimSpaceBytes(b[sh.end:])
	ph.thread, ph.enveloped = bindEnvelope(b, at)
	return ""
}

// indexPhaseEq is bytes.Index(b, "phase="), found by its '=': in these
// lines 'p' is common and '=' rarer (an envelope's one is skipped), so
// this makes one IndexByte call where bytes.Index made several. Text with
// many '=' (a span line searched whole, when spans are not parsed) goes
// to bytes.Index after a few: no match starts at or before a '=' that
// ended none, since "phase" holds no '='.
func indexPhaseEq(b []byte) int {
	i := 0
	for range 4 {
		k := bytes.IndexByte(b[i:], '=')
		if k < 0 {
			return -1
		}
		k += i
		if k >= 5 && string(b[k-5:k]) == "phase" {
			return k - 5
		}
		i = k + 1
	}
	if k := bytes.Index(b[i:], tokPhaseEq); k >= 0 {
		return i + k
	}
	return -1
}

// firstWhy keeps the first reason: cur unless it is empty.
func firstWhy(cur, why string) string {
	if cur != "" {
		return cur
	}
	return why
}

// phaseFieldWhy says why `<whitespace>key` (key "start_ns=" or "dur_ns=")
// did not parse at i of a `bind phase=` line.
func phaseFieldWhy(b []byte, i int, key string) string {
	name := key[:len(key)-1]
	j, sp := skipSpace(b, i)
	if !sp || len(b)-j < len(key) || string(b[j:j+len(key)]) != key {
		if j >= len(b) {
			return "cut before " + name + "="
		}
		return "missing " + name + "="
	}
	v := b[j+len(key):]
	switch {
	case len(v) == 0:
		return "cut after " + name + "="
	case v[0] == '-':
		return "negative " + name
	case isDigitByte(v[0]):
		return name + " overflows int64"
	}
	return name + " is not an integer"
}

// bindEnvelope looks at the envelopes before at. enveloped reports whether
// strace_timing's strict form ends exactly at at:
// `[mono_ns=<d>][T0x<hex>][TIMING]<ws><non-ws>:<ws>[<no ]>]<ws>`. thread is
// the hex of that envelope, or else of the last envelope before at.
func bindEnvelope(b []byte, at int) (thread []byte, enveloped bool) {
	from := 0
	for from < at {
		k := bytes.Index(b[from:at], tokMonoNs)
		if k < 0 {
			break
		}
		k += from
		from = k + 1
		th, j, ok := envelopeAt(b, k)
		if !ok {
			continue
		}
		thread = th
		if strictBindTail(b, j, at) {
			return th, true
		}
	}
	return thread, false
}

// strictBindTail checks `[TIMING]<ws><non-ws ending in :><ws>[...]<ws>` from
// j, ending exactly at at.
func strictBindTail(b []byte, j, at int) bool {
	if !bytes.HasPrefix(b[j:at], tokTiming) {
		return false
	}
	j, ok := skipSpace(b[:at], j+len(tokTiming))
	if !ok {
		return false
	}
	e := j
	for e < at && !isSpaceByte(b[e]) {
		e++
	}
	if e-j < 2 || b[e-1] != ':' {
		return false
	}
	if j, ok = skipSpace(b[:at], e); !ok {
		return false
	}
	if j >= at || b[j] != '[' {
		return false
	}
	k := bytes.IndexByte(b[j:at], ']')
	if k < 0 {
		return false
	}
	j, ok = skipSpace(b[:at], j+k+1)
	return ok && j == at
}

// tokAutoload starts a torch_backend_autoload record.
var tokAutoload = []byte("torch_backend_autoload setting=")

// parseAutoload matches, at the start of b (which begins with
// tokAutoload), the record of docs/formats.md "torch_backend_autoload
// records",
//
//	torch_backend_autoload setting=<S> [raw=<null|"json string"> raw_truncated=<true|false> ]effective=<S> torch_imported=<true|false> torch_npu_loaded=<true|false>
//
// where <S> is a run of non-whitespace, and returns the record's length.
func parseAutoload(b []byte) (int, bool) {
	i := len(tokAutoload)
	word := func() bool {
		j := i
		for j < len(b) && !isSpaceByte(b[j]) {
			j++
		}
		if j == i {
			return false
		}
		i = j
		return true
	}
	lit := func(s string) bool {
		if !bytes.HasPrefix(b[i:], []byte(s)) {
			return false
		}
		i += len(s)
		return true
	}
	boolean := func() bool { return lit("true") || lit("false") }
	if !word() || !lit(" ") {
		return 0, false
	}
	if save := i; lit("raw=") {
		ok := lit("null")
		if !ok && i < len(b) && b[i] == '"' {
			// A JSON string: anything but an unescaped quote.
			for j := i + 1; j < len(b); j++ {
				if b[j] == '\\' {
					j++
					continue
				}
				if b[j] == '"' {
					i, ok = j+1, true
					break
				}
			}
		}
		if !ok || !lit(" raw_truncated=") || !boolean() || !lit(" ") {
			i = save
		}
	}
	if !lit("effective=") || !word() || !lit(" torch_imported=") || !boolean() ||
		!lit(" torch_npu_loaded=") || !boolean() {
		return 0, false
	}
	return i, true
}

package swimlane

import (
	"bufio"
	"cmp"
	"compress/gzip"
	"encoding/binary"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hbgkit/hbgkit/trace"
)

// Sample types of the span profile. Host and device spans run on different
// clocks (device spans are per-invocation, clk=dev), so their times are
// two sample types, never added together; a third counts the spans.
const (
	SampleHost   = "host"
	SampleDevice = "device"
	// SampleSpans counts the spans a sample holds: spans with one stack
	// and one label set are one sample.
	SampleSpans = "spans"
)

// ProfileOptions are the knobs of Profile.
type ProfileOptions struct {
	// Round maps a bind to its row of `hbgtrace rounds`, for the round
	// label; nil, or false, for none.
	Round func(pid int64, inv uint64) (int, bool)
	// PerInvocation labels each sample with its invocation (inv) and
	// round too, so that one bind can be picked out; without it, the
	// spans of every invocation with one stack on one thread and lane
	// are one sample.
	PerInvocation bool
}

// Profile returns the swimlane's spans as a pprof profile: each span's self
// time in ns — its duration minus the spans nested in it on the same thread
// and invocation, by interval (nest.go, the accounting's containment rule)
// — under the sample type host or device, with the span's ancestry (by the
// same nesting) as its stack and pid, tid and lane (and with
// PerInvocation inv and round) as labels. Spans with the same stack and
// the same labels (one name under one ancestry on one thread and lane, in
// every invocation; with PerInvocation, in one) are one sample, their
// self times summed (saturating at the int64 range) and counted in the
// sample type spans, so a sample costs what its distinct stack and label
// set cost, not what its spans do. Host spans include the
// artifact's records and the `bind phase=` segments, as in the swimlane.
// A LogProfile builds the same profile from a log as it is read, without
// a Swimlane.
func (sw *Swimlane) Profile(opts ProfileOptions) *Profile {
	b := newProfileBuilder()
	for i := range sw.hosts {
		b.addHost(sw.hosts[i].span, sw.hosts[i].external)
	}
	for _, s := range sw.devices {
		b.addDevice(s)
	}
	return b.profile(opts)
}

// A pspan is what a profile keeps of a span: 40 bytes without a pointer,
// so that a log's spans cost the collector nothing to scan and the
// profile no copy of their text.
type pspan struct {
	ts, dur, depth int64
	group          uint32 // index into profileBuilder.groups
	name           uint32 // index into profileBuilder.names
	h2d, external  bool
}

// A pgroup is the thread and invocation of spans, which nest only among
// themselves.
type pgroup struct {
	pid, tid int64
	inv      uint64
}

func (s *pspan) nest() nestSpan {
	return nestSpan{ts: s.ts, dur: s.dur, end: s.ts + s.dur, depth: s.depth, h2d: s.h2d}
}

// pspanBlock is how many pspans a block of pspans holds.
const pspanBlock = 8 << 10

// pspans are spans kept in blocks, which grow without copying what they
// hold (a slice that doubles holds up to twice its spans while it grows).
type pspans struct {
	blocks [][]pspan
	n      int
}

func (p *pspans) add(s pspan) {
	if p.n%pspanBlock == 0 {
		p.blocks = append(p.blocks, make([]pspan, 0, pspanBlock))
	}
	b := &p.blocks[len(p.blocks)-1]
	*b = append(*b, s)
	p.n++
}

func (p *pspans) at(i int) *pspan { return &p.blocks[i/pspanBlock][i%pspanBlock] }

// A profileBuilder collects the spans of a profile, host spans in the
// swimlane's order (the log's, then the artifact's records, then the
// `bind phase=` segments) and device spans in any order, and lays out
// the host lanes as they come.
type profileBuilder struct {
	groups   []pgroup
	groupIdx map[pgroup]uint32
	names    []string
	h2d      []bool // whether names[i] is a host-to-device copy (isH2D)
	nameIdx  map[string]uint32
	hosts    pspans
	devices  pspans
	lanes    *laneBuilder
	// lastGroup is the group of the span added last.
	lastGroup uint32
}

func newProfileBuilder() *profileBuilder {
	return &profileBuilder{nameIdx: make(map[string]uint32), groupIdx: make(map[pgroup]uint32), lanes: newLaneBuilder()}
}

// group returns the index of the span's (pid, tid, inv), the one of the
// span before when they are the same.
func (b *profileBuilder) group(s *trace.Span) uint32 {
	k := pgroup{s.Pid, s.Tid, s.Inv}
	if n := len(b.groups); n > 0 && b.groups[b.lastGroup] == k {
		return b.lastGroup
	}
	id, ok := b.groupIdx[k]
	if !ok {
		id = uint32(len(b.groups))
		b.groups = append(b.groups, k)
		b.groupIdx[k] = id
	}
	b.lastGroup = id
	return id
}

func (b *profileBuilder) span(s *trace.Span, external bool) pspan {
	id, ok := b.nameIdx[s.Name]
	if !ok {
		id = uint32(len(b.names))
		name := strings.Clone(s.Name)
		b.names = append(b.names, name)
		b.h2d = append(b.h2d, isH2D(name))
		b.nameIdx[name] = id
	}
	return pspan{ts: s.Ts, dur: s.Dur, depth: s.Depth, group: b.group(s),
		name: id, h2d: b.h2d[id], external: external}
}

func (b *profileBuilder) addHost(s *trace.Span, external bool) {
	b.lanes.add(s, external)
	b.hosts.add(b.span(s, external))
}

func (b *profileBuilder) addDevice(s *trace.Span) {
	b.devices.add(b.span(s, false))
}

// profile builds the profile of the spans added (see Swimlane.Profile).
func (b *profileBuilder) profile(opts ProfileOptions) *Profile {
	p := &Profile{}
	laneName := make(map[laneKey]string)
	for _, ln := range b.lanes.finish() {
		laneName[laneKey{ln.pid, ln.id}] = ln.name
	}
	locs := make(map[uint32]uint64)
	var truncated uint64
	loc := func(name uint32) uint64 {
		if id, ok := locs[name]; ok {
			return id
		}
		p.Functions = append(p.Functions, b.names[name])
		id := uint64(len(p.Functions))
		locs[name] = id
		return id
	}
	truncFrame := func() uint64 {
		if truncated == 0 {
			p.Functions = append(p.Functions, TruncatedFrame)
			truncated = uint64(len(p.Functions))
		}
		return truncated
	}
	if _, ok := b.nameIdx[TruncatedFrame]; ok {
		// A span named like the frame shares its location.
		truncFrame = func() uint64 { return loc(b.nameIdx[TruncatedFrame]) }
	}

	// Samples share what repeats: one stack slice per distinct stack
	// (spans of one name under one ancestry, every round alike) and one
	// label slice per label set, so a sample costs its values and two
	// slice headers, whatever its depth. 1M identical nested spans made
	// 1M stacks of 128 frames and 1M label sets before.
	stacks := make(map[string][]uint64)
	var stackKey []byte
	intern := func(stack []uint64) []uint64 {
		stackKey = stackKey[:0]
		for _, id := range stack {
			stackKey = binary.AppendUvarint(stackKey, id)
		}
		if st, ok := stacks[string(stackKey)]; ok {
			return st
		}
		st := slices.Clone(stack)
		stacks[string(stackKey)] = st
		return st
	}
	// A sample is found by its shared stack and label slices: equal
	// stacks and equal label sets are the same slices.
	type sampleKey struct {
		stack  *uint64
		labels *[2]string
	}
	sampleOf := make(map[sampleKey]int)
	type labelKey struct {
		pid, tid  int64
		inv, lane string
	}
	labels := make(map[labelKey][][2]string)
	var stack []uint64
	var g []nestSpan
	// The rank of each group in (pid, tid, inv) order.
	byKey := order(len(b.groups))
	slices.SortFunc(byKey, func(x, y int32) int {
		gx, gy := &b.groups[x], &b.groups[y]
		if c := cmp.Compare(gx.pid, gy.pid); c != 0 {
			return c
		}
		if c := cmp.Compare(gx.tid, gy.tid); c != 0 {
			return c
		}
		return cmp.Compare(gx.inv, gy.inv)
	})
	rank := make([]int32, len(b.groups))
	for r, g := range byKey {
		rank[g] = int32(r)
	}
	add := func(spans *pspans, idx []int32, device bool) {
		// The groups (thread and invocation) in (pid, tid, inv) order,
		// each group's spans in the order idx gives.
		slices.SortStableFunc(idx, func(x, y int32) int {
			return cmp.Compare(rank[spans.at(int(x)).group], rank[spans.at(int(y)).group])
		})
		for lo := 0; lo < len(idx); {
			group := spans.at(int(idx[lo])).group
			k := b.groups[group]
			hi := lo + 1
			for hi < len(idx) && spans.at(int(idx[hi])).group == group {
				hi++
			}
			grp := idx[lo:hi]
			lo = hi
			g = g[:0]
			for _, i := range grp {
				g = append(g, spans.at(int(i)).nest())
			}
			parent, order := nestTree(g)
			self := nestSelfTimes(g, parent, order)
			// The labels of the group's spans, per lane. String labels:
			// pprof drops a numeric label of 0, and round 0 is the
			// cold bind.
			labelsOf := func(lane string) [][2]string {
				inv := ""
				if opts.PerInvocation {
					inv = strconv.FormatUint(k.inv, 10)
				}
				lk := labelKey{k.pid, k.tid, inv, lane}
				if l, ok := labels[lk]; ok {
					return l
				}
				var l [][2]string
				if opts.PerInvocation {
					l = append(l, [2]string{"inv", inv})
				}
				l = append(l, [2]string{"lane", lane}, [2]string{"pid", strconv.FormatInt(k.pid, 10)})
				if opts.PerInvocation && opts.Round != nil {
					if r, ok := opts.Round(k.pid, k.inv); ok {
						l = append(l, [2]string{"round", strconv.Itoa(r)})
					}
				}
				l = append(l, [2]string{"tid", strconv.FormatInt(k.tid, 10)})
				labels[lk] = l
				return l
			}
			if opts.PerInvocation {
				// No later group shares a label set: keep the maps
				// small.
				clear(sampleOf)
				clear(labels)
			}
			for _, j := range order {
				stack = stack[:0]
				a := j
				for ; a >= 0 && len(stack) < MaxStackDepth-1; a = parent[a] {
					stack = append(stack, loc(spans.at(int(grp[a])).name))
				}
				if a >= 0 {
					// Deeper than MaxStackDepth: the outer spans are one
					// frame, so memory stays linear in the spans.
					if parent[a] >= 0 {
						stack = append(stack, truncFrame())
						p.Truncated++
					} else {
						stack = append(stack, loc(spans.at(int(grp[a])).name))
					}
				}
				s := spans.at(int(grp[j]))
				lane := "device (clk=dev)"
				if !device {
					lane = laneName[laneKey{k.pid, b.lanes.lane(k.pid, k.tid, k.inv, s.external)}]
				}
				st, lb := intern(stack), labelsOf(lane)
				key := sampleKey{&st[0], &lb[0]}
				p.Spans++
				if i, ok := sampleOf[key]; ok {
					smp := &p.Samples[i]
					if device {
						smp.Values[1] = addSat(smp.Values[1], self[j])
					} else {
						smp.Values[0] = addSat(smp.Values[0], self[j])
					}
					smp.Values[2]++
					continue
				}
				val := [3]int64{self[j], 0, 1}
				if device {
					val = [3]int64{0, self[j], 1}
				}
				sampleOf[key] = len(p.Samples)
				p.Samples = append(p.Samples, Sample{Locations: st, Values: val, Labels: lb})
			}
		}
	}

	var t0, t1 int64
	for i := 0; i < b.hosts.n; i++ {
		s := b.hosts.at(i)
		if i == 0 || s.ts < t0 {
			t0 = s.ts
		}
		if end := s.ts + s.dur; i == 0 || end > t1 {
			t1 = end
		}
	}
	p.DurationNanos = t1 - t0
	add(&b.hosts, order(b.hosts.n), false)
	// Devices in the swimlane's order: by (pid, inv, ts, tid, name).
	devs := order(b.devices.n)
	slices.SortStableFunc(devs, func(i, j int32) int {
		x, y := b.devices.at(int(i)), b.devices.at(int(j))
		gx, gy := &b.groups[x.group], &b.groups[y.group]
		return compareDevices(deviceKey{gx.pid, gx.inv, x.ts, gx.tid}, deviceKey{gy.pid, gy.inv, y.ts, gy.tid},
			b.names[x.name], b.names[y.name])
	})
	add(&b.devices, devs, true)
	return p
}

// A LogProfile builds the span profile of a log as the log is read, the
// profile Build(log, passes).Profile gives, without holding the log: of
// each span it keeps 40 bytes (pspan; its thread and invocation are an index), of the chip.run.bind spans and the
// `bind phase=` lines what recovering the bind segments needs, and per
// thread what laying out its lanes needs. Give it the log's spans and
// bind-phase lines in log order (trace.Visitors), then call Profile.
type LogProfile struct {
	// MaxSpans, when positive, bounds the spans and bind-phase lines
	// held: past it, Err returns a *trace.TooManySpansError.
	MaxSpans int

	b *profileBuilder
	// binds are the host chip.run.bind spans and their segments (which
	// an artifact's records are checked against), their text dropped.
	binds []trace.Span
	lines []trace.BindPhase
	held  int
	err   error
}

// NewLogProfile returns an empty LogProfile.
func NewLogProfile() *LogProfile { return &LogProfile{b: newProfileBuilder()} }

func (lp *LogProfile) hold(pos trace.Pos) bool {
	if lp.err != nil {
		return false
	}
	if lp.held++; lp.MaxSpans > 0 && lp.held > lp.MaxSpans {
		lp.err = &trace.TooManySpansError{Max: lp.MaxSpans, Pos: pos}
		return false
	}
	return true
}

// AddSpan takes the log's next span.
func (lp *LogProfile) AddSpan(s *trace.Span) {
	if !lp.hold(s.Pos) {
		return
	}
	if s.IsDevice() {
		lp.b.addDevice(s)
		return
	}
	lp.b.addHost(s, trace.Family(s.Name) == trace.FamilyExternal)
	keep := s.Name == "chip.run.bind"
	if seg, ok := strings.CutPrefix(s.Name, "chip.run.bind."); ok && bindSegments[seg] {
		keep = true
	}
	if keep {
		c := *s
		c.Attrs = "" // text that would keep the reader's chunk alive; unused
		lp.binds = append(lp.binds, c)
	}
}

// AddBindPhase takes the log's next `bind phase=` line.
func (lp *LogProfile) AddBindPhase(l *trace.BindPhase) {
	if !lp.hold(l.Pos) {
		return
	}
	c := *l
	c.Attrs = strings.Clone(l.Attrs)
	lp.lines = append(lp.lines, c)
}

// Err returns the error that ended the read (a bound's), or nil.
func (lp *LogProfile) Err() error { return lp.err }

// Profile returns the profile of the log read, with the spans of the
// artifact's passes (trace.LoadPhaseRecords; nil when there is none), and
// the warnings of merging them (Swimlane.Warnings).
func (lp *LogProfile) Profile(passes []trace.RecordPass, opts ProfileOptions) (*Profile, []string) {
	m := mergeRecords(lp.binds, passes)
	for i := range m.spans {
		lp.b.addHost(&m.spans[i], false)
	}
	eachBindPhaseSpan(lp.binds, lp.lines, m.covered, func(s *trace.Span) { lp.b.addHost(s, false) })
	lp.binds, lp.lines = nil, nil
	sum := Summary{Orphaned: m.orphaned, OutOfRange: m.outOfRange}
	return lp.b.profile(opts), sum.warnings()
}

// order returns 0, 1, …, n-1.
func order(n int) []int32 {
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(i)
	}
	return idx
}

// addSat returns a+b, held at the int64 range rather than wrapped: hostile
// durations summed over millions of spans must not turn negative.
func addSat(a, b int64) int64 {
	c := a + b
	switch {
	case a > 0 && b > 0 && c < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && c >= 0:
		return math.MinInt64
	}
	return c
}

// MaxStackDepth bounds a sample's stack. Spans nested n deep would make
// stacks of n frames, n²/2 in all (10,000 spans nested by time: 50 million
// frames, a gigabyte); a stack deeper than this keeps its MaxStackDepth−1
// innermost frames and one TruncatedFrame for the rest, as runtime/pprof
// bounds its stacks.
const MaxStackDepth = 128

// TruncatedFrame is the outermost frame of a truncated stack.
const TruncatedFrame = "(outer spans truncated)"

// A Profile is a span profile: one function per span name, the samples,
// the host time they cover. Write and WriteUncompressed encode it as
// profile.proto, the format `go tool pprof` reads.
type Profile struct {
	// Functions are the span names; function and location i+1 are
	// Functions[i].
	Functions []string
	Samples   []Sample
	// DurationNanos is the host time the host spans cover.
	DurationNanos int64
	// Spans counts the spans the samples hold.
	Spans int
	// Truncated counts the spans whose stacks were cut at MaxStackDepth.
	Truncated int
}

// A Sample is the spans of one stack and one label set: the stack of
// location IDs, leaf first, the summed self time under the sample types
// host and device and the number of spans (sample type spans), and the
// labels, sorted by key. Samples with the same stack or the same labels
// share the slices, which are not to be modified.
type Sample struct {
	Locations []uint64
	Values    [3]int64
	Labels    [][2]string
}

// Write writes p gzip-compressed, as pprof files are.
func (p *Profile) Write(w io.Writer) error {
	zw := gzip.NewWriter(w)
	if err := p.WriteUncompressed(zw); err != nil {
		return err
	}
	return zw.Close()
}

// WriteUncompressed writes the protobuf encoding of p (profile.proto): the
// sample types host and device (ns) and spans (count), one location per
// function, no mappings, a period of one span. It is encoded here, sample
// by sample through a buffer, so that writing costs the string table and
// not a copy of every sample (github.com/google/pprof/profile allocates
// each sample's location ids and labels and the whole encoding first).
func (p *Profile) WriteUncompressed(w io.Writer) error {
	e := &protoWriter{w: bufio.NewWriterSize(w, 64<<10), strs: map[string]int64{"": 0}, table: []string{""}}
	str := e.str
	valueType := func(typ, unit string) []byte {
		var b []byte
		b = appendVarintField(b, 1, uint64(str(typ)))
		return appendVarintField(b, 2, uint64(str(unit)))
	}
	e.bytes(1, valueType(SampleHost, "nanoseconds"))
	e.bytes(1, valueType(SampleDevice, "nanoseconds"))
	e.bytes(1, valueType(SampleSpans, "count"))
	var msg, packed []byte
	for i := range p.Samples {
		smp := &p.Samples[i]
		msg = msg[:0]
		packed = packed[:0]
		for _, id := range smp.Locations {
			packed = binary.AppendUvarint(packed, id)
		}
		msg = appendBytesField(msg, 1, packed)
		packed = packed[:0]
		for _, v := range smp.Values {
			packed = binary.AppendUvarint(packed, uint64(v))
		}
		msg = appendBytesField(msg, 2, packed)
		for _, l := range smp.Labels {
			packed = packed[:0]
			packed = appendVarintField(packed, 1, uint64(str(l[0])))
			packed = appendVarintField(packed, 2, uint64(str(l[1])))
			msg = appendBytesField(msg, 3, packed)
		}
		e.bytes(2, msg)
	}
	for i, name := range p.Functions {
		id := uint64(i + 1)
		msg = msg[:0]
		msg = appendVarintField(msg, 1, id)
		line := appendVarintField(nil, 1, id)
		msg = appendBytesField(msg, 4, line)
		e.bytes(4, msg)
		msg = msg[:0]
		msg = appendVarintField(msg, 1, id)
		msg = appendVarintField(msg, 2, uint64(str(name)))
		msg = appendVarintField(msg, 3, uint64(str(name)))
		e.bytes(5, msg)
	}
	e.varint(10, uint64(p.DurationNanos))
	e.bytes(11, valueType("span", "count"))
	e.varint(12, 1)
	e.varint(14, uint64(str(SampleHost)))
	// The string table last: the fields of a message may come in any
	// order, and by now every string has its index.
	for _, s := range e.table {
		e.bytes(6, []byte(s))
	}
	if e.err != nil {
		return e.err
	}
	return e.w.Flush()
}

// A protoWriter writes the fields of one protobuf message to w and
// interns strings into the profile's string table.
type protoWriter struct {
	w     *bufio.Writer
	buf   []byte
	strs  map[string]int64
	table []string
	err   error
}

func (e *protoWriter) str(s string) int64 {
	if i, ok := e.strs[s]; ok {
		return i
	}
	i := int64(len(e.table))
	e.table = append(e.table, s)
	e.strs[s] = i
	return i
}

func (e *protoWriter) write(b []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
}

func (e *protoWriter) bytes(field int, b []byte) {
	e.buf = appendBytesField(e.buf[:0], field, b)
	e.write(e.buf)
}

func (e *protoWriter) varint(field int, v uint64) {
	e.buf = appendVarintField(e.buf[:0], field, v)
	e.write(e.buf)
}

// appendVarintField appends a varint field (wire type 0); zero is left
// out, as proto3 leaves out defaults.
func appendVarintField(b []byte, field int, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = binary.AppendUvarint(b, uint64(field)<<3)
	return binary.AppendUvarint(b, v)
}

// appendBytesField appends a length-delimited field (wire type 2).
func appendBytesField(b []byte, field int, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(field)<<3|2)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

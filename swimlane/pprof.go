package swimlane

import (
	"compress/gzip"
	"io"
	"sort"
	"strconv"

	"github.com/hbgkit/hbgkit/trace"
)

// Sample types of the span profile. Host and device spans run on different
// clocks (device spans are per-invocation, clk=dev), so their times are
// two sample types, never added together.
const (
	SampleHost   = "host"
	SampleDevice = "device"
)

// ProfileOptions are the knobs of Profile.
type ProfileOptions struct {
	// Round maps a bind to its row of `hbgtrace rounds`, for the round
	// label; nil, or false, for none.
	Round func(pid int64, inv uint64) (int, bool)
}

// Profile returns the swimlane's spans as a pprof profile: one sample per
// span, valued at its self time in ns — its duration minus the spans
// nested in it on the same thread and invocation, by interval (nest.go,
// the accounting's containment rule) — under the sample type host or
// device, with the span's ancestry (by the same nesting) as its stack and
// pid, tid, inv, lane and round as labels. Host spans include the
// artifact's records and the `bind phase=` segments, as in the swimlane.
func (sw *Swimlane) Profile(opts ProfileOptions) *Profile {
	p := &Profile{}
	laneName := make(map[laneKey]string, len(sw.lanes))
	for _, ln := range sw.lanes {
		laneName[laneKey{ln.pid, ln.id}] = ln.name
	}
	locs := make(map[string]uint64)
	loc := func(name string) uint64 {
		if id, ok := locs[name]; ok {
			return id
		}
		p.Functions = append(p.Functions, name)
		id := uint64(len(p.Functions))
		locs[name] = id
		return id
	}

	type groupKey struct {
		pid, tid int64
		inv      uint64
	}
	add := func(spans []*trace.Span, lanes []string, device bool) {
		groups := make(map[groupKey][]int)
		var keys []groupKey
		for i, s := range spans {
			k := groupKey{s.Pid, s.Tid, s.Inv}
			if _, ok := groups[k]; !ok {
				keys = append(keys, k)
			}
			groups[k] = append(groups[k], i)
		}
		sort.Slice(keys, func(i, j int) bool {
			a, b := keys[i], keys[j]
			if a.pid != b.pid {
				return a.pid < b.pid
			}
			if a.tid != b.tid {
				return a.tid < b.tid
			}
			return a.inv < b.inv
		})
		for _, k := range keys {
			idx := groups[k]
			g := make([]*trace.Span, len(idx))
			for j, i := range idx {
				g[j] = spans[i]
			}
			parent, order := nestParents(g)
			self := selfTimes(g, parent, order)
			for _, j := range order {
				s := g[j]
				var stack []uint64
				a := j
				for ; a >= 0 && len(stack) < MaxStackDepth-1; a = parent[a] {
					stack = append(stack, loc(g[a].Name))
				}
				if a >= 0 {
					// Deeper than MaxStackDepth: the outer spans are one
					// frame, so memory stays linear in the spans.
					if parent[a] >= 0 {
						stack = append(stack, loc(TruncatedFrame))
						p.Truncated++
					} else {
						stack = append(stack, loc(g[a].Name))
					}
				}
				val := [2]int64{self[j], 0}
				if device {
					val = [2]int64{0, self[j]}
				}
				// String labels: pprof drops a numeric label of 0,
				// and round 0 is the cold bind.
				smp := Sample{Locations: stack, Values: val, Labels: [][2]string{
					{"inv", strconv.FormatUint(s.Inv, 10)},
					{"lane", lanes[idx[j]]},
					{"pid", strconv.FormatInt(s.Pid, 10)},
				}}
				if opts.Round != nil {
					if r, ok := opts.Round(s.Pid, s.Inv); ok {
						smp.Labels = append(smp.Labels, [2]string{"round", strconv.Itoa(r)})
					}
				}
				smp.Labels = append(smp.Labels, [2]string{"tid", strconv.FormatInt(s.Tid, 10)})
				p.Samples = append(p.Samples, smp)
			}
		}
	}

	hosts := make([]*trace.Span, len(sw.hosts))
	hostLanes := make([]string, len(sw.hosts))
	var t0, t1 int64
	for i := range sw.hosts {
		s := sw.hosts[i].span
		hosts[i] = s
		hostLanes[i] = laneName[laneKey{s.Pid, sw.hosts[i].lane}]
		if i == 0 || s.Ts < t0 {
			t0 = s.Ts
		}
		if i == 0 || s.End() > t1 {
			t1 = s.End()
		}
	}
	p.DurationNanos = t1 - t0
	add(hosts, hostLanes, false)
	devLanes := make([]string, len(sw.devices))
	for i := range devLanes {
		devLanes[i] = "device (clk=dev)"
	}
	add(sw.devices, devLanes, true)
	return p
}

// MaxStackDepth bounds a sample's stack. Spans nested n deep would make
// stacks of n frames, n²/2 in all (10,000 spans nested by time: 50 million
// frames, a gigabyte); a stack deeper than this keeps its MaxStackDepth−1
// innermost frames and one TruncatedFrame for the rest, as runtime/pprof
// bounds its stacks.
const MaxStackDepth = 128

// TruncatedFrame is the outermost frame of a truncated stack.
const TruncatedFrame = "(outer spans truncated)"

// A Profile is a span profile in the terms of pprof's profile.proto: one
// location per function (span name), no mappings. It writes itself in the
// format `go tool pprof` reads (Write); hbgkit encodes it itself rather
// than link github.com/google/pprof/profile, whose initialisation cost
// every hbgtrace run 1.5 ms.
type Profile struct {
	// Functions are the span names; function and location i+1 are
	// Functions[i].
	Functions []string
	Samples   []Sample
	// DurationNanos is the host time the host spans cover.
	DurationNanos int64
	// Truncated counts the samples whose stacks were cut at MaxStackDepth.
	Truncated int
}

// A Sample is one span: its stack of location IDs, leaf first, its
// self time under the sample types host and device, and its labels,
// sorted by key.
type Sample struct {
	Locations []uint64
	Values    [2]int64
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

// WriteUncompressed writes the protobuf encoding of p.
func (p *Profile) WriteUncompressed(w io.Writer) error {
	var e protoEncoder
	strs := map[string]int64{"": 0}
	table := []string{""}
	str := func(s string) int64 {
		if i, ok := strs[s]; ok {
			return i
		}
		i := int64(len(table))
		strs[s] = i
		table = append(table, s)
		return i
	}
	valueType := func(field int, typ, unit string) {
		e.message(field, func(m *protoEncoder) {
			m.int(1, str(typ))
			m.int(2, str(unit))
		})
	}
	valueType(1, SampleHost, "nanoseconds")
	valueType(1, SampleDevice, "nanoseconds")
	for i := range p.Samples {
		smp := &p.Samples[i]
		e.message(2, func(m *protoEncoder) {
			m.packedUints(1, smp.Locations)
			m.packedInts(2, smp.Values[:])
			for _, l := range smp.Labels {
				m.message(3, func(lm *protoEncoder) {
					lm.int(1, str(l[0]))
					lm.int(2, str(l[1]))
				})
			}
		})
	}
	for i := range p.Functions {
		id := int64(i + 1)
		e.message(4, func(m *protoEncoder) {
			m.int(1, id)
			m.message(4, func(lm *protoEncoder) { lm.int(1, id) })
		})
	}
	for i, name := range p.Functions {
		id, n := int64(i+1), str(name)
		e.message(5, func(m *protoEncoder) {
			m.int(1, id)
			m.int(2, n)
			m.int(3, n)
		})
	}
	period := str("span")
	count := str("count")
	def := str(SampleHost)
	for _, s := range table {
		e.bytes(6, []byte(s))
	}
	e.int(10, p.DurationNanos)
	e.message(11, func(m *protoEncoder) {
		m.int(1, period)
		m.int(2, count)
	})
	e.int(12, 1)
	e.int(14, def)
	_, err := w.Write(e.b)
	return err
}

// A protoEncoder appends protobuf fields: varints (wire type 0) and
// length-delimited bytes (wire type 2), which is all profile.proto needs.
type protoEncoder struct{ b []byte }

func (e *protoEncoder) varint(x uint64) {
	for x >= 0x80 {
		e.b = append(e.b, byte(x)|0x80)
		x >>= 7
	}
	e.b = append(e.b, byte(x))
}

func (e *protoEncoder) key(field, wire int) { e.varint(uint64(field)<<3 | uint64(wire)) }

// int writes a varint field; proto3 leaves a zero out.
func (e *protoEncoder) int(field int, x int64) {
	if x == 0 {
		return
	}
	e.key(field, 0)
	e.varint(uint64(x))
}

func (e *protoEncoder) bytes(field int, b []byte) {
	e.key(field, 2)
	e.varint(uint64(len(b)))
	e.b = append(e.b, b...)
}

// message writes a length-delimited field made by fill.
func (e *protoEncoder) message(field int, fill func(*protoEncoder)) {
	var m protoEncoder
	fill(&m)
	e.bytes(field, m.b)
}

func (e *protoEncoder) packedUints(field int, v []uint64) {
	var m protoEncoder
	for _, x := range v {
		m.varint(x)
	}
	e.bytes(field, m.b)
}

func (e *protoEncoder) packedInts(field int, v []int64) {
	var m protoEncoder
	for _, x := range v {
		m.varint(uint64(x))
	}
	e.bytes(field, m.b)
}

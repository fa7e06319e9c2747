package swimlane

import (
	"encoding/binary"
	"io"
	"slices"
	"sort"
	"strconv"

	"github.com/google/pprof/profile"
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

	// Samples share what repeats: one stack slice per distinct stack
	// (spans of one name under one ancestry, every round alike) and one
	// label slice per (group, lane), so a sample costs its values and two
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
	type groupKey struct {
		pid, tid int64
		inv      uint64
	}
	var stack []uint64
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
			// The labels of the group's spans, per lane. String labels:
			// pprof drops a numeric label of 0, and round 0 is the
			// cold bind.
			labels := make(map[string][][2]string)
			labelsOf := func(lane string) [][2]string {
				if l, ok := labels[lane]; ok {
					return l
				}
				l := [][2]string{
					{"inv", strconv.FormatUint(k.inv, 10)},
					{"lane", lane},
					{"pid", strconv.FormatInt(k.pid, 10)},
				}
				if opts.Round != nil {
					if r, ok := opts.Round(k.pid, k.inv); ok {
						l = append(l, [2]string{"round", strconv.Itoa(r)})
					}
				}
				l = append(l, [2]string{"tid", strconv.FormatInt(k.tid, 10)})
				labels[lane] = l
				return l
			}
			for _, j := range order {
				stack = stack[:0]
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
				p.Samples = append(p.Samples, Sample{Locations: intern(stack), Values: val, Labels: labelsOf(lanes[idx[j]])})
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

// A Profile is a span profile: one function per span name, the samples,
// the host time they cover. Write and WriteUncompressed write it through
// github.com/google/pprof/profile, in the format `go tool pprof` reads.
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
// sorted by key. Samples with the same stack or the same labels share
// the slices, which are not to be modified.
type Sample struct {
	Locations []uint64
	Values    [2]int64
	Labels    [][2]string
}

// Write writes p gzip-compressed, as pprof files are.
func (p *Profile) Write(w io.Writer) error { return p.Proto().Write(w) }

// WriteUncompressed writes the protobuf encoding of p.
func (p *Profile) WriteUncompressed(w io.Writer) error { return p.Proto().WriteUncompressed(w) }

// Proto returns p as a pprof profile: the sample types host and device
// (ns), one location per function, no mappings, a period of one span.
func (p *Profile) Proto() *profile.Profile {
	out := &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: SampleHost, Unit: "nanoseconds"},
			{Type: SampleDevice, Unit: "nanoseconds"},
		},
		DurationNanos:     p.DurationNanos,
		PeriodType:        &profile.ValueType{Type: "span", Unit: "count"},
		Period:            1,
		DefaultSampleType: SampleHost,
	}
	locs := make([]*profile.Location, len(p.Functions))
	for i, name := range p.Functions {
		id := uint64(i + 1)
		fn := &profile.Function{ID: id, Name: name, SystemName: name}
		out.Function = append(out.Function, fn)
		locs[i] = &profile.Location{ID: id, Line: []profile.Line{{Function: fn}}}
	}
	out.Location = locs
	// Shared stacks and label sets (Sample) stay shared: one location
	// slice and one label map each, which encoding only reads. The
	// samples and their values are allocated in one block each.
	stacks := make(map[*uint64][]*profile.Location)
	labels := make(map[*[2]string]map[string][]string)
	samples := make([]profile.Sample, len(p.Samples))
	values := make([]int64, 2*len(p.Samples))
	out.Sample = make([]*profile.Sample, len(p.Samples))
	for i := range p.Samples {
		smp := &p.Samples[i]
		ps := &samples[i]
		ps.Value = values[2*i : 2*i+2 : 2*i+2]
		ps.Value[0], ps.Value[1] = smp.Values[0], smp.Values[1]
		if len(smp.Locations) > 0 {
			st, ok := stacks[&smp.Locations[0]]
			if !ok {
				st = make([]*profile.Location, len(smp.Locations))
				for k, id := range smp.Locations {
					st[k] = locs[id-1]
				}
				stacks[&smp.Locations[0]] = st
			}
			ps.Location = st
		}
		if len(smp.Labels) > 0 {
			m, ok := labels[&smp.Labels[0]]
			if !ok {
				m = make(map[string][]string, len(smp.Labels))
				for _, l := range smp.Labels {
					m[l[0]] = append(m[l[0]], l[1])
				}
				labels[&smp.Labels[0]] = m
			}
			ps.Label = m
		}
		out.Sample[i] = ps
	}
	return out
}

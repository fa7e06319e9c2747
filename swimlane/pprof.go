package swimlane

import (
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
func (sw *Swimlane) Profile(opts ProfileOptions) *profile.Profile {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: SampleHost, Unit: "nanoseconds"},
			{Type: SampleDevice, Unit: "nanoseconds"},
		},
		DefaultSampleType: SampleHost,
		PeriodType:        &profile.ValueType{Type: "span", Unit: "count"},
		Period:            1,
	}
	laneName := make(map[[2]int64]string, len(sw.lanes))
	for _, ln := range sw.lanes {
		laneName[[2]int64{ln.pid, ln.id}] = ln.name
	}
	locs := make(map[string]*profile.Location)
	loc := func(name string) *profile.Location {
		if l, ok := locs[name]; ok {
			return l
		}
		fn := &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, SystemName: name}
		p.Function = append(p.Function, fn)
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: fn}}}
		p.Location = append(p.Location, l)
		locs[name] = l
		return l
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
				var stack []*profile.Location
				for a := j; a >= 0; a = parent[a] {
					stack = append(stack, loc(g[a].Name))
				}
				val := []int64{self[j], 0}
				if device {
					val = []int64{0, self[j]}
				}
				smp := &profile.Sample{
					Location: stack,
					Value:    val,
					// String labels: pprof drops a numeric label of 0,
					// and round 0 is the cold bind.
					Label: map[string][]string{
						"lane": {lanes[idx[j]]},
						"pid":  {strconv.FormatInt(s.Pid, 10)},
						"tid":  {strconv.FormatInt(s.Tid, 10)},
						"inv":  {strconv.FormatUint(s.Inv, 10)},
					},
				}
				if opts.Round != nil {
					if r, ok := opts.Round(s.Pid, s.Inv); ok {
						smp.Label["round"] = []string{strconv.Itoa(r)}
					}
				}
				p.Sample = append(p.Sample, smp)
			}
		}
	}

	hosts := make([]*trace.Span, len(sw.hosts))
	hostLanes := make([]string, len(sw.hosts))
	var t0, t1 int64
	for i := range sw.hosts {
		s := sw.hosts[i].span
		hosts[i] = s
		hostLanes[i] = laneName[[2]int64{s.Pid, sw.hosts[i].lane}]
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

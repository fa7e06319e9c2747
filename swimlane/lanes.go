package swimlane

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hbgkit/hbgkit/trace"
)

// attrVal is a parsed attribute value compared the way Python compares
// them: the integer 12 and the string "12" differ.
type attrVal struct {
	isInt bool
	v     string
}

func valOf(a trace.Attr) attrVal { return attrVal{a.IsInt, a.Value} }

func getVal(attrs trace.Attrs, key string) (attrVal, bool) {
	a, ok := attrs.Get(key)
	if !ok {
		return attrVal{}, false
	}
	return valOf(a), true
}

// lessVal orders slot values: integers numerically, then strings.
func lessVal(a, b attrVal) bool {
	if a.isInt != b.isInt {
		return a.isInt
	}
	if !a.isInt {
		return a.v < b.v
	}
	return cmpIntText(a.v, b.v) < 0
}

// cmpIntText compares two canonical decimal integers of any size.
func cmpIntText(a, b string) int {
	na, nb := strings.HasPrefix(a, "-"), strings.HasPrefix(b, "-")
	if na != nb {
		if na {
			return -1
		}
		return 1
	}
	c := 0
	da, db := strings.TrimPrefix(a, "-"), strings.TrimPrefix(b, "-")
	switch {
	case len(da) != len(db):
		c = len(da) - len(db)
	default:
		c = strings.Compare(da, db)
	}
	if na {
		c = -c
	}
	switch {
	case c < 0:
		return -1
	case c > 0:
		return 1
	}
	return 0
}

type threadKey struct{ pid, tid int64 }

type invKey struct {
	pid int64
	inv uint64
}

// A laneKey names a lane: its process and its lane id.
type laneKey struct {
	pid  int64
	lane uint64
}

// A lane is one thread row of the swimlane, named by a thread_name event.
// Its id is a real tid, or a synthetic one past the largest real tid, which
// may be past int64 (the reference's Python integers do not wrap).
type lane struct {
	pid  int64
	id   uint64
	name string
}

// assignLanes sets the lane of every host entry and returns the lanes
// sorted by (pid, lane id), as a laneBuilder lays them out.
func assignLanes(hosts []hostEntry) []lane {
	b := newLaneBuilder()
	for i := range hosts {
		b.add(hosts[i].span, hosts[i].external)
	}
	lanes := b.finish()
	for i := range hosts {
		s := hosts[i].span
		hosts[i].lane = b.lane(s.Pid, s.Tid, s.Inv, hosts[i].external)
	}
	return lanes
}

func joinSorted(set map[string]bool) string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, "/")
}

// A process is one pid of the swimlane, named by a process_name event.
type process struct {
	pid  int64
	name string
}

// processLabels names every pid that has host spans, ascending, from all
// the spans of that pid (device ones included): a simpler node, an
// external producer, or a chip child.
func processLabels(hosts []hostEntry, all func(yield func(*trace.Span))) []process {
	type info struct {
		node      bool
		other     bool // a family other than external
		producers map[string]bool
	}
	byPid := make(map[int64]*info)
	for i := range hosts {
		if _, ok := byPid[hosts[i].span.Pid]; !ok {
			byPid[hosts[i].span.Pid] = &info{producers: make(map[string]bool)}
		}
	}
	all(func(s *trace.Span) {
		in, ok := byPid[s.Pid]
		if !ok {
			return
		}
		switch trace.Family(s.Name) {
		case trace.FamilyNode:
			in.node = true
		case trace.FamilyExternal:
			if p, ok := trace.ExternalProducer(s.Name); ok {
				in.producers[p] = true
			}
			return
		}
		in.other = true
	})
	out := make([]process, 0, len(byPid))
	for pid, in := range byPid {
		var name string
		switch {
		case in.node:
			name = fmt.Sprintf("simpler node (pid=%d)", pid)
		case !in.other:
			p := "unattributed"
			if len(in.producers) > 0 {
				p = joinSorted(in.producers)
			}
			name = fmt.Sprintf("external producer %s (pid=%d)", p, pid)
		default:
			name = fmt.Sprintf("simpler chip child (pid=%d)", pid)
		}
		out = append(out, process{pid, name})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].pid < out[j].pid })
	return out
}

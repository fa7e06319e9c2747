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
// sorted by (pid, lane id), following docs/swimlanes.md "3. What is on the
// screen": a thread stays one
// lane named after what it runs, unless its runs overlap and each
// pipeline slot's runs do not, in which case each slot gets a synthetic
// lane numbered after the largest real tid of the document.
func assignLanes(hosts []hostEntry) []lane {
	threads := make(map[threadKey][]int)
	var keys []threadKey
	var maxTid int64
	slotBy := make(map[invKey]attrVal)
	for i := range hosts {
		s := hosts[i].span
		k := threadKey{s.Pid, s.Tid}
		if _, ok := threads[k]; !ok {
			keys = append(keys, k)
		}
		threads[k] = append(threads[k], i)
		if i == 0 || s.Tid > maxTid {
			maxTid = s.Tid
		}
		if hosts[i].external || !strings.Contains(s.Attrs, "slot_id=") {
			continue
		}
		if v, ok := getVal(hosts[i].attrs(), "slot_id"); ok {
			slotBy[invKey{s.Pid, s.Inv}] = v
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].pid != keys[j].pid {
			return keys[i].pid < keys[j].pid
		}
		return keys[i].tid < keys[j].tid
	})

	next := uint64(maxTid) + 1
	var lanes []lane
	for _, k := range keys {
		idx := threads[k]
		var ours, ext []int
		for _, i := range idx {
			if hosts[i].external {
				ext = append(ext, i)
			} else {
				ours = append(ours, i)
			}
		}
		slots, groups := slotLanes(hosts, ours, slotBy)
		if slots == nil {
			for _, i := range idx {
				hosts[i].lane = uint64(k.tid)
			}
			lanes = append(lanes, lane{k.pid, uint64(k.tid), laneName(hosts, idx)})
			continue
		}
		if len(ext) > 0 {
			for _, i := range ext {
				hosts[i].lane = uint64(k.tid)
			}
			lanes = append(lanes, lane{k.pid, uint64(k.tid), laneName(hosts, ext)})
		}
		for _, slot := range slots {
			for _, i := range groups[slot] {
				hosts[i].lane = next
			}
			lanes = append(lanes, lane{k.pid, next, fmt.Sprintf("pipeline slot %s (tid %d)", slot.v, k.tid)})
			next++
		}
	}
	sort.SliceStable(lanes, func(i, j int) bool {
		if lanes[i].pid != lanes[j].pid {
			return lanes[i].pid < lanes[j].pid
		}
		return lanes[i].id < lanes[j].id
	})
	return lanes
}

// slotLanes decides whether one thread's own (non-external) spans split
// into pipeline-slot lanes: its depth-0 spans overlap, every span maps to a
// slot through its (pid, inv), there are at least two slots, and within
// each slot the depth-0 spans do not overlap. It returns the slots in
// ascending order and each slot's entries, or nil for no split.
func slotLanes(hosts []hostEntry, ours []int, slotBy map[invKey]attrVal) ([]attrVal, map[attrVal][]int) {
	var roots []*trace.Span
	for _, i := range ours {
		if hosts[i].span.Depth == 0 {
			roots = append(roots, hosts[i].span)
		}
	}
	if !overlaps(roots) {
		return nil, nil
	}
	groups := make(map[attrVal][]int)
	var slots []attrVal
	for _, i := range ours {
		s := hosts[i].span
		v, ok := slotBy[invKey{s.Pid, s.Inv}]
		if !ok {
			return nil, nil
		}
		if _, seen := groups[v]; !seen {
			slots = append(slots, v)
		}
		groups[v] = append(groups[v], i)
	}
	if len(slots) < 2 {
		return nil, nil
	}
	for _, v := range slots {
		var rs []*trace.Span
		for _, i := range groups[v] {
			if hosts[i].span.Depth == 0 {
				rs = append(rs, hosts[i].span)
			}
		}
		if overlaps(rs) {
			return nil, nil
		}
	}
	sort.SliceStable(slots, func(i, j int) bool { return lessVal(slots[i], slots[j]) })
	return slots, groups
}

// overlaps reports whether some two spans, sorted by (start, end), overlap:
// a consecutive pair where the first ends after the second starts.
func overlaps(spans []*trace.Span) bool {
	if len(spans) < 2 {
		return false
	}
	iv := make([][2]int64, len(spans))
	for i, s := range spans {
		iv[i] = [2]int64{s.Ts, s.End()}
	}
	sort.Slice(iv, func(i, j int) bool {
		if iv[i][0] != iv[j][0] {
			return iv[i][0] < iv[j][0]
		}
		return iv[i][1] < iv[j][1]
	})
	for i := 1; i < len(iv); i++ {
		if iv[i-1][1] > iv[i][0] {
			return true
		}
	}
	return false
}

// laneName names a lane from the entries it holds (docs/swimlanes.md "3.
// What is on the screen", Lanes): the
// artifact's thread tags first, then the roles of simpler's own spans
// (facade > scheduler > worker), a chip child, the external producers, and
// finally the tid.
func laneName(hosts []hostEntry, idx []int) string {
	recordWorker, submitMain := false, false
	facade, scheduler, worker := false, false, false
	workerIDs := make(map[attrVal]bool)
	missingID := false
	chip := false
	for _, i := range idx {
		h := &hosts[i]
		attrs := h.attrs()
		if v, ok := getVal(attrs, "host_phase_thread"); ok && !v.isInt {
			switch v.v {
			case "graph_record_worker":
				recordWorker = true
			case "graph_submit_main":
				submitMain = true
			}
		}
		fam := trace.Family(h.span.Name)
		if fam == trace.FamilyChip {
			chip = true
		}
		if h.external {
			continue
		}
		role, hasRole := getVal(attrs, "role")
		leaf, _ := trace.NodeLeaf(h.span.Name)
		isRole := func(r string) bool { return hasRole && !role.isInt && role.v == r }
		switch {
		case isRole("facade") || leaf == "graph_build" || leaf == "submit":
			facade = true
		case isRole("scheduler"):
			scheduler = true
		case isRole("worker"):
			worker = true
			if id, ok := getVal(attrs, "worker_id"); ok {
				workerIDs[id] = true
			} else {
				missingID = true
			}
		case fam == trace.FamilyNode:
			// Any other node span, whatever its role (role=driver too),
			// runs on a worker: the reference tests the leaf, not the role.
			worker = true
		}
	}
	switch {
	case recordWorker:
		return "graph record worker"
	case submitMain:
		return "graph submit main"
	}
	switch {
	case facade:
		return "orchestrator / facade"
	case scheduler:
		return "scheduler"
	case worker:
		if len(workerIDs) == 1 && !missingID {
			for id := range workerIDs {
				return "worker " + id.v
			}
		}
		return "worker"
	case chip:
		return "chip child"
	}

	allExternal := true
	producers := make(map[string]bool)
	for _, i := range idx {
		if !hosts[i].external {
			allExternal = false
			break
		}
		if p, ok := trace.ExternalProducer(hosts[i].span.Name); ok {
			producers[p] = true
		}
	}
	if allExternal && len(producers) > 0 {
		return "ext " + joinSorted(producers)
	}
	return fmt.Sprintf("tid %d", hosts[idx[0]].span.Tid)
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

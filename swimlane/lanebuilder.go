package swimlane

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hbgkit/hbgkit/trace"
)

// A laneBuilder lays out the lanes of the host spans it is given one at a
// time (docs/swimlanes.md "3. What is on the screen"): a thread stays one
// lane named after what it runs, unless its runs overlap and each
// pipeline slot's runs do not, in which case each slot gets a synthetic
// lane numbered after the largest real tid of the document. It keeps per
// thread what naming and splitting need (the roles seen, the depth-0
// intervals, the invocations), never the spans, so the swimlane and the
// streamed profile lay out lanes alike.
type laneBuilder struct {
	threads map[threadKey]*laneThread
	keys    []threadKey
	maxTid  int64
	n       int
	// slotBy is the slot_id of each (pid, inv): the last one a host span
	// of ours gave.
	slotBy map[invKey]attrVal
	// split is filled by finish: the split threads' lane per slot.
	split map[threadKey]map[attrVal]uint64
	// last is the thread of the span added last: runs of one thread's
	// spans find it without a map lookup.
	last    *laneThread
	lastKey threadKey
	attrs   trace.Attrs // reused: the attributes of the span being added
}

// A laneThread is what a laneBuilder keeps of one (pid, tid).
type laneThread struct {
	all, ext laneNamer // every span of the thread; its external ones
	hasExt   bool
	roots    []laneRoot // the thread's own (non-external) depth-0 spans
	invs     map[uint64]struct{}
	// lastInv is the invocation added to invs last.
	lastInv uint64
	hasInv  bool
}

// A laneRoot is one depth-0 span of ours: its interval and invocation.
type laneRoot struct {
	ts, end int64
	inv     uint64
}

func newLaneBuilder() *laneBuilder {
	return &laneBuilder{threads: make(map[threadKey]*laneThread), slotBy: make(map[invKey]attrVal)}
}

// add takes one host span in document order.
func (b *laneBuilder) add(s *trace.Span, external bool) {
	b.attrs = laneAttrs(b.attrs[:0], s.Attrs)
	attrs := b.attrs
	k := threadKey{s.Pid, s.Tid}
	t := b.last
	if t == nil || b.lastKey != k {
		t = b.threads[k]
		if t == nil {
			t = &laneThread{invs: make(map[uint64]struct{})}
			b.threads[k] = t
			b.keys = append(b.keys, k)
		}
		b.last, b.lastKey = t, k
	}
	if b.n == 0 || s.Tid > b.maxTid {
		b.maxTid = s.Tid
	}
	b.n++
	t.all.add(s.Name, external, attrs)
	if external {
		t.hasExt = true
		t.ext.add(s.Name, external, attrs)
		return
	}
	if !t.hasInv || t.lastInv != s.Inv {
		t.invs[s.Inv] = struct{}{}
		t.hasInv, t.lastInv = true, s.Inv
	}
	if s.Depth == 0 {
		t.roots = append(t.roots, laneRoot{s.Ts, s.End(), s.Inv})
	}
	if strings.Contains(s.Attrs, "slot_id=") {
		if v, ok := getVal(attrs, "slot_id"); ok {
			b.slotBy[invKey{s.Pid, s.Inv}] = v
		}
	}
}

// laneAttrs appends to buf the attributes of raw when it has one that
// lanes are named or split by (keys are not percent-encoded, so "key=" is
// in raw when key is an attribute); most spans have none, and cost no
// parse.
func laneAttrs(buf trace.Attrs, raw string) trace.Attrs {
	for _, k := range [...]string{"host_phase_thread=", "role=", "slot_id="} {
		if strings.Contains(raw, k) {
			return trace.AppendAttrs(buf, raw)
		}
	}
	return buf
}

// finish returns the lanes sorted by (pid, lane id); lane then gives each
// span's lane.
func (b *laneBuilder) finish() []lane {
	keys := b.keys
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].pid != keys[j].pid {
			return keys[i].pid < keys[j].pid
		}
		return keys[i].tid < keys[j].tid
	})
	b.split = make(map[threadKey]map[attrVal]uint64)
	next := uint64(b.maxTid) + 1
	var lanes []lane
	for _, k := range keys {
		t := b.threads[k]
		slots := b.slotLanes(k, t)
		if slots == nil {
			lanes = append(lanes, lane{k.pid, uint64(k.tid), t.all.name(k.tid)})
			continue
		}
		if t.hasExt {
			lanes = append(lanes, lane{k.pid, uint64(k.tid), t.ext.name(k.tid)})
		}
		ids := make(map[attrVal]uint64, len(slots))
		for _, slot := range slots {
			ids[slot] = next
			lanes = append(lanes, lane{k.pid, next, fmt.Sprintf("pipeline slot %s (tid %d)", slot.v, k.tid)})
			next++
		}
		b.split[k] = ids
	}
	sort.SliceStable(lanes, func(i, j int) bool {
		if lanes[i].pid != lanes[j].pid {
			return lanes[i].pid < lanes[j].pid
		}
		return lanes[i].id < lanes[j].id
	})
	return lanes
}

// lane returns the lane of a span of (pid, tid, inv), after finish.
func (b *laneBuilder) lane(pid, tid int64, inv uint64, external bool) uint64 {
	ids, ok := b.split[threadKey{pid, tid}]
	if !ok || external {
		return uint64(tid)
	}
	return ids[b.slotBy[invKey{pid, inv}]]
}

// slotLanes decides whether one thread's own (non-external) spans split
// into pipeline-slot lanes: its depth-0 spans overlap, every span maps to a
// slot through its (pid, inv), there are at least two slots, and within
// each slot the depth-0 spans do not overlap. It returns the slots in
// ascending order, or nil for no split.
func (b *laneBuilder) slotLanes(k threadKey, t *laneThread) []attrVal {
	iv := make([][2]int64, len(t.roots))
	for i, r := range t.roots {
		iv[i] = [2]int64{r.ts, r.end}
	}
	if !overlaps(iv) {
		return nil
	}
	seen := make(map[attrVal]bool)
	var slots []attrVal
	for inv := range t.invs {
		v, ok := b.slotBy[invKey{k.pid, inv}]
		if !ok {
			return nil
		}
		if !seen[v] {
			seen[v] = true
			slots = append(slots, v)
		}
	}
	if len(slots) < 2 {
		return nil
	}
	bySlot := make(map[attrVal][][2]int64)
	for _, r := range t.roots {
		v := b.slotBy[invKey{k.pid, r.inv}]
		bySlot[v] = append(bySlot[v], [2]int64{r.ts, r.end})
	}
	for _, v := range slots {
		if overlaps(bySlot[v]) {
			return nil
		}
	}
	sort.Slice(slots, func(i, j int) bool { return lessVal(slots[i], slots[j]) })
	return slots
}

// overlaps reports whether some two intervals, sorted by (start, end),
// overlap: a consecutive pair where the first ends after the second
// starts. It sorts iv.
func overlaps(iv [][2]int64) bool {
	if len(iv) < 2 {
		return false
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

// A laneNamer names a lane from the spans it is given (docs/swimlanes.md
// "3. What is on the screen", Lanes): the artifact's thread tags first,
// then the roles of simpler's own spans (facade > scheduler > worker), a
// chip child, the external producers, and finally the tid.
type laneNamer struct {
	recordWorker, submitMain     bool
	facade, scheduler, worker    bool
	missingID, chip, notExternal bool
	workerIDs                    map[attrVal]bool
	producers                    map[string]bool
}

func (n *laneNamer) add(name string, external bool, attrs trace.Attrs) {
	if v, ok := getVal(attrs, "host_phase_thread"); ok && !v.isInt {
		switch v.v {
		case "graph_record_worker":
			n.recordWorker = true
		case "graph_submit_main":
			n.submitMain = true
		}
	}
	fam := trace.Family(name)
	if fam == trace.FamilyChip {
		n.chip = true
	}
	if external {
		if p, ok := trace.ExternalProducer(name); ok {
			if n.producers == nil {
				n.producers = make(map[string]bool)
			}
			n.producers[p] = true
		}
		return
	}
	n.notExternal = true
	role, hasRole := getVal(attrs, "role")
	leaf, _ := trace.NodeLeaf(name)
	isRole := func(r string) bool { return hasRole && !role.isInt && role.v == r }
	switch {
	case isRole("facade") || leaf == "graph_build" || leaf == "submit":
		n.facade = true
	case isRole("scheduler"):
		n.scheduler = true
	case isRole("worker"):
		n.worker = true
		if id, ok := getVal(attrs, "worker_id"); ok {
			if n.workerIDs == nil {
				n.workerIDs = make(map[attrVal]bool)
			}
			n.workerIDs[id] = true
		} else {
			n.missingID = true
		}
	case fam == trace.FamilyNode:
		// Any other node span, whatever its role (role=driver too),
		// runs on a worker: the reference tests the leaf, not the role.
		n.worker = true
	}
}

// name is the lane's name; tid names a lane nothing else names.
func (n *laneNamer) name(tid int64) string {
	switch {
	case n.recordWorker:
		return "graph record worker"
	case n.submitMain:
		return "graph submit main"
	}
	switch {
	case n.facade:
		return "orchestrator / facade"
	case n.scheduler:
		return "scheduler"
	case n.worker:
		if len(n.workerIDs) == 1 && !n.missingID {
			for id := range n.workerIDs {
				return "worker " + id.v
			}
		}
		return "worker"
	case n.chip:
		return "chip child"
	}
	if !n.notExternal && len(n.producers) > 0 {
		return "ext " + joinSorted(n.producers)
	}
	return fmt.Sprintf("tid %d", tid)
}

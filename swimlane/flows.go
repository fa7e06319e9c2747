package swimlane

import (
	"fmt"
	"sort"

	"github.com/hbgkit/hbgkit/trace"
)

// A flow is one submit→dispatch handoff arrow between two host entries.
type flow struct {
	submit, dispatch int // host entry indices
	key              string
}

type flowKey struct {
	pid       int64
	run, slot attrVal
}

// nodeFlowKey returns the flow key of a node span: (pid, run_id, task_slot
// or else slot); none without run_id or slot.
func nodeFlowKey(s *trace.Span, attrs trace.Attrs) (flowKey, bool) {
	run, ok := getVal(attrs, "run_id")
	if !ok {
		return flowKey{}, false
	}
	slot, ok := getVal(attrs, "task_slot")
	if !ok {
		if slot, ok = getVal(attrs, "slot"); !ok {
			return flowKey{}, false
		}
	}
	return flowKey{s.Pid, run, slot}, true
}

// dispatchFlows pairs each node dispatch with the latest submit of the same
// (pid, run_id, slot) that started no later than it (docs/swimlanes.md "3.
// What is on the screen", Flows), in
// dispatch-ts order; the flow ids are the positions plus one.
func dispatchFlows(hosts []hostEntry) []flow {
	submits := make(map[flowKey][]int)
	type dispatch struct {
		i    int
		key  flowKey
		name string // its dispatch_key
	}
	var dispatches []dispatch
	var attrs trace.Attrs // reused: the values are kept, not the slice
	for i := range hosts {
		h := &hosts[i]
		leaf, ok := trace.NodeLeaf(h.span.Name)
		if !ok || (leaf != "submit" && leaf != "dispatch") {
			continue
		}
		attrs = trace.AppendAttrs(attrs[:0], h.span.Attrs)
		k, ok := nodeFlowKey(h.span, attrs)
		if !ok {
			continue
		}
		if leaf == "submit" {
			submits[k] = append(submits[k], i)
		} else {
			dispatches = append(dispatches, dispatch{i, k, dispatchKey(h.span.Pid, attrs)})
		}
	}
	for _, list := range submits {
		sort.SliceStable(list, func(a, b int) bool { return hosts[list[a]].span.Ts < hosts[list[b]].span.Ts })
	}
	var flows []flow
	for _, d := range dispatches {
		list := submits[d.key]
		ts := hosts[d.i].span.Ts
		// The first submit that started after the dispatch; the one before
		// it is the latest with ts <= dispatch ts.
		n := sort.Search(len(list), func(j int) bool { return hosts[list[j]].span.Ts > ts })
		if n == 0 {
			continue
		}
		flows = append(flows, flow{submit: list[n-1], dispatch: d.i, key: d.name})
	}
	sort.SliceStable(flows, func(a, b int) bool {
		return hosts[flows[a].dispatch].span.Ts < hosts[flows[b].dispatch].span.Ts
	})
	return flows
}

// dispatchKey is dispatch:<pid>:<run_id>:<slot>:<group_index>:<worker_id>:<dispatch_id>
// from the dispatch's attributes, with -1, -1 and 0 for the missing ones.
func dispatchKey(pid int64, attrs trace.Attrs) string {
	get := func(def string, keys ...string) string {
		for _, k := range keys {
			if a, ok := attrs.Get(k); ok {
				return a.Value
			}
		}
		return def
	}
	return fmt.Sprintf("dispatch:%d:%s:%s:%s:%s:%s", pid,
		get("", "run_id"), get("", "task_slot", "slot"),
		get("-1", "group_index"), get("-1", "worker_id"), get("0", "dispatch_id"))
}

// writeFlows writes the start ("s") and finish ("f") events of each flow.
func (sw *Swimlane) writeFlows(j *jsonWriter) {
	var a args
	for n, f := range sw.flows {
		sub, dis := &sw.hosts[f.submit], &sw.hosts[f.dispatch]
		start := min(sub.span.End(), dis.span.Ts)
		for _, end := range []struct {
			ph   string
			ts   int64
			host *hostEntry
		}{{"s", start, sub}, {"f", dis.span.Ts, dis}} {
			a = a[:0]
			a.setStr("dispatch_key", f.key)
			sw.clock.addWall(&a, end.host.span.Pid, end.ts)
			j.beginObject()
			j.key("name")
			j.str("task dispatch")
			j.key("cat")
			j.str("host.scheduler")
			j.key("ph")
			j.str(end.ph)
			j.key("id")
			j.int(int64(n + 1))
			j.key("ts")
			j.micros(end.ts)
			j.key("pid")
			j.int(end.host.span.Pid)
			j.key("tid")
			j.uint(end.host.lane)
			j.key("args")
			j.object(a)
			j.endObject()
		}
	}
}

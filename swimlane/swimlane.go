package swimlane

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/hbgkit/hbgkit/trace"
)

// A hostEntry is one host span of the swimlane and the lane it is drawn on.
type hostEntry struct {
	span     *trace.Span
	lane     uint64
	external bool
}

// A Summary counts what a swimlane holds, for the line the command prints.
type Summary struct {
	HostSpans   int // host spans parsed from the log
	DeviceSpans int // device spans, listed in unalignedDeviceSpans
	BindPhases  int // spans recovered from `bind phase=` lines
	Records     int // spans built from the artifact's records
	Skipped     int // artifact segments already in the log as spans
	Orphaned    int // artifact passes with no chip.run.bind in the log
	OutOfRange  int // artifact records whose duration is past int64, left out
}

// A Swimlane is the host swimlane of one log (docs/swimlanes.md), laid out and
// ready to be written.
type Swimlane struct {
	hosts   []hostEntry
	order   []int // host entry indices in event order
	devices []*trace.Span
	procs   []process
	lanes   []lane
	flows   []flow
	clock   *wallClock
	sum     Summary
}

// Build lays out the swimlane of l: all its spans, plus the spans of the
// artifact's passes (trace.LoadPhaseRecords; nil when there is no
// artifact), plus the `bind phase=` lines of binds the artifact does not
// cover. The Swimlane refers to l's
// spans; l must not change while it is in use.
func Build(l *trace.Log, passes []trace.RecordPass) *Swimlane {
	sw := &Swimlane{clock: newWallClock(l)}
	m := mergeRecords(l.Spans, passes)
	bind := bindPhaseSpans(l.Spans, l.BindPhases, m.covered)
	sw.sum.Records = len(m.spans)
	sw.sum.Skipped = m.skipped
	sw.sum.Orphaned = m.orphaned
	sw.sum.OutOfRange = m.outOfRange
	sw.sum.BindPhases = len(bind)
	extra := bind
	if len(m.spans) > 0 {
		extra = append(m.spans, bind...)
	}

	sw.hosts = make([]hostEntry, 0, len(l.Spans)+len(extra))
	for i := range l.Spans {
		s := &l.Spans[i]
		if s.IsDevice() {
			sw.devices = append(sw.devices, s)
			continue
		}
		sw.sum.HostSpans++
		sw.hosts = append(sw.hosts, hostEntry{span: s, external: trace.Family(s.Name) == trace.FamilyExternal})
	}
	sw.sum.DeviceSpans = len(sw.devices)
	for i := range extra {
		sw.hosts = append(sw.hosts, hostEntry{span: &extra[i]})
	}

	// The layout's parts read the spans and each writes its own result
	// (assignLanes only the entries' lane, which no other part reads), so
	// they run side by side, on both cores where there are two.
	var wg sync.WaitGroup
	wg.Go(func() { sw.lanes = assignLanes(sw.hosts) })
	wg.Go(func() { sw.flows = dispatchFlows(sw.hosts) })
	wg.Go(func() {
		sw.order = eventOrder(sw.hosts)
		sortDevices(sw.devices)
	})
	sw.procs = processLabels(sw.hosts, func(yield func(*trace.Span)) {
		for i := range l.Spans {
			yield(&l.Spans[i])
		}
		for i := range extra {
			yield(&extra[i])
		}
	})
	wg.Wait()
	return sw
}

// eventOrder returns the indices of hosts in the order their events are
// written: by (ts, pid, tid, name), ties in hosts' order. The numeric
// keys are copied next to the indices, so that the sort reaches through a
// span pointer only to break a tie by name. A stable sort: a log is
// nearly in time order already, which insertion sorts and merges take
// faster than pdqsort does (and sort.SliceStable's reflection, slower).
func eventOrder(hosts []hostEntry) []int {
	type key struct {
		ts, pid, tid int64
		i            int
	}
	keys := make([]key, len(hosts))
	for i := range hosts {
		s := hosts[i].span
		keys[i] = key{s.Ts, s.Pid, s.Tid, i}
	}
	slices.SortStableFunc(keys, func(x, y key) int {
		if c := cmp.Compare(x.ts, y.ts); c != 0 {
			return c
		}
		if c := cmp.Compare(x.pid, y.pid); c != 0 {
			return c
		}
		if c := cmp.Compare(x.tid, y.tid); c != 0 {
			return c
		}
		return strings.Compare(hosts[x.i].span.Name, hosts[y.i].span.Name)
	})
	order := make([]int, len(keys))
	for n := range keys {
		order[n] = keys[n].i
	}
	return order
}

// deviceKey is a device span's place in the swimlane's device order:
// (pid, inv, ts, tid), then its name. It is the one statement of that
// order: sortDevices and the streamed profile (pprof.go) both sort by it.
type deviceKey struct {
	pid     int64
	inv     uint64
	ts, tid int64
}

// compareDevices orders two device spans by their keys, then names.
func compareDevices(x, y deviceKey, xname, yname string) int {
	if c := cmp.Compare(x.pid, y.pid); c != 0 {
		return c
	}
	if c := cmp.Compare(x.inv, y.inv); c != 0 {
		return c
	}
	if c := cmp.Compare(x.ts, y.ts); c != 0 {
		return c
	}
	if c := cmp.Compare(x.tid, y.tid); c != 0 {
		return c
	}
	return strings.Compare(xname, yname)
}

// sortDevices orders the device spans by (pid, inv, ts, tid, name), ties
// in their order before, sorting copied keys as eventOrder does.
func sortDevices(devices []*trace.Span) {
	type key struct {
		deviceKey
		i int
	}
	keys := make([]key, len(devices))
	for i, s := range devices {
		keys[i] = key{deviceKey{s.Pid, s.Inv, s.Ts, s.Tid}, i}
	}
	slices.SortStableFunc(keys, func(x, y key) int {
		return compareDevices(x.deviceKey, y.deviceKey, devices[x.i].Name, devices[y.i].Name)
	})
	sorted := make([]*trace.Span, len(keys))
	for n := range keys {
		sorted[n] = devices[keys[n].i]
	}
	copy(devices, sorted)
}

// Summary returns the counts of what the swimlane holds.
func (sw *Swimlane) Summary() Summary { return sw.sum }

// Warnings returns the swimlane's own warnings (the reference's words,
// docs/swimlanes.md "4. The bind's prepare path"), without the trailing
// newline.
func (sw *Swimlane) Warnings() []string { return sw.sum.warnings() }

// warnings are the warnings of what merging an artifact left out.
func (sum Summary) warnings() []string {
	var w []string
	if sum.Orphaned > 0 {
		w = append(w, fmt.Sprintf("warning: %d phase-record pass(es) had no matching chip.run.bind span in this log and were dropped — is the log from the same run as the artifact?", sum.Orphaned))
	}
	if sum.OutOfRange > 0 {
		w = append(w, fmt.Sprintf("warning: %d phase record(s) left out: end_ns - start_ns is past the int64 range", sum.OutOfRange))
	}
	return w
}

// WriteJSON streams the swimlane document to w: traceEvents (process and
// thread names, X events by time, flows), displayTimeUnit,
// unalignedDeviceSpans, and clockAnchors when the log has anchors.
func (sw *Swimlane) WriteJSON(w io.Writer) error {
	j := newJSONWriter(w)
	j.beginObject()
	j.key("traceEvents")
	j.beginArray()
	for _, p := range sw.procs {
		writeMeta(j, "process_name", p.pid, 0, p.name)
	}
	for _, ln := range sw.lanes {
		writeMeta(j, "thread_name", ln.pid, ln.id, ln.name)
	}
	j.parallelElems(len(sw.order), func(j *jsonWriter, n int) {
		h := &sw.hosts[sw.order[n]]
		s := h.span
		a := j.args[:0]
		a.setUint("inv", s.Inv)
		a.setStr("hid", s.Hid)
		a.setInt("depth", s.Depth)
		a.setStr("attrs", s.Attrs)
		a.setInt("os_tid", s.Tid)
		j.attrs = trace.AppendAttrs(j.attrs[:0], s.Attrs)
		a.setAttrs(j.attrs)
		sw.clock.addWall(&a, s.Pid, s.Ts)
		writeX(j, s, s.Pid, h.lane, a)
		j.args = a
	})
	sw.writeFlows(j)
	j.endArray()
	j.key("displayTimeUnit")
	j.str("ms")
	j.key("unalignedDeviceSpans")
	j.beginArray()
	j.parallelElems(len(sw.devices), func(j *jsonWriter, n int) {
		s := sw.devices[n]
		j.elem()
		b := append(j.b, `{"name": `...)
		b = appendQuote(b, s.Name)
		b = append(b, `, "ts_ns": `...)
		b = strconv.AppendInt(b, s.Ts, 10)
		b = append(b, `, "dur_ns": `...)
		b = strconv.AppendInt(b, s.Dur, 10)
		b = append(b, `, "pid": `...)
		b = strconv.AppendInt(b, s.Pid, 10)
		b = append(b, `, "tid": `...)
		b = strconv.AppendInt(b, s.Tid, 10)
		b = append(b, `, "inv": `...)
		b = strconv.AppendUint(b, s.Inv, 10)
		b = append(b, `, "hid": `...)
		b = appendQuote(b, s.Hid)
		b = append(b, `, "depth": `...)
		b = strconv.AppendInt(b, s.Depth, 10)
		b = append(b, `, "attrs": `...)
		a := j.args[:0]
		a.setStr("raw", s.Attrs)
		j.attrs = trace.AppendAttrs(j.attrs[:0], s.Attrs)
		a.setAttrs(j.attrs)
		b = j.appendObject(b, a)
		j.b = append(b, '}')
		j.spill()
		j.args = a
	})
	j.endArray()
	sw.clock.writeClockAnchors(j)
	j.endObject()
	if err := j.flush(); err != nil {
		return fmt.Errorf("writing host swimlane: %w", err)
	}
	return nil
}

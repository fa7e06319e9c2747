package swimlane

import (
	"fmt"
	"io"
	"strconv"

	"github.com/hbgkit/hbgkit/trace"
)

// WriteChromeTrace writes the per-invocation Chrome trace of
// strace_timing --trace-out (`hbgtrace trace`) to w: one process per (pid,
// inv), in (pid, inv) order, with a host lane (tid 0) and a device lane (tid
// 1). Only invocation-keyed spans appear (trace.InvocationSpans); it returns
// their number. The document is streamed: nothing but w's buffer holds it.
func WriteChromeTrace(w io.Writer, l *trace.Log) (int, error) {
	return WriteChromeTraceSpans(w, l, trace.InvocationSpans(l.Spans))
}

// WriteChromeTraceSpans is WriteChromeTrace of the invocation-keyed spans
// given (trace.InvocationSpans, in log order) instead of l's: for a reader
// that kept them itself (trace.SpanBlocks). It takes only the anchors of
// l.
func WriteChromeTraceSpans(w io.Writer, l *trace.Log, spans []*trace.Span) (int, error) {
	invs := trace.GroupInvocations(spans)
	buckets := trace.BucketByHid(invs)
	labels := make(map[string]string, len(buckets))
	for i, b := range buckets {
		labels[b.Hid] = trace.BucketLabel(buckets, i)
	}
	clock := newWallClock(l)

	j := newJSONWriter(w)
	j.beginObject()
	j.key("traceEvents")
	j.beginArray()
	var a args
	for n, iv := range invs {
		lp := int64(n + 1)
		label, ok := labels[iv.Hid]
		if !ok {
			label = hidPrefix(iv.Hid)
		}
		writeMeta(j, "process_name", lp, 0, fmt.Sprintf("%s inv=%d (pid=%d)", label, iv.Inv, iv.Pid))
		writeMeta(j, "thread_name", lp, 0, "host")
		writeMeta(j, "thread_name", lp, 1, "device (clk=dev)")
		for _, s := range iv.Spans {
			dev := s.IsDevice()
			a = a[:0]
			a.setUint("inv", s.Inv)
			a.setStr("hid", s.Hid)
			a.setInt("depth", s.Depth)
			a.setStr("attrs", s.Attrs)
			tid := uint64(0)
			if dev {
				tid = 1
			} else {
				clock.addWall(&a, s.Pid, s.Ts)
			}
			writeX(j, s, lp, tid, a)
		}
	}
	j.endArray()
	j.key("displayTimeUnit")
	j.str("ms")
	clock.writeClockAnchors(j)
	j.endObject()
	if err := j.flush(); err != nil {
		return 0, fmt.Errorf("writing chrome trace: %w", err)
	}
	return len(spans), nil
}

func hidPrefix(hid string) string {
	if len(hid) > 8 {
		return hid[:8]
	}
	return hid
}

// writeMeta writes one "M" metadata event naming a process or a thread.
func writeMeta(j *jsonWriter, what string, pid int64, tid uint64, name string) {
	j.beginObject()
	j.key("ph")
	j.str("M")
	j.key("name")
	j.str(what)
	j.key("pid")
	j.int(pid)
	j.key("tid")
	j.uint(tid)
	j.key("args")
	j.beginObject()
	j.key("name")
	j.str(name)
	j.endObject()
	j.endObject()
}

// writeX writes one complete ("X") event for s on (pid, tid), as
// beginObject, key and the value writers would.
func writeX(j *jsonWriter, s *trace.Span, pid int64, tid uint64, a args) {
	j.elem()
	b := append(j.b, `{"name": `...)
	b = appendQuote(b, s.Name)
	b = append(b, `, "ph": "X", "ts": `...)
	b = appendMicros(b, s.Ts)
	b = append(b, `, "dur": `...)
	b = appendMicros(b, s.Dur)
	b = append(b, `, "pid": `...)
	b = strconv.AppendInt(b, pid, 10)
	b = append(b, `, "tid": `...)
	b = strconv.AppendUint(b, tid, 10)
	b = append(b, `, "args": `...)
	b = j.appendObject(b, a)
	j.b = append(b, '}')
	j.spill()
}

package swimlane

import (
	"sort"
	"strconv"

	"github.com/hbgkit/hbgkit/trace"
)

// wallClock maps a process's host monotonic times to wall time with its
// last [CLOCK_ANCHOR] (docs/formats.md "[CLOCK_ANCHOR]").
type wallClock struct {
	anchors map[int64]trace.Anchor
	pids    []int64 // the pids with an anchor, ascending
}

func newWallClock(l *trace.Log) *wallClock {
	c := &wallClock{anchors: make(map[int64]trace.Anchor)}
	for _, a := range l.Anchors {
		if _, ok := c.anchors[a.Pid]; ok {
			continue
		}
		c.anchors[a.Pid], _ = l.AnchorFor(a.Pid)
		c.pids = append(c.pids, a.Pid)
	}
	sort.Slice(c.pids, func(i, j int) bool { return c.pids[i] < c.pids[j] })
	return c
}

// addWall sets wall_ts_ns and wall_time on a for host time t of pid, when
// pid has an anchor written no later than t.
func (c *wallClock) addWall(a *args, pid, t int64) {
	an, ok := c.anchors[pid]
	if !ok {
		return
	}
	if n, ok := trace.WallNs(an, t); ok {
		// Formatted as they are written, without a string each.
		a.set(arg{key: "wall_ts_ns", kind: argIntString, i: n})
		a.set(arg{key: "wall_time", kind: argWallTime, i: n})
		return
	}
	ns, text, ok := trace.WallTime(an, t)
	if !ok {
		return
	}
	a.setStr("wall_ts_ns", ns)
	a.setStr("wall_time", text)
}

// writeClockAnchors writes the clockAnchors member: one object per anchored
// pid, ascending, with the times as strings. Nothing when there is none.
func (c *wallClock) writeClockAnchors(j *jsonWriter) {
	if len(c.pids) == 0 {
		return
	}
	j.key("clockAnchors")
	j.beginArray()
	for _, pid := range c.pids {
		an := c.anchors[pid]
		j.beginObject()
		j.key("pid")
		j.int(pid)
		j.key("mono_ns")
		j.str(strconv.FormatInt(an.MonoNs, 10))
		j.key("wall_ns")
		j.str(strconv.FormatInt(an.WallNs, 10))
		j.endObject()
	}
	j.endArray()
}

package swimlane

import (
	"fmt"
	"math/big"
	"sort"
	"time"

	"github.com/hbgkit/hbgkit/trace"
)

// wallClock maps a process's host monotonic times to wall time with its
// last [CLOCK_ANCHOR] (REFERENCE §1.3).
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
		last, ok := l.AnchorFor(a.Pid)
		if !ok {
			last = a
		}
		c.anchors[a.Pid] = last
		c.pids = append(c.pids, a.Pid)
	}
	sort.Slice(c.pids, func(i, j int) bool { return c.pids[i] < c.pids[j] })
	return c
}

// addWall sets wall_ts_ns and wall_time on a for host time t of pid, when
// pid has an anchor written no later than t.
func (c *wallClock) addWall(a *args, pid, t int64) {
	an, ok := c.anchors[pid]
	if !ok || an.MonoNs > t {
		return
	}
	ns, stamp := wallTime(an, t)
	a.setStr("wall_ts_ns", ns)
	a.setStr("wall_time", stamp)
}

// wallTime returns wall(t) = WallNs + t − MonoNs as a decimal string and as
// a UTC time with nanoseconds (2023-11-14T22:13:20.000000250Z). The
// arithmetic is exact at any size.
func wallTime(an trace.Anchor, t int64) (string, string) {
	w := new(big.Int).SetInt64(an.WallNs)
	w.Add(w, big.NewInt(t))
	w.Sub(w, big.NewInt(an.MonoNs))
	sec, nsec := new(big.Int).DivMod(w, big.NewInt(1e9), new(big.Int))
	if !sec.IsInt64() {
		return w.String(), ""
	}
	tm := time.Unix(sec.Int64(), 0).UTC()
	return w.String(), fmt.Sprintf("%s.%09dZ", tm.Format("2006-01-02T15:04:05"), nsec.Int64())
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
		j.str(fmt.Sprint(an.MonoNs))
		j.key("wall_ns")
		j.str(fmt.Sprint(an.WallNs))
		j.endObject()
	}
	j.endArray()
}

package swimlane

import (
	"encoding/binary"
	"sort"
	"testing"

	"github.com/hbgkit/hbgkit/trace"
)

// spansFromBytes decodes fuzz input as spans: 5 bytes each (start, length,
// H2D or not, depth), on a small time scale so that equal and touching
// intervals are common.
func spansFromBytes(b []byte) []*trace.Span {
	var out []*trace.Span
	for len(b) >= 5 && len(out) < 64 {
		ts := int64(binary.LittleEndian.Uint16(b[0:2]) % 200)
		dur := int64(b[2] % 120)
		name := "chip.run.bind.host_orch"
		if b[3]&1 == 1 {
			name = "chip.run.bind.graph_upload"
		}
		out = append(out, &trace.Span{Name: name, Ts: ts, Dur: dur, Depth: int64(b[4] % 4)})
		b = b[5:]
	}
	return out
}

func contains(a, b *trace.Span) bool { return a.Ts <= b.Ts && b.End() <= a.End() }

// laminar reports whether no two spans overlap partially.
func laminar(spans []*trace.Span) bool {
	for i, a := range spans {
		for _, b := range spans[i+1:] {
			overlap := a.Ts < b.End() && b.Ts < a.End()
			if overlap && !contains(a, b) && !contains(b, a) {
				return false
			}
		}
	}
	return true
}

func unionLen(spans []*trace.Span) int64 {
	iv := make([][2]int64, len(spans))
	for i, s := range spans {
		iv[i] = [2]int64{s.Ts, s.End()}
	}
	sort.Slice(iv, func(i, j int) bool { return iv[i][0] < iv[j][0] })
	var n, end int64 = 0, -1 << 62
	for _, v := range iv {
		if v[0] > end {
			n += v[1] - v[0]
			end = v[1]
		} else if v[1] > end {
			n += v[1] - end
			end = v[1]
		}
	}
	return n
}

// FuzzNest checks the nesting and self times on any set of intervals: a
// parent contains its child and is the innermost span that does (equal
// intervals aside), a copy never contains a non-copy of the same interval,
// self times lie in [0, dur], and for properly nested spans they add up
// to the time covered.
func FuzzNest(f *testing.F) {
	f.Add([]byte{0, 0, 100, 0, 0, 10, 0, 20, 1, 1, 10, 0, 20, 0, 2})
	f.Add([]byte{5, 0, 50, 1, 0, 5, 0, 50, 0, 0, 5, 0, 50, 1, 3})
	f.Add([]byte{0, 0, 60, 0, 0, 30, 0, 60, 0, 0, 40, 0, 10, 1, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		spans := spansFromBytes(b)
		parent, order := nestParents(spans)
		self := selfTimes(spans, parent, order)
		if len(order) != len(spans) {
			t.Fatalf("order has %d of %d", len(order), len(spans))
		}
		for i, s := range spans {
			if p := parent[i]; p >= 0 {
				if !contains(spans[p], s) {
					t.Fatalf("parent %+v does not contain %+v", spans[p], s)
				}
				for o, c := range spans {
					if o == i || o == p || !contains(c, s) || !contains(spans[p], c) {
						continue
					}
					same := c.Ts == s.Ts && c.End() == s.End() || c.Ts == spans[p].Ts && c.End() == spans[p].End()
					if !same {
						t.Fatalf("%+v lies between %+v and its parent %+v", c, s, spans[p])
					}
				}
				if isH2D(spans[p].Name) && !isH2D(s.Name) && spans[p].Ts == s.Ts && spans[p].Dur == s.Dur {
					t.Fatalf("a copy contains a non-copy of its own interval")
				}
			}
			if self[i] < 0 || self[i] > s.Dur {
				t.Fatalf("self %d of %+v", self[i], s)
			}
		}
		if laminar(spans) {
			var sum int64
			for _, v := range self {
				sum += v
			}
			if u := unionLen(spans); sum != u {
				t.Fatalf("nested spans: self times add to %d, covered time is %d", sum, u)
			}
		}
	})
}

package phases

import (
	"bytes"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/trace"
)

// FuzzParseSegmentEvidence checks that every value kept is what the text
// says, and every evidence key written is either kept or reported.
func FuzzParseSegmentEvidence(f *testing.F) {
	f.Add("tasks=47 heap_used=106399744 minflt=12 tminflt=3 nivcsw=0 nvcsw=1 cpu_ns=1890000 rec_cpu_ns=0")
	f.Add("minflt=-1 cpu_ns=1x bytes= count=99999999999999999999 minflt=3")
	f.Add("copied=%31 defs=+2 \t ntensor=007 =5 submissions")
	f.Fuzz(func(t *testing.T, raw string) {
		reported := map[string]bool{}
		c, w := ParseSegmentEvidence(raw, func(k, v, why string) {
			if why == "" {
				t.Fatalf("reported %s=%q without a reason", k, v)
			}
			reported[k] = true
		})
		last := map[string]string{}
		for _, tok := range strings.Fields(raw) {
			if k, v, ok := strings.Cut(tok, "="); ok {
				last[k] = v
			}
		}
		check := func(m map[string]int64, names []string) {
			for _, k := range names {
				v, has := last[k]
				got, kept := m[k]
				if !has {
					if kept {
						t.Fatalf("%s kept but not written", k)
					}
					continue
				}
				n, err := strconv.ParseUint(v, 10, 63)
				if err == nil && !strings.HasPrefix(v, "+") {
					if !kept || got != int64(n) {
						t.Fatalf("%s=%q: got %d kept=%v", k, v, got, kept)
					}
				} else if kept && !(strings.HasPrefix(v, "-") && strings.Trim(v[1:], "0") == "" && got == 0) {
					t.Fatalf("%s=%q kept as %d", k, v, got)
				} else if !kept && !reported[k] {
					t.Fatalf("%s=%q neither kept nor reported", k, v)
				}
			}
		}
		check(c, CounterNames)
		check(w, WorkNames)
	})
}

// FuzzCollectEvidence feeds arbitrary text around E2 lines: evidence
// never panics, every warning names a line, and no value is negative.
func FuzzCollectEvidence(f *testing.F) {
	f.Add([]byte(evLine("args", 100, "ntensor=3 minflt=1 cpu_ns=5") + evOrch("submit_task", "total_ns=5 count=1")))
	f.Add([]byte(evOrch("x", "count=1") + evLine("host_orch", 1, "minflt=-1 tasks=a") + evLine("args", 0, "minflt=2")))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := trace.ReadLog([]trace.Source{trace.ReaderSource("f.log", bytes.NewReader(data))})
		if err != nil {
			return
		}
		passes, ev, ws := CollectEvidence(l, nil)
		if len(passes) != len(ev) {
			t.Fatalf("%d passes, %d evidences", len(passes), len(ev))
		}
		for _, w := range ws {
			if w.Pos.Line <= 0 || w.Count <= 0 {
				t.Fatalf("warning without a line or count: %+v", w)
			}
		}
		for _, e := range ev {
			for _, s := range e.Segments {
				for k, v := range s.Counters {
					if v < 0 {
						t.Fatalf("%s=%d", k, v)
					}
				}
			}
			for k, op := range e.Orch {
				if op.TotalNs < 0 || op.Count < 0 {
					t.Fatalf("%s: %+v", k, op)
				}
			}
		}
	})
}

// FuzzEvidenceAttrs checks that a segment keeps the same evidence, and
// the same warnings, when a collector keeps only its reduced attributes
// (EvidenceAttrs) instead of the whole text, capped or not.
func FuzzEvidenceAttrs(f *testing.F) {
	f.Add("ntensor=92 staged=1 bytes=8 minflt=28 tminflt=5 nivcsw=1 nvcsw=1 cpu_ns=375098 rec_cpu_ns=104041", false)
	f.Add("nt=1131 bytes=5631523 copied=8704 sm=5620195 subs=2624 args=2262/2480/310 minflt=15 tminflt=1 nivcsw=2 nvcsw=2 cpu_n", true)
	f.Add("tasks=3 heap_used=1 minflt=13", true)
	f.Add("tasks=1131 heap_used=1775514624 minflt=1624 tminflt=1412 nivcsw=0 nvcsw=1 cpu_ns=17446444 rec_c", true)
	f.Add("hblkhd=4096 rss_bytes=7 dev=model", false)
	f.Add("minflt=-1 x=2 cpu_ns=1x\vminflt=4 ", true)
	f.Add("minflt=3\ttasks=", true)
	f.Fuzz(func(t *testing.T, raw string, capped bool) {
		pos := trace.Pos{File: "f.log", Line: 3}
		whole := []BindPass{{Segments: []Segment{{Name: trace.SegHostOrch, Attrs: raw, Capped: capped, Pos: pos}}}}
		reduced, rc := EvidenceAttrs(raw, capped)
		if rc && !capped {
			t.Fatalf("%q: capped without being capped", raw)
		}
		kept := []BindPass{{Segments: []Segment{{Name: trace.SegHostOrch, Attrs: reduced, Capped: rc, Pos: pos}}}}
		we, ww := Evidence(whole)
		ke, kw := Evidence(kept)
		if !reflect.DeepEqual(we, ke) || !reflect.DeepEqual(ww, kw) {
			t.Fatalf("%q (capped %v) reduced to %q (capped %v):\nwhole %+v %v\nkept  %+v %v", raw, capped, reduced, rc,
				we[0].Segments[trace.SegHostOrch], ww, ke[0].Segments[trace.SegHostOrch], kw)
		}
	})
}

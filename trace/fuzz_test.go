package trace

import (
	"bytes"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func FuzzReader(f *testing.F) {
	f.Add([]byte(rec(1, 1, "chip.run", "rank=0", 0, 100, 20) + rec(2, 2, "chip.run", "clk=dev rank=1", 0, 100, 20) + "\n"))
	f.Add([]byte(bare(1, 1, 1, "a%20b~", "k=%5Bv%5D", 1, 2) + "[STRACE] v=1 pid=1 tid=1 inv=1 hid=0 depth=0 name=cut\r\n"))
	f.Add([]byte("worker: " + anchorLine(41, 1000, 1700000000000000000) + " \t\r\n[stamp] x\n"))
	f.Add([]byte("[mono_ns=1][T0xab][TIMING] host_phase_trace_end: [f.cpp:1] bind phase=args start_ns=1 dur_ns=2 x=1\n" +
		"[mono_ns=1][T0xab][TIMING] host_phase_trace_end: [f.cpp:2] host-orch phase=record_node total_ns=5 count=1\n"))
	f.Add([]byte("[HOSTLOG_DROPS] v=1 pid=7 new=1 total=1 queue_full=1 claim_exhausted=0 output_failed=0 not_admitted=0"))
	f.Add([]byte(rec(1, 1, "a", "x", 0, 1, 2) + "[mono_ns=5][T0x9][INFO] A::b: [STRACE] v=1 [mono_ns=][T0x][X] f:\r"))
	f.Add([]byte("[mono_ns=1][T0xab][TIMING] f: [f.cpp:1] bind phase=args\tstart_ns=1  dur_ns=2 x=1\nbind phase=a start_ns=1\vdur_ns=3\n"))
	f.Add([]byte("[mono_ns=1][T0xab][TIMING] f: [f.cpp:1] bind phase=args start_ns=1  dur_ns=2 x=1[mono_ns=2][T0xcd][TIMING] f: [f.cpp:1] bind phase=args start_ns=3 dur_ns=4 \n" +
		"bind phase=host_orch start_ns=9223372036854775000 dur_ns=900 x=1 bind phase=host_orch start_ns=1 dur_ns=2\n"))
	f.Add(gzipHeaderOnly)
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader([]Source{ReaderSource("fuzz", bytes.NewReader(data))})
		spans, torn := 0, 0
		for r.Scan() {
			switch r.Kind() {
			case KindSpan:
				s := r.Span()
				if s == nil || s.Ts < 0 || s.Dur < 0 || s.Pid < 0 || s.Tid < 0 || s.Depth < 0 {
					t.Fatalf("bad span %+v", s)
				}
				if s.Hid == "" || strings.ToLower(s.Hid) != s.Hid {
					t.Fatalf("hid %q", s.Hid)
				}
				if string(trimSpaceBytes([]byte(s.Attrs))) != s.Attrs {
					t.Fatalf("attrs not stripped: %q", s.Attrs)
				}
				spans++
			case KindTorn:
				if r.Torn().Count < 1 {
					t.Fatalf("torn count %d", r.Torn().Count)
				}
				torn += r.Torn().Count
			case KindNone:
				t.Fatal("Scan true with KindNone")
			}
		}
		// Spans and heads agree with an independent count of heads.
		if heads := countHeads(data); heads >= 0 && spans+torn != heads {
			t.Fatalf("spans %d + torn %d != heads %d", spans, torn, countHeads(data))
		}
		// Bind-phase and host-orch lines are found whatever the span heads
		// on their line: the search that skips heads finds what a search
		// of the whole line finds.
		binds, orchs := 0, 0
		lines := bytes.Split(data, []byte{'\n'})
		if last := lines[len(lines)-1]; !bytes.HasSuffix(last, []byte{'\r'}) {
			// The unterminated last line yields no phase lines.
			lines = lines[:len(lines)-1]
		}
		for _, line := range lines {
			var ph, po phaseLine
			hb, ho, _ := findPhases(bytes.TrimSuffix(line, []byte{'\r'}), nil, true, true, false, &ph, &po)
			if hb {
				binds++
				// One space between the fields is hbg_bind_phases' form;
				// any whitespace run is strace_timing's.
				sep := `[\t\n\v\f\r ]+`
				if ph.single {
					sep = " "
				}
				re := regexp.MustCompile(`bind phase=` + regexp.QuoteMeta(string(ph.phase)) + sep + `start_ns=\d+` + sep + `dur_ns=\d+`)
				if !re.Match(line) {
					t.Fatalf("bind phase %q (single %v) does not match %s in %q", ph.phase, ph.single, re, line)
				}
			}
			if ho {
				orchs++
			}
			// hbg_bind_phases' reading: a single-spaced record when the
			// line has one, no later than strace_timing's when that one
			// is single-spaced, and the same host-orch record.
			var hph, hpo phaseLine
			hhb, hho, _ := findPhases(bytes.TrimSuffix(line, []byte{'\r'}), nil, true, true, true, &hph, &hpo)
			if hho != ho || ho && hpo.at != po.at {
				t.Fatalf("host-orch differs with hbg: %v at %d, %v at %d", ho, po.at, hho, hpo.at)
			}
			if hb && ph.single && (!hhb || hph.at != ph.at) {
				t.Fatalf("hbg reading differs from a single-spaced first record in %q", line)
			}
			if hhb && !hph.single && (!hb || hph.at != ph.at) {
				t.Fatalf("hbg reading falls back to a spaced record other than the first in %q", line)
			}
			if hhb && hph.single && !regexp.MustCompile(`bind phase=`+regexp.QuoteMeta(string(hph.phase))+` start_ns=\d+ dur_ns=\d+`).Match(line) {
				t.Fatalf("hbg bind phase %q does not match single spaces in %q", hph.phase, line)
			}
		}
		// Parsed in parallel, in small chunks, the records are the same.
		seq, sh, sp, serr := readAll(t, []Source{ReaderSource("fuzz", bytes.NewReader(data))}, ReadOptions{}, 0)
		par, ph, pp, perr := readAll(t, []Source{ReaderSource("fuzz", bytes.NewReader(data))}, ReadOptions{Workers: 3}, 37)
		if fmt.Sprint(serr) != fmt.Sprint(perr) || sh != ph || sp != pp || !reflect.DeepEqual(seq, par) {
			t.Fatalf("parallel reader differs: %d/%d records, heads %d/%d, parsed %d/%d, err %v/%v", len(seq), len(par), sh, ph, sp, pp, serr, perr)
		}
		if serr == nil && countHeads(data) >= 0 {
			gb, gorch := 0, 0
			for _, r := range seq {
				switch r.Kind {
				case KindBindPhase:
					gb++
				case KindHostOrch:
					gorch++
				}
			}
			if gb != binds || gorch != orchs {
				t.Fatalf("bind phases %d (whole-line search %d), host-orch %d (%d)", gb, binds, gorch, orchs)
			}
		}
		if r.Err() == nil {
			l, err := ReadLog([]Source{ReaderSource("fuzz", bytes.NewReader(data))})
			if err != nil {
				t.Fatalf("ReadLog: %v", err)
			}
			if l.Heads < len(l.Spans) || len(l.Spans) != spans {
				t.Fatalf("heads %d spans %d (reader %d)", l.Heads, len(l.Spans), spans)
			}
			_ = l.Warnings()
			passes := GroupPasses(l.BindPhases)
			AttachPasses(passes, l.Spans)
		}
	})
}

var gzipHeaderOnly = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}

// countHeads counts `[STRACE]<ws>v=<digit>` line by line, independently of
// the reader; -1 for gzip input.
func countHeads(data []byte) int {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		return -1 // gzip input: not counted here
	}
	n := 0
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		for i := 0; ; {
			k := bytes.Index(line[i:], tokStrace)
			if k < 0 {
				break
			}
			i += k
			j := i + len(tokStrace)
			sp := j
			for sp < len(line) && isSpaceByte(line[sp]) {
				sp++
			}
			if sp > j && sp+2 < len(line) && line[sp] == 'v' && line[sp+1] == '=' && isDigitByte(line[sp+2]) {
				n++
			}
			i = j
		}
	}
	return n
}

func FuzzParseAttrs(f *testing.F) {
	f.Add("k=v n=12 neg=-0 big=123456789012345678901234567890 p=%31 d=%5Bx%5D k=w")
	f.Add("noeq =x y= -=- %=% ==")
	f.Add("\t a=1\r\nb=%zz~ ")
	f.Add("d=%31%32 e=003 s=%207 p=+7 u=1_0 x=1__0 h=0x10 f=1.5 z=")
	f.Fuzz(func(t *testing.T, raw string) {
		attrs := ParseAttrs(raw)
		seen := make(map[string]bool)
		for _, a := range attrs {
			if seen[a.Key] {
				t.Fatalf("duplicate key %q", a.Key)
			}
			seen[a.Key] = true
			if strings.ContainsAny(a.Key, " \t\n\r\v\f=") {
				t.Fatalf("bad key %q", a.Key)
			}
			if a.IsInt {
				if a.Value == "" || a.Value == "-0" || (a.Value[0] == '0' && a.Value != "0") || (strings.HasPrefix(a.Value, "-0")) {
					t.Fatalf("non-canonical int %q", a.Value)
				}
			}
			// Int never panics; an integer attribute is its own value.
			if n, ok := a.Int(); a.IsInt && (!ok || n.String() != a.Value) {
				t.Fatalf("Int of integer %q: %v %v", a.Value, n, ok)
			}
			got, ok := attrs.Get(a.Key)
			if !ok || got != a {
				t.Fatalf("Get(%q) = %+v", a.Key, got)
			}
		}
		// The last occurrence of a key wins.
		for _, tok := range strings.Fields(raw) {
			if k, v, ok := strings.Cut(tok, "="); ok {
				last := v
				for _, tok2 := range strings.Fields(raw) {
					if k2, v2, ok2 := strings.Cut(tok2, "="); ok2 && k2 == k {
						last = v2
					}
				}
				a, _ := attrs.Get(k)
				if !a.IsInt && a.Value != Decode(last) {
					t.Fatalf("key %q: value %q, want %q", k, a.Value, Decode(last))
				}
			}
		}
		// Appended after other attributes (a reused slice), the same
		// attributes follow them: the earlier ones are neither replaced
		// nor replace any.
		prefix := Attrs{{Key: "k", Value: "before"}, {Key: "n", Value: "1", IsInt: true}}
		appended := AppendAttrs(slices.Clone(prefix), raw)
		if !slices.Equal(appended[:len(prefix)], prefix) || !slices.Equal(appended[len(prefix):], attrs) {
			t.Fatalf("AppendAttrs(%v, %q) = %v, want the prefix and %v", prefix, raw, appended, attrs)
		}
	})
}

// FuzzSpanHeadPaths checks the fast path of the span-head parse against
// the general one: where the canonical parse succeeds, the line holds a
// record head (isHeadAt) and the general parse succeeds too, giving the
// same head.
func FuzzSpanHeadPaths(f *testing.F) {
	f.Add([]byte("[STRACE] v=1 pid=1 tid=2 inv=3 hid=ab depth=0 name=chip.run ts=5 dur=6 x=1"))
	f.Add([]byte("[STRACE] v=1 pid=1 tid=2 inv=3 hid=AB depth=0 name=a%20b ts=5 dur=6[STRACE]"))
	f.Add([]byte("[STRACE] v=1 pid=1 tid=2 inv=3 hid=0 depth=0 name=a ts=999999999999999999 dur=999999999999999999"))
	f.Add([]byte("[STRACE] v=1 pid=1 tid=2 inv=3 hid=0 depth=0 name=a ts=9223372036854775807 dur=1"))
	f.Add([]byte("[STRACE] v=1  pid=1 tid=2 inv=3 hid=0 depth=0 name=a ts=1 dur=9e30"))
	f.Fuzz(func(t *testing.T, line []byte) {
		if !bytes.HasPrefix(line, tokStrace) {
			return
		}
		var fast, slow spanHead
		if !parseCanonicalHead(line, 0, &fast) {
			return
		}
		if !isHeadAt(line, 0) {
			t.Fatalf("canonical parse of %q succeeded on no record head", line)
		}
		if !parseAnyHead(line, 0, &slow) {
			t.Fatalf("canonical parse of %q succeeded, the general one failed: %s", line, slow.why)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q: canonical %+v, general %+v", line, fast, slow)
		}
	})
}

// FuzzIndexPhaseEq checks the '='-first search against bytes.Index.
func FuzzIndexPhaseEq(f *testing.F) {
	f.Add([]byte("[mono_ns=1][T0xa][TIMING] host_phase_trace_end: [host_phase_trace.cpp:393] bind phase=args"))
	f.Add([]byte("phase=phase="))
	f.Add([]byte("phas=e phase"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := indexPhaseEq(b), bytes.Index(b, tokPhaseEq); got != want {
			t.Fatalf("%q: %d, bytes.Index %d", b, got, want)
		}
	})
}

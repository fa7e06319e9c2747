package trace

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rec is the reference test suite's _record fixture: a full envelope and a
// [STRACE] record, no newline.
func rec(pid int, inv uint64, name, attrs string, depth int, ts, dur int64) string {
	return fmt.Sprintf("[mono_ns=%d][T0x%d][TIMING] emit_host_span: [STRACE] v=1 pid=%d tid=%d inv=%d hid=abc depth=%d name=%s ts=%d dur=%d %s",
		1000000+pid, pid, pid, pid, inv, depth, name, ts, dur, attrs)
}

// bare is a [STRACE] record without envelope, newline-terminated.
func bare(pid, tid int, inv uint64, name, attrs string, ts, dur int64) string {
	return fmt.Sprintf("[STRACE] v=1 pid=%d tid=%d inv=%d hid=abc depth=0 name=%s ts=%d dur=%d %s\n", pid, tid, inv, name, ts, dur, attrs)
}

func anchorLine(pid int, mono, wall int64) string {
	return fmt.Sprintf("[mono_ns=%d][T0x%x][TIMING] clock_anchor: [CLOCK_ANCHOR] v=1 pid=%d mono_ns=%d wall_ns=%d", mono+350, pid, pid, mono, wall)
}

func readText(t *testing.T, text string) *Log {
	t.Helper()
	l, err := ReadLog([]Source{ReaderSource("test.log", strings.NewReader(text))})
	require.NoError(t, err)
	return l
}

func attrsOf(spans []Span) []string {
	out := []string{}
	for _, s := range spans {
		out = append(out, s.Attrs)
	}
	return out
}

func TestReadLogSpans(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		attrs []string // attrs of the spans, in order
		heads int
		check func(t *testing.T, l *Log)
	}{
		{
			name:  "two enveloped records on one line",
			text:  rec(1, 1, "chip.run", "rank=0", 0, 100, 20) + rec(2, 2, "chip.run.runner_run.device_wall", "clk=dev rank=1", 0, 100, 20) + "\n",
			attrs: []string{"rank=0", "clk=dev rank=1"},
			heads: 2,
			check: func(t *testing.T, l *Log) {
				assert.Equal(t, "1", l.Spans[0].Thread)
				assert.Equal(t, "2", l.Spans[1].Thread)
				assert.False(t, l.Spans[0].IsDevice())
				assert.True(t, l.Spans[1].IsDevice())
			},
		},
		{
			name: "no newline between records, last line unterminated",
			text: rec(1, 1, "chip.run", "rank=0", 0, 100, 20) + rec(2, 2, "chip.run", "rank=1", 0, 100, 20),
			// The next record's envelope bounds the first; the last
			// one may be cut, so it is torn.
			attrs: []string{"rank=0"},
			heads: 2,
		},
		{
			name:  "multi-line blob",
			text:  rec(1, 1, "chip.run", "rank=0", 0, 100, 20) + "\nnoise in between\n" + rec(2, 2, "chip.run", "rank=1", 0, 100, 20) + "\n",
			attrs: []string{"rank=0", "rank=1"},
			heads: 2,
		},
		{
			name:  "attrs stop at a bare [STRACE]",
			text:  strings.TrimSuffix(bare(1, 1, 1, "a", "x=1", 1, 2), "\n") + bare(2, 2, 2, "b", "y=2", 3, 4),
			attrs: []string{"x=1", "y=2"},
			heads: 2,
			check: func(t *testing.T, l *Log) {
				assert.Equal(t, "", l.Spans[0].Thread)
				assert.Equal(t, "", l.Spans[1].Thread)
			},
		},
		{
			name:  "a :: func record is no boundary",
			text:  rec(1, 1, "chip.run", "rank=0", 0, 100, 20) + "[mono_ns=5][T0x9][INFO] Foo::bar: [x.cpp:1] hello world\n",
			attrs: []string{"rank=0[mono_ns=5][T0x9][INFO] Foo::bar: [x.cpp:1] hello world"},
			heads: 1,
		},
		{
			name:  "attrs stop at an INFO record of a plain func",
			text:  rec(1, 1, "chip.run", "rank=0 ", 0, 100, 20) + "[mono_ns=5][T0x9][INFO] run: [x.cpp:1] hello\n",
			attrs: []string{"rank=0"},
			heads: 1,
		},
		{
			name:  "a prefix whose func ends the line still bounds",
			text:  rec(1, 1, "chip.run", "rank=0", 0, 100, 20) + "[mono_ns=5][T0x9][INFO] run:\n",
			attrs: []string{"rank=0"},
			heads: 1,
		},
		{
			name:  "a prefix at the unterminated end of input does not bound",
			text:  rec(1, 1, "chip.run", "rank=0", 0, 100, 20) + "[mono_ns=5][T0x9][INFO] run:",
			attrs: nil, // the record runs to the unterminated end: torn
			heads: 1,
		},
		{
			name:  "prefix needs an uppercase level",
			text:  rec(1, 1, "chip.run", "rank=0", 0, 100, 20) + "[mono_ns=5][T0x9][info] run: x\n",
			attrs: []string{"rank=0[mono_ns=5][T0x9][info] run: x"},
			heads: 1,
		},
		{
			name:  "empty attributes with the trailing space",
			text:  bare(1, 1, 1, "chip.run", "", 1, 2),
			attrs: []string{""},
			heads: 1,
		},
		{
			name:  "64-bit inv preserved",
			text:  bare(1, 1, 1<<32+7, "chip.run", "", 1, 2) + bare(1, 1, 1<<64-1, "chip.run", "", 1, 2),
			attrs: []string{"", ""},
			heads: 2,
			check: func(t *testing.T, l *Log) {
				assert.Equal(t, uint64(4294967303), l.Spans[0].Inv)
				assert.Equal(t, uint64(18446744073709551615), l.Spans[1].Inv)
			},
		},
		{
			name:  "inv beyond 64 bits is torn",
			text:  "[STRACE] v=1 pid=1 tid=1 inv=18446744073709551616 hid=0 depth=0 name=a ts=1 dur=2 \n",
			heads: 1,
		},
		{
			name:  "pid beyond int64 is torn",
			text:  "[STRACE] v=1 pid=9223372036854775808 tid=1 inv=1 hid=0 depth=0 name=a ts=1 dur=2 \n",
			heads: 1,
		},
		{
			name:  "negative ts is torn",
			text:  bare(1, 1, 1, "a", "", -100, 10),
			heads: 1,
		},
		{
			name:  "negative dur is torn",
			text:  bare(1, 1, 1, "a", "", 100, -10),
			heads: 1,
		},
		{
			name:  "record cut before ts is a head, not a span",
			text:  bare(71, 710, 1, "chip.run", "", 5, 6) + "[STRACE] v=1 pid=71 tid=710 inv=1 hid=abc depth=0 name=chip.run\n",
			attrs: []string{""},
			heads: 2,
		},
		{
			name:  "a [STRACE] without v= is no head",
			text:  "[STRACE] hello\n[STRACE]v=1\n[STRACE] v=x\n",
			heads: 0,
		},
		{
			name: "percent-decoded names",
			text: bare(1, 1, 1, "host.odd%20name", "reason=submit%20failed%3A%20%5Bfatal%5D", 1, 2) +
				bare(1, 1, 1, "n%C3%A9", "", 1, 2) + bare(1, 1, 1, "bad%zz", "", 1, 2) + bare(1, 1, 1, "cut~", "", 1, 2),
			attrs: []string{"reason=submit%20failed%3A%20%5Bfatal%5D", "", "", ""},
			heads: 4,
			check: func(t *testing.T, l *Log) {
				assert.Equal(t, "host.odd name", l.Spans[0].Name)
				assert.Equal(t, "n\u00c3\u00a9", l.Spans[1].Name)
				assert.Equal(t, 3, len([]rune(l.Spans[1].Name)))
				assert.Equal(t, "bad%zz", l.Spans[2].Name)
				assert.Equal(t, "cut~", l.Spans[3].Name)
			},
		},
		{
			name:  "hid lowercased, fields separated by any whitespace",
			text:  "junk [STRACE]\tv=1  pid=7 tid=8\tinv=9 hid=ABCdef depth=2 name=x ts=10 dur=20\t a=1 \t\n",
			attrs: []string{"a=1"},
			heads: 1,
			check: func(t *testing.T, l *Log) {
				s := l.Spans[0]
				assert.Equal(t, Span{Pid: 7, Tid: 8, Inv: 9, Hid: "abcdef", Depth: 2, Name: "x", Ts: 10, Dur: 20, Attrs: "a=1", Pos: Pos{File: "test.log", Line: 1}}, s)
			},
		},
		{
			name:  "CRLF line endings",
			text:  strings.ReplaceAll(bare(1, 1, 1, "a", "k=v", 1, 2)+bare(1, 1, 2, "b", "", 1, 2), "\n", "\r\n"),
			attrs: []string{"k=v", ""},
			heads: 2,
		},
		{
			name:  "a lone CR is an ordinary byte",
			text:  bare(1, 1, 1, "a", "k=v\rj=w", 1, 2),
			attrs: []string{"k=v\rj=w"},
			heads: 1,
		},
		{
			name:  "digits glued to attrs are not an integer dur",
			text:  "[STRACE] v=1 pid=1 tid=1 inv=1 hid=0 depth=0 name=a ts=1 dur=2x=3\n",
			attrs: nil,
			heads: 1,
		},
		{
			name:  "torn head then a full record on one line",
			text:  "[STRACE] v=1 pid=1 tid=1 " + rec(2, 2, "chip.run", "rank=1", 0, 1, 2) + "\n",
			attrs: []string{"rank=1"},
			heads: 2,
			check: func(t *testing.T, l *Log) { assert.Equal(t, "2", l.Spans[0].Thread) },
		},
		{
			name:  "invalid UTF-8 kept as bytes",
			text:  bare(1, 1, 1, "a\xff", "k=\xfe", 1, 2),
			attrs: []string{"k=\xfe"},
			heads: 1,
			check: func(t *testing.T, l *Log) { assert.Equal(t, "a\xff", l.Spans[0].Name) },
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := readText(t, tc.text)
			want := tc.attrs
			if want == nil {
				want = []string{}
			}
			assert.Equal(t, want, attrsOf(l.Spans))
			assert.Equal(t, tc.heads, l.Heads)
			if tc.check != nil && len(l.Spans) == len(tc.attrs) {
				tc.check(t, l)
			}
		})
	}
}

func TestReaderTornRecords(t *testing.T) {
	text := bare(1, 1, 1, "a", "", 1, 2) +
		"[STRACE] v=1 pid=1 [STRACE] v=2 pid=1 tid=1 inv=1 hid=0 depth=0 name=b ts=1 dur=2 x\n" +
		"[STRACE] v=1 [STRACE] v=1\n"
	r := NewReader([]Source{ReaderSource("t.log", strings.NewReader(text))})
	var kinds []Kind
	var torn []Torn
	for r.Scan() {
		kinds = append(kinds, r.Kind())
		if tr := r.Torn(); tr != nil {
			torn = append(torn, *tr)
			assert.Nil(t, r.Span())
		}
	}
	require.NoError(t, r.Err())
	assert.Equal(t, []Kind{KindSpan, KindSpan, KindTorn, KindTorn}, kinds)
	assert.Equal(t, []Torn{{Pos: Pos{"t.log", 2}, Count: 1, Reason: "missing tid="}, {Pos: Pos{"t.log", 3}, Count: 2, Reason: "missing pid="}}, torn)
	assert.Equal(t, KindNone, r.Kind())
	assert.False(t, r.Scan())
}

func TestReaderAccessorsByKind(t *testing.T) {
	text := "[stamp] abc cmd\n" + anchorLine(7, 10, 20) + "\n" + bare(7, 7, 1, "a", "", 1, 2) +
		"[mono_ns=1][T0xab][TIMING] host_phase_trace_end: [f.cpp:1] bind phase=args start_ns=1 dur_ns=2 x=1\n" +
		"[mono_ns=1][T0xab][TIMING] host_phase_trace_end: [f.cpp:2] host-orch phase=record_node total_ns=5 count=1\n" +
		"[HOSTLOG_DROPS] v=1 pid=7 new=1 total=1 queue_full=1 claim_exhausted=0 output_failed=0 not_admitted=0\n"
	r := NewReader([]Source{ReaderSource("t.log", strings.NewReader(text))})
	var got []string
	for r.Scan() {
		var parts []string
		for _, x := range []any{r.Span(), r.Anchor(), r.BindPhase(), r.HostOrch(), r.Stamp(), r.Drops(), r.Torn()} {
			if !isNilPtr(x) {
				parts = append(parts, fmt.Sprintf("%T", x))
			}
		}
		got = append(got, r.Kind().String()+"="+strings.Join(parts, ","))
	}
	require.NoError(t, r.Err())
	assert.Equal(t, []string{
		"stamp=*trace.Stamp", "anchor=*trace.Anchor", "span=*trace.Span", "bind-phase=*trace.BindPhase",
		"host-orch=*trace.HostOrchPhase", "drops=*trace.Drops",
	}, got)
	assert.Equal(t, "Kind(42)", Kind(42).String())
}

func isNilPtr(x any) bool {
	switch p := x.(type) {
	case *Span:
		return p == nil
	case *Anchor:
		return p == nil
	case *BindPhase:
		return p == nil
	case *HostOrchPhase:
		return p == nil
	case *Stamp:
		return p == nil
	case *Drops:
		return p == nil
	case *Torn:
		return p == nil
	}
	return true
}

func TestReadLogAnchors(t *testing.T) {
	good := anchorLine(41, 1000, 1700000000000000000)
	tests := []struct {
		name string
		text string
		want []Anchor
	}{
		{"plain", good + "\n", []Anchor{{41, 1000, 1700000000000000000, Pos{"test.log", 1}}}},
		{"preceded by text", "worker-3: " + good + "\n", []Anchor{{41, 1000, 1700000000000000000, Pos{"test.log", 1}}}},
		{"trailing spaces and tabs", good + " \t \n", []Anchor{{41, 1000, 1700000000000000000, Pos{"test.log", 1}}}},
		{"CRLF", good + "\r\n", []Anchor{{41, 1000, 1700000000000000000, Pos{"test.log", 1}}}},
		{"unterminated last line: wall_ns may be cut", good, nil},
		{"v written 01", strings.Replace(good, "v=1", "v=01", 1) + "\n", []Anchor{{41, 1000, 1700000000000000000, Pos{"test.log", 1}}}},
		{"bare payload", "[CLOCK_ANCHOR] v=1 pid=41 mono_ns=1000 wall_ns=1700000000000000000\n", nil},
		{"inside an INFO record", "[mono_ns=1][T0x1][INFO] message: [CLOCK_ANCHOR] v=1 pid=41 mono_ns=1000 wall_ns=1700000000000000000\n", nil},
		{"trailing text", good + " trailing\n", nil},
		{"v=2", strings.Replace(good, "v=1", "v=2", 1) + "\n", nil},
		{"missing mono_ns envelope", strings.Replace(good, "[mono_ns=1350]", "", 1) + "\n", nil},
		{"wall beyond int64", strings.Replace(good, "wall_ns=1700000000000000000", "wall_ns=99999999999999999999", 1) + "\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := readText(t, tc.text)
			assert.Equal(t, tc.want, l.Anchors)
		})
	}
}

func TestWarningsAndAnchorFor(t *testing.T) {
	text := anchorLine(71, 50, 1700000000000000000) + "\n" +
		anchorLine(9, 10, 1) + "\n" + anchorLine(9, 20, 2) + "\n" + anchorLine(9, 30, 3) + "\n" +
		anchorLine(71, 75, 1700000000000000025) + "\n" +
		bare(71, 1, 1, "a", "", 1, 2) + "[STRACE] v=1 pid=71\n" +
		"[mono_ns=1000][T0xabc][ERROR] host_log_drops: [HOSTLOG_DROPS] v=1 pid=72 new=1 total=1 queue_full=0 claim_exhausted=0 output_failed=1 not_admitted=0\n" +
		"[HOSTLOG_DROPS] v=1 pid=71 new=2 total=2 queue_full=2 claim_exhausted=0 output_failed=0 not_admitted=0\n" +
		"[HOSTLOG_DROPS] v=1 pid=71 new=3 total=5 queue_full=5 claim_exhausted=0 output_failed=0 not_admitted=0\n" +
		"[HOSTLOG_DROPS] v=1 pid=71 new=0 total=3 queue_full=3 claim_exhausted=0 output_failed=0 not_admitted=0\n" +
		"[HOSTLOG_DROPS] v=2 pid=71 new=9 total=9 queue_full=9 claim_exhausted=0 output_failed=0 not_admitted=0\n" +
		"[HOSTLOG_DROPS] v=1 pid=73 new=0 total=0 queue_full=0 claim_exhausted=0 output_failed=0 not_admitted=0\n"
	l := readText(t, text)
	assert.Equal(t, []string{
		"warning: multiple [CLOCK_ANCHOR] records found for pid 9 (3 records); using the last one",
		"warning: multiple [CLOCK_ANCHOR] records found for pid 71 (2 records); using the last one",
		"warning: 1 of 2 [STRACE] records are incomplete and are excluded from the timing below",
		"warning: pid 71 dropped 5 host-log record(s) before they reached the destination (queue_full=5 claim_exhausted=0 output_failed=0 not_admitted=0); the timing below is computed from an incomplete log",
		"warning: pid 72 dropped 1 host-log record(s) before they reached the destination (queue_full=0 claim_exhausted=0 output_failed=1 not_admitted=0); the timing below is computed from an incomplete log",
		"warning: pid 73 dropped 0 host-log record(s) before they reached the destination (queue_full=0 claim_exhausted=0 output_failed=0 not_admitted=0); the timing below is computed from an incomplete log",
	}, l.Warnings())
	a, ok := l.AnchorFor(71)
	require.True(t, ok)
	assert.Equal(t, int64(75), a.MonoNs)
	_, ok = l.AnchorFor(5)
	assert.False(t, ok)
	require.Len(t, l.Drops, 3)
	assert.Equal(t, Drops{Pid: 71, New: 3, Total: 5, QueueFull: 5, Pos: Pos{"test.log", 10}}, l.Drops[0])

	assert.Empty(t, readText(t, bare(1, 1, 1, "a", "", 1, 2)).Warnings())
}

func TestDropsTiesKeepTheLater(t *testing.T) {
	l := readText(t, "[HOSTLOG_DROPS] v=1 pid=7 new=4 total=4 queue_full=4 claim_exhausted=0 output_failed=0 not_admitted=0\n"+
		"x [HOSTLOG_DROPS] v=1 pid=7 new=0 total=4 queue_full=1 claim_exhausted=3 output_failed=0 not_admitted=0 y\n")
	require.Len(t, l.Drops, 1)
	assert.Equal(t, int64(3), l.Drops[0].ClaimExhausted)
	assert.Equal(t, 2, l.Drops[0].Pos.Line)
}

func TestWallTime(t *testing.T) {
	a := Anchor{Pid: 41, MonoNs: 1000, WallNs: 1700000000000000000}
	tests := []struct {
		name string
		t    int64
		ns   string
		text string
		ok   bool
	}{
		{"after the anchor", 1250, "1700000000000000250", "2023-11-14T22:13:20.000000250Z", true},
		{"at the anchor", 1000, "1700000000000000000", "2023-11-14T22:13:20.000000000Z", true},
		{"before the anchor", 999, "", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ns, text, ok := WallTime(a, tc.t)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.ns, ns)
			assert.Equal(t, tc.text, text)
		})
	}
	_, text, ok := WallTime(Anchor{MonoNs: 0, WallNs: -1}, 0)
	require.True(t, ok)
	assert.Equal(t, "1969-12-31T23:59:59.999999999Z", text)

	// Past int64, as the reference's Python integers: no wrap-around to
	// 1969 (values from python3, datetime.fromtimestamp(divmod(ns, 1e9))).
	ns, text, ok := WallTime(Anchor{MonoNs: 0, WallNs: 9223372036854775000}, 1000)
	require.True(t, ok)
	assert.Equal(t, "9223372036854776000", ns)
	assert.Equal(t, "2262-04-11T23:47:16.854776000Z", text)
	ns, text, ok = WallTime(Anchor{MonoNs: 0, WallNs: math.MaxInt64}, math.MaxInt64)
	require.True(t, ok)
	assert.Equal(t, "18446744073709551614", ns)
	assert.Equal(t, "2554-07-21T23:34:33.709551614Z", text)
}

func TestReadLogStamp(t *testing.T) {
	tests := []struct {
		name string
		text string
		want *Stamp
	}{
		{"first of two", "noise\n[stamp] 6ebaf77 env A=1 python x.py\r\n[stamp] second\n", &Stamp{"6ebaf77 env A=1 python x.py", Pos{"test.log", 2}}},
		{"not at the start of the line", " [stamp] x\n", nil},
		{"no space after the tag", "[stamp]x\n", nil},
		{"empty text", "[stamp] \n", &Stamp{"", Pos{"test.log", 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, readText(t, tc.text).Stamp)
		})
	}
}

func TestReadLogBindPhases(t *testing.T) {
	env := "[mono_ns=16000][T0x7f00aa11c640][TIMING] host_phase_trace_end: [host_phase_trace.cpp:393] "
	tests := []struct {
		name string
		line string
		want []BindPhase
	}{
		{"enveloped", env + "bind phase=args start_ns=10000 dur_ns=500 ntensor=2 staged=2 bytes=8192 \r\n",
			[]BindPhase{{"args", 10000, 500, "ntensor=2 staged=2 bytes=8192", "7f00aa11c640", true, false, Pos{"test.log", 1}}}},
		{"empty attrs", env + "bind phase=gm_heap start_ns=1 dur_ns=2 \n",
			[]BindPhase{{"gm_heap", 1, 2, "", "7f00aa11c640", true, false, Pos{"test.log", 1}}}},
		{"E2 counters stay in attrs", env + "bind phase=host_orch start_ns=1 dur_ns=2 tasks=3 minflt=1 tminflt=0 nivcsw=0 nvcsw=1 cpu_ns=5 rec_cpu_ns=0\n",
			[]BindPhase{{"host_orch", 1, 2, "tasks=3 minflt=1 tminflt=0 nivcsw=0 nvcsw=1 cpu_ns=5 rec_cpu_ns=0", "7f00aa11c640", true, false, Pos{"test.log", 1}}}},
		{"INFO level is loose only", "[mono_ns=1][T0xab][INFO] host_phase_trace_end: [f.cpp:1] bind phase=relocate start_ns=1 dur_ns=2\n",
			[]BindPhase{{"relocate", 1, 2, "", "ab", false, false, Pos{"test.log", 1}}}},
		{"no file tag is loose only", "[mono_ns=1][T0xab][TIMING] host_phase_trace_end: bind phase=sm_h2d start_ns=1 dur_ns=2 no-file-tag\n",
			[]BindPhase{{"sm_h2d", 1, 2, "no-file-tag", "ab", false, false, Pos{"test.log", 1}}}},
		{"no envelope", "bind phase=args start_ns=1 dur_ns=2\n",
			[]BindPhase{{"args", 1, 2, "", "", false, false, Pos{"test.log", 1}}}},
		{"first match of the line", "bind phase=x start_ns=1 dur_ns=y bind phase=args start_ns=3 dur_ns=4 bind phase=gm_heap start_ns=5 dur_ns=6\n",
			[]BindPhase{{"args", 3, 4, "bind phase=gm_heap start_ns=5 dur_ns=6", "", false, false, Pos{"test.log", 1}}}},
		{"two spaces are spaced", "bind phase=args  start_ns=1 dur_ns=2\n",
			[]BindPhase{{"args", 1, 2, "", "", false, true, Pos{"test.log", 1}}}},
		{"a tab is spaced", env + "bind phase=args start_ns=1\tdur_ns=2 x=1\n",
			[]BindPhase{{"args", 1, 2, "x=1", "7f00aa11c640", true, true, Pos{"test.log", 1}}}},
		{"no space does not match", "bind phase=args start_ns=1dur_ns=2\n", nil},
		{"overflow does not match", "bind phase=args start_ns=99999999999999999999 dur_ns=2\n", nil},
		{"host-orch is not a bind phase", env + "host-orch phase=record_node total_ns=1 count=2\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, readText(t, tc.line).BindPhases)
		})
	}
}

// TestBindPhaseOfAGluedLine pins which record of a line holding two glued
// `bind phase=` records each reading takes: strace_timing's (the default)
// reads the first match, whose attributes take the rest of the line;
// hbg_bind_phases' (HBGBindPhases) passes over a match whose fields are not
// one space apart and reads a single-spaced one glued after it. A first
// match whose values do not hold leaves the line without a record, with
// the reason, in both: no later record stands in for it.
func TestBindPhaseOfAGluedLine(t *testing.T) {
	env := "[mono_ns=1][T0xab][TIMING] host_phase_trace_end: [f.cpp:1] "
	env2 := "[mono_ns=2][T0xcd][TIMING] host_phase_trace_end: [f.cpp:1] "
	type rec struct {
		Phase  string
		Start  int64
		Dur    int64
		Thread string
		Spaced bool
	}
	tests := []struct {
		name      string
		line      string
		strace    []rec
		hbg       []rec
		malformed string // the reason of both readings, when neither has a record
	}{
		{"glued after a tab", env + "bind phase=args start_ns=1\tdur_ns=2 x=1" + env2 + "bind phase=args start_ns=3 dur_ns=4 x=2\n",
			[]rec{{"args", 1, 2, "ab", true}}, []rec{{"args", 3, 4, "cd", false}}, ""},
		{"glued after two spaces", env + "bind phase=args  start_ns=1 dur_ns=2 " + env2 + "bind phase=host_orch start_ns=3 dur_ns=4\n",
			[]rec{{"args", 1, 2, "ab", true}}, []rec{{"host_orch", 3, 4, "cd", false}}, ""},
		{"only spaced records", env + "bind phase=args  start_ns=1 dur_ns=2 " + env2 + "bind phase=gm_heap\tstart_ns=3 dur_ns=4\n",
			[]rec{{"args", 1, 2, "ab", true}}, []rec{{"args", 1, 2, "ab", true}}, ""},
		{"single-spaced first", env + "bind phase=args start_ns=1 dur_ns=2 " + env2 + "bind phase=gm_heap start_ns=3 dur_ns=4\n",
			[]rec{{"args", 1, 2, "ab", false}}, []rec{{"args", 1, 2, "ab", false}}, ""},
		{"first end past int64", env + "bind phase=args start_ns=9223372036854775000 dur_ns=900 tasks=1" + env2 + "bind phase=args start_ns=3 dur_ns=4\n",
			nil, nil, "start_ns + dur_ns overflows int64"},
		{"first start past int64", env + "bind phase=args start_ns=99999999999999999999 dur_ns=9 tasks=1" + env2 + "bind phase=args start_ns=3 dur_ns=4\n",
			nil, nil, "start_ns overflows int64"},
		{"first dur runs into text", "bind phase=args start_ns=1 dur_ns=9e30 bind phase=args start_ns=3 dur_ns=4\n",
			nil, nil, "dur_ns is not an integer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, hbg := range []bool{false, true} {
				l, err := ReadLogOptions([]Source{ReaderSource("test.log", strings.NewReader(tc.line))}, ReadOptions{HBGBindPhases: hbg})
				require.NoError(t, err)
				var got []rec
				for _, b := range l.BindPhases {
					got = append(got, rec{b.Phase, b.StartNs, b.DurNs, b.Thread, b.Spaced})
				}
				want := tc.strace
				if hbg {
					want = tc.hbg
				}
				assert.Equal(t, want, got, "HBGBindPhases %v", hbg)
				if tc.malformed == "" {
					assert.Empty(t, l.Malformed, "HBGBindPhases %v", hbg)
					continue
				}
				if assert.Len(t, l.Malformed, 1, "HBGBindPhases %v", hbg) {
					assert.Equal(t, Malformed{Pos: Pos{"test.log", 1}, Kind: KindBindPhase, Reason: tc.malformed}, l.Malformed[0])
				}
			}
		})
	}
}

func TestReadLogHostOrch(t *testing.T) {
	l := readText(t, "[mono_ns=16005][T0x7f00aa11c640][TIMING] host_phase_trace_end: [host_phase_trace.cpp:402] host-orch phase=submit_task total_ns=900 count=3 detail_sum=12884901891 dropped=0 \n"+
		"host-orch phase= nothing\n")
	assert.Equal(t, []HostOrchPhase{{"submit_task", "total_ns=900 count=3 detail_sum=12884901891 dropped=0", "7f00aa11c640", Pos{"test.log", 1}}}, l.HostOrch)
	assert.Empty(t, l.BindPhases)
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, data, 0o644))
}

func gzipped(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, err := w.Write(data)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return b.Bytes()
}

func TestInputs(t *testing.T) {
	dir := t.TempDir()
	spool := filepath.Join(dir, "spool")
	require.NoError(t, os.MkdirAll(filepath.Join(spool, "host.9.log"), 0o755)) // a directory: ignored
	writeFile(t, filepath.Join(spool, "host.72.log"), []byte(bare(72, 72, 1, "chip.run", "", 1, 2)))
	writeFile(t, filepath.Join(spool, "host.71.log"), gzipped(t, []byte(bare(71, 71, 1, "chip.run", "", 1, 2))))
	writeFile(t, filepath.Join(spool, "pmu.csv"), []byte(bare(99, 99, 1, "chip.run", "", 1, 2)))
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.Mkdir(empty, 0o755))
	plain := filepath.Join(dir, "plain.txt") // gzip recognised by content, not name
	writeFile(t, plain, gzipped(t, []byte(bare(5, 5, 1, "chip.run", "", 1, 2))))
	full := []byte(strings.Repeat(bare(6, 6, 1, "chip.run", "pad=xxxxxxxxxxxxxxxxxxxxxxx", 1, 2), 2000))
	trunc := filepath.Join(dir, "x.log.gz")
	z := gzipped(t, full)
	writeFile(t, trunc, z[:len(z)/2])
	missing := filepath.Join(dir, "x.log")

	tests := []struct {
		name    string
		args    []string
		stdin   string
		pids    []int64
		sources []string
		err     string // from Inputs
		readErr string // from ReadLog
	}{
		{name: "directory expands to sorted host.*.log", args: []string{spool},
			pids: []int64{71, 72}, sources: []string{filepath.Join(spool, "host.71.log"), filepath.Join(spool, "host.72.log")}},
		{name: "stdin and a file in order", args: []string{"-", plain}, stdin: bare(3, 3, 1, "chip.run", "", 1, 2),
			pids: []int64{3, 5}, sources: []string{"-", plain}},
		{name: "gzip on stdin", args: []string{"-"}, stdin: string(gzipped(t, []byte(bare(4, 4, 1, "chip.run", "", 1, 2)))),
			pids: []int64{4}, sources: []string{"-"}},
		{name: "empty directory", args: []string{empty}, err: empty + " is a directory but holds no host.*.log or host.*.log.gz files"},
		{name: "no arguments", args: nil, err: "no input: name a log file, a directory of host.*.log files, or - for standard input"},
		{name: "missing file", args: []string{missing}, readErr: "reading " + missing + ": open " + missing + ": no such file or directory"},
		{name: "truncated gzip", args: []string{trunc}, readErr: "reading " + trunc + ": unexpected EOF"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srcs, err := Inputs(tc.args, strings.NewReader(tc.stdin))
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			l, err := ReadLog(srcs)
			if tc.readErr != "" {
				require.EqualError(t, err, tc.readErr)
				return
			}
			require.NoError(t, err)
			var pids []int64
			for _, s := range l.Spans {
				pids = append(pids, s.Pid)
			}
			assert.Equal(t, tc.pids, pids)
			assert.Equal(t, tc.sources, l.Sources)
		})
	}
}

func TestReaderPositionsAcrossSources(t *testing.T) {
	srcs := []Source{
		ReaderSource("a.log", strings.NewReader("x\n"+bare(1, 1, 1, "a", "", 1, 2)+"[STRACE] v=1 pid=1 tid=1 inv=1 hid=0 depth=0 name=cut")),
		ReaderSource("b.log", strings.NewReader(bare(2, 2, 1, "b", "k=v", 1, 2))),
	}
	l, err := ReadLog(srcs)
	require.NoError(t, err)
	require.Len(t, l.Spans, 2)
	assert.Equal(t, Pos{"a.log", 2}, l.Spans[0].Pos)
	// The unterminated last line of a.log does not run into b.log.
	assert.Equal(t, Pos{"b.log", 1}, l.Spans[1].Pos)
	assert.Equal(t, "k=v", l.Spans[1].Attrs)
	assert.Equal(t, 3, l.Heads)
}

func TestReaderLongLines(t *testing.T) {
	long := strings.Repeat("x", 10<<20)
	text := "[mono_ns=1][T0x1][INFO] dump: " + long + "\n" + bare(1, 1, 1, "a", "big="+long, 1, 2) + bare(1, 1, 2, "b", "", 1, 2)
	l := readText(t, text)
	require.Len(t, l.Spans, 2)
	assert.Equal(t, len("big=")+len(long), len(l.Spans[0].Attrs))
	assert.Equal(t, 3, l.Spans[1].Pos.Line)

	cfg := newReadConfig(ReadOptions{})
	cfg.maxLine = 1 << 20
	r := newReader([]Source{ReaderSource("big.log", strings.NewReader("ok\n"+strings.Repeat("y", 3<<20)+"\n"))}, cfg, 0)
	for r.Scan() {
	}
	assert.EqualError(t, r.Err(), "reading big.log: line 2 is longer than 1 MiB")
}

func TestReaderBinaryGarbage(t *testing.T) {
	var b []byte
	for i := 0; i < 1<<16; i++ {
		b = append(b, byte(i*7919>>3))
	}
	b = append(b, []byte("\x00[STRACE] v=1 pid=1 tid=1 inv=1 hid=0 depth=0 name=\xff\x00 ts=1 dur=2 \x00\x01\n")...)
	l, err := ReadLog([]Source{ReaderSource("bin", bytes.NewReader(b))})
	require.NoError(t, err)
	require.NotEmpty(t, l.Spans)
	last := l.Spans[len(l.Spans)-1]
	assert.Equal(t, "\xff\x00", last.Name)
	assert.Equal(t, "\x00\x01", last.Attrs)
}

type errReader struct{ n int }

func (e *errReader) Read(p []byte) (int, error) {
	if e.n == 0 {
		e.n++
		return copy(p, "[stamp] a\npartial"), nil
	}
	return 0, fmt.Errorf("disk on fire")
}

func TestReaderReadError(t *testing.T) {
	r := NewReader([]Source{ReaderSource("f.log", &errReader{})})
	n := 0
	for r.Scan() {
		n++
	}
	assert.Equal(t, 1, n)
	assert.EqualError(t, r.Err(), "reading f.log: disk on fire")
}

// TestReaderTornReasons pins the reason a torn record gives, one case per
// way a record fails: bad input gives a counted warning with its reason
// (issue 11 §2).
func TestReaderTornReasons(t *testing.T) {
	const head = "[STRACE] v=1 pid=1 tid=1 inv=1 hid=a depth=0 name=chip.run"
	tests := []struct {
		name, text, why string
	}{
		{"cut right after dur, no final newline", head + " ts=1 dur=44", "unterminated last line"},
		{"cut inside the attributes, no final newline", head + " ts=1 dur=44 tasks=4", "unterminated last line"},
		{"cut before ts", head + "\n", "cut before ts="},
		{"dur in exponent notation", head + " ts=1 dur=9e30 \n", "dur is not an integer"},
		{"dur with a fraction", head + " ts=1 dur=1.5 \n", "dur is not an integer"},
		{"negative dur", head + " ts=1 dur=-5 \n", "negative dur"},
		{"dur beyond int64", head + " ts=1 dur=99999999999999999999 \n", "dur overflows int64"},
		{"ts+dur beyond int64", head + " ts=100 dur=9223372036854775807 \n", "ts+dur overflows int64"},
		{"ts in exponent notation", head + " ts=9e30 dur=1 \n", "a field before dur= is not an integer"},
		{"pid not a number", "[STRACE] v=1 pid=x tid=1\n", "pid is not an integer"},
		{"inv beyond 64 bits", "[STRACE] v=1 pid=1 tid=1 inv=99999999999999999999 hid=a\n", "inv overflows 64 bits"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader([]Source{ReaderSource("t.log", strings.NewReader(tc.text))})
			var torn []Torn
			for r.Scan() {
				require.NotEqual(t, KindSpan, r.Kind(), "a torn record came back as a span")
				if tr := r.Torn(); tr != nil {
					torn = append(torn, *tr)
				}
			}
			require.NoError(t, r.Err())
			require.Len(t, torn, 1)
			assert.Equal(t, Torn{Pos: Pos{"t.log", 1}, Count: 1, Reason: tc.why}, torn[0])
		})
	}
	// The largest dur that fits with its ts is a span.
	l := readText(t, head+" ts=0 dur=9223372036854775807 \n")
	require.Len(t, l.Spans, 1)
	// A line ending in CR alone is terminated.
	l = readText(t, head+" ts=1 dur=44 \r")
	require.Len(t, l.Spans, 1)
}

// TestLogWarningsNameBadLines pins hbgkit's warnings for lines it will not
// read: each says how many, where and why (issue 11 §2).
func TestLogWarningsNameBadLines(t *testing.T) {
	const bindOK = "[mono_ns=1][T0xab][TIMING] host_phase_trace_end: [f.cpp:1] bind phase=args start_ns=1 dur_ns=2 x=1\n"
	tests := []struct {
		name, text string
		want       []string
	}{
		{
			name: "torn last line: count and reason",
			text: bare(1, 1, 1, "chip.run", "", 1, 2) + "[STRACE] v=1 pid=1 tid=1 inv=2 hid=a depth=0 name=chip.run ts=5 dur=44",
			want: []string{
				"warning: 1 of 2 [STRACE] records are incomplete and are excluded from the timing below",
				"warning: incomplete [STRACE] records: test.log:2 (unterminated last line)",
			},
		},
		{
			name: "reference-torn records keep the reference's single line",
			text: bare(1, 1, 1, "chip.run", "", 1, 2) + "[STRACE] v=1 pid=1 tid=1 inv=2 hid=a depth=0 name=chip.run ts=5 dur=-4 \n",
			want: []string{"warning: 1 of 2 [STRACE] records are incomplete and are excluded from the timing below"},
		},
		{
			name: "every record torn: the reasons are given",
			text: "[STRACE] v=1 pid=1 tid=1 inv=2 hid=a depth=0 name=chip.run ts=5 dur=-4 \n[STRACE] v=1 pid=1\n[STRACE] v=1 pid=1\n[STRACE] v=1 pid=1 tid=1 inv=2 hid=a depth=0 name=x ts=5 dur=9e30 \n",
			want: []string{
				"warning: 4 of 4 [STRACE] records are incomplete and are excluded from the timing below",
				"warning: incomplete [STRACE] records: test.log:1 (negative dur), test.log:2 (cut before tid=), test.log:3 (cut before tid=) and 1 more",
			},
		},
		{
			name: "malformed bind phase lines are counted",
			text: bindOK + strings.Replace(bindOK, "dur_ns=2", "dur_ns=9e30", 1) + strings.Replace(bindOK, "start_ns=1", "start_ns=x", 1) +
				strings.TrimSuffix(bindOK, "\n"),
			want: []string{"warning: 3 `bind phase=` line(s) did not parse and are left out: test.log:2 (dur_ns is not an integer), test.log:3 (start_ns is not an integer), test.log:4 (unterminated last line)"},
		},
		{
			name: "an unterminated anchor is left out",
			text: anchorLine(41, 1000, 17000),
			want: []string{"warning: 1 [CLOCK_ANCHOR] line(s) did not parse and are left out: test.log:1 (unterminated last line)"},
		},
		{
			name: "binary input",
			text: "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00>\x00\x01\x00\x00\x00",
			want: []string{"warning: test.log does not look like a text log (it holds binary data); nothing in it can be read as records"},
		},
		{
			name: "text with colour codes and UTF-8 is text",
			text: "\x1b[31mred\x1b[0m caf\xc3\xa9\n",
			want: nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, readText(t, tc.text).Warnings())
		})
	}
	// A bad bind line does not count when a good match follows it on the
	// line (the reference's search finds that one).
	l := readText(t, "bind phase=a start_ns=x dur_ns=1 bind phase=args start_ns=1 dur_ns=2\n")
	assert.Empty(t, l.Warnings())
	require.Len(t, l.BindPhases, 1)
}

// TestReaderProgressCountsBytes checks ReadOptions.Progress against the
// input's length, sequential and parallel, and that the lean path of
// SkipIfBindPhases still names binary input.
func TestReaderProgressCountsBytes(t *testing.T) {
	text := strings.Repeat(bare(1, 1, 1, "chip.run", "", 1, 2), 5000)
	for _, workers := range []int{0, 2} {
		var n atomic.Int64
		r := NewReaderOptions([]Source{ReaderSource("a", strings.NewReader(text)), ReaderSource("b", strings.NewReader(text))},
			ReadOptions{Workers: workers, Progress: &n})
		for r.Scan() {
		}
		require.NoError(t, r.Err())
		r.Close()
		assert.Equal(t, int64(2*len(text)), n.Load(), "workers %d", workers)
	}
	r := NewReaderOptions([]Source{ReaderSource("bin", strings.NewReader("\x00\x01\x02"))},
		ReadOptions{Kinds: Kinds(KindBindPhase, KindSpan), SkipIfBindPhases: Kinds(KindSpan)})
	for r.Scan() {
	}
	assert.Equal(t, []BinarySource{{Name: "bin"}}, r.Binary())
}

func TestNoAttrsLeavesTheKindsAttrsEmpty(t *testing.T) {
	text := rec(1, 1, "chip.run", "rank=0", 0, 100, 20) + "\n" +
		"[mono_ns=1][T0xab][TIMING] host_phase_trace_end: [f.cpp:1] bind phase=args start_ns=1 dur_ns=2 ntensor=9\n"
	for _, workers := range []int{0, 2} {
		r := NewReaderOptions([]Source{ReaderSource("a.log", strings.NewReader(text))},
			ReadOptions{NoAttrs: Kinds(KindBindPhase), Workers: workers})
		var spanAttrs, bindAttrs, phase string
		for r.Scan() {
			switch r.Kind() {
			case KindSpan:
				spanAttrs = r.Span().Attrs
			case KindBindPhase:
				bindAttrs, phase = r.BindPhase().Attrs, r.BindPhase().Phase
			}
		}
		require.NoError(t, r.Close())
		assert.Equal(t, "rank=0", spanAttrs, "spans keep theirs")
		assert.Equal(t, "args", phase)
		assert.Empty(t, bindAttrs)
	}
}

// TestInputsGzipMembersAndFIFOs: a host.N.log.gz in a spool directory is
// read (it was silently ignored, and a directory of only .gz files "held no
// host.*.log files"), a .gz twin of a host.N.log is skipped, and a FIFO
// named host.N.log, which blocked the whole read, is skipped with a warning.
func TestInputsGzipMembersAndFIFOs(t *testing.T) {
	spool := t.TempDir()
	writeFile(t, filepath.Join(spool, "host.1.log"), []byte(bare(1, 1, 1, "chip.run", "", 1, 2)))
	writeFile(t, filepath.Join(spool, "host.1.log.gz"), gzipped(t, []byte(bare(1, 1, 1, "chip.run", "", 1, 2))))
	writeFile(t, filepath.Join(spool, "host.2.log.gz"), gzipped(t, []byte(bare(2, 2, 1, "chip.run", "", 1, 2))))
	fifo := filepath.Join(spool, "host.3.log")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))

	srcs, warns, err := InputsWarn([]string{spool}, nil)
	require.NoError(t, err)
	var names []string
	for _, s := range srcs {
		names = append(names, s.Name)
	}
	assert.Equal(t, []string{filepath.Join(spool, "host.1.log"), filepath.Join(spool, "host.2.log.gz")}, names)
	assert.Equal(t, []string{
		"warning: skipping " + fifo + ": not a regular file (a FIFO)",
		"warning: skipping " + filepath.Join(spool, "host.1.log.gz") + ": host.1.log is beside it, the same log uncompressed",
	}, warns)
	l, err := ReadLog(srcs)
	require.NoError(t, err)
	require.Len(t, l.Spans, 2)
	assert.Equal(t, []int64{1, 2}, []int64{l.Spans[0].Pid, l.Spans[1].Pid})

	only := t.TempDir()
	writeFile(t, filepath.Join(only, "host.7.log.gz"), gzipped(t, []byte(bare(7, 7, 1, "chip.run", "", 1, 2))))
	srcs, err = Inputs([]string{only}, nil)
	require.NoError(t, err)
	require.Len(t, srcs, 1)
}

// TestMaxSpansBoundsWhatALogHolds: StreamLog stops at the record past
// ReadOptions.MaxSpans (spans and phase lines it keeps count; those a
// visitor takes do not), and a visitor's Err stops the read where it says.
func TestMaxSpansBoundsWhatALogHolds(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 5; i++ {
		fmt.Fprintf(&b, "[STRACE] v=1 pid=1 tid=1 inv=%d hid=a depth=0 name=chip.run ts=%d dur=1 \n", i, i)
		fmt.Fprintf(&b, "bind phase=args start_ns=%d dur_ns=1 \n", i)
	}
	src := func() []Source { return []Source{ReaderSource("b.log", strings.NewReader(b.String()))} }
	_, err := ReadLogOptions(src(), ReadOptions{MaxSpans: 7})
	var tm *TooManySpansError
	require.ErrorAs(t, err, &tm)
	assert.Equal(t, Pos{"b.log", 8}, tm.Pos)
	assert.Equal(t, "reading b.log: line 8: more than 7 spans and phase lines to hold in memory", err.Error())

	l, err := ReadLogOptions(src(), ReadOptions{MaxSpans: 10})
	require.NoError(t, err)
	assert.Len(t, l.Spans, 5)

	// Spans a visitor takes are not held; the bind phases still are.
	n := 0
	_, err = StreamLog(src(), ReadOptions{MaxSpans: 5}, Visitors{Span: func(*Span) { n++ }})
	require.NoError(t, err)
	assert.Equal(t, 5, n)

	stop := errors.New("enough")
	n = 0
	_, err = StreamLog(src(), ReadOptions{}, Visitors{Span: func(*Span) { n++ }, Err: func() error {
		if n == 2 {
			return stop
		}
		return nil
	}})
	assert.ErrorIs(t, err, stop)
	assert.Equal(t, 2, n)
}

// TestLongLineGrowsOnce: a line past the limit costs one buffer of the
// limit and the doublings up to lineDoublingUpTo, not every doubling up
// to the limit: a 200 MB line took every reader 200 MB before it was
// refused at 64 MiB. Here the limit is 32 MiB and the line 40 MiB: the
// read allocates under 60 MB (about 96 MB before).
func TestLongLineGrowsOnce(t *testing.T) {
	text := "ok\n" + strings.Repeat("y", 40<<20) + "\n"
	cfg := newReadConfig(ReadOptions{})
	cfg.maxLine = 32 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := newReader([]Source{ReaderSource("big.log", strings.NewReader(text))}, cfg, 0)
	for r.Scan() {
	}
	runtime.ReadMemStats(&after)
	r.Close()
	assert.EqualError(t, r.Err(), "reading big.log: line 2 is longer than 32 MiB")
	alloc := after.TotalAlloc - before.TotalAlloc
	assert.Less(t, alloc, uint64(60<<20), "the read allocated %d MB", alloc>>20)
}

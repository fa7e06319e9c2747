package runtimeharness

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hbgkit/hbgkit/trace"
)

// This file is a small, independent checker of the log grammar of
// docs/formats.md (the envelope, [STRACE], [CLOCK_ANCHOR], bind phase=,
// [stamp]) and of the structure of a harness log.
// It does not use package trace on purpose: the harness is checked against
// the spec, not against the parser.

const envelope = `^\[mono_ns=(\d+)\]\[T0x([1-9a-f][0-9a-f]*)\]\[TIMING\] `

var (
	stampRE  = regexp.MustCompile(`^\[stamp\] (\S.*)$`)
	anchorRE = regexp.MustCompile(envelope +
		`clock_anchor: \[CLOCK_ANCHOR\] v=1 pid=(\d+) mono_ns=(\d+) wall_ns=(\d+)$`)
	phaseRE = regexp.MustCompile(envelope +
		`host_phase_trace_end: \[host_phase_trace\.cpp:393\] bind phase=(\w+) start_ns=(\d+) dur_ns=(\d+) (.*)$`)
	orchRE = regexp.MustCompile(envelope +
		`host_phase_trace_end: \[host_phase_trace\.cpp:402\] host-orch phase=(\w+) total_ns=(\d+) count=(\d+) detail_sum=(\d+) dropped=(\d+)$`)
	spanRE = regexp.MustCompile(envelope +
		`emit_host_span: \[STRACE\] v=1 pid=(\d+) tid=(\d+) inv=(\d+) hid=([1-9a-f][0-9a-f]*|0) depth=(\d+) name=([^\s%\[\]=]+) ts=(\d+) dur=(\d+) (.*)$`)
	attrTokenRE = regexp.MustCompile(`^[a-z_]+=[^\s%\[\]]*$`)
)

// logLine is one parsed record: a segment line, a host-orch line or a span.
type logLine struct {
	no     int
	thread string
	mono   int64
	name   string
	// segment lines and spans
	start, dur int64
	attrs      string
	kv         map[string]string
	// host-orch lines
	total, count, dropped int64
	detailSum             uint64
	// spans
	pid, tid, depth int
	inv             uint64
	hid             string
}

// pass is the lines of one bind.
type pass struct {
	phases []logLine
	orch   []logLine
	spans  []logLine
}

func find(ls []logLine, name string) (logLine, bool) {
	for _, l := range ls {
		if l.name == name {
			return l, true
		}
	}
	return logLine{}, false
}

type parsedLog struct {
	stamp     string
	anchors   int
	anchorPid int
	passes    []pass
}

// wantLog is what the checker knows about the run.
type wantLog struct {
	pid, tid int  // 0: not checked
	anchor   bool // exactly one anchor, before the first record
	firstInv uint64
	binds    int // 0: not checked
}

func kvs(attrs string) map[string]string {
	m := map[string]string{}
	for _, tok := range strings.Fields(attrs) {
		if k, v, ok := strings.Cut(tok, "="); ok {
			m[k] = v
		}
	}
	return m
}

func num(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64) // the regexps admit digits only
	return n
}

// parseHarnessLog checks every line of text against the grammar and the
// structure of a harness log and returns its passes, or the first defect.
func parseHarnessLog(text string, w wantLog) (parsedLog, error) {
	var pl parsedLog
	if !strings.HasSuffix(text, "\n") {
		return pl, fmt.Errorf("log does not end with a newline")
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	m := stampRE.FindStringSubmatch(lines[0])
	if m == nil {
		return pl, fmt.Errorf("first line is not a [stamp]: %q", lines[0])
	}
	pl.stamp = m[1]

	cur := pass{}
	lastEnum := -1
	inv := w.firstInv
	lastMono := map[string]int64{}
	recordSeen := false
	for i, line := range lines[1:] {
		no := i + 2
		fail := func(f string, a ...any) (parsedLog, error) {
			return pl, fmt.Errorf("line %d: %s: %q", no, fmt.Sprintf(f, a...), line)
		}
		if m := anchorRE.FindStringSubmatch(line); m != nil {
			pl.anchors++
			pl.anchorPid = int(num(m[3]))
			switch {
			case recordSeen:
				return fail("[CLOCK_ANCHOR] after a record")
			case w.pid != 0 && pl.anchorPid != w.pid:
				return fail("anchor pid %d, want %d", pl.anchorPid, w.pid)
			case num(m[4]) > num(m[1]):
				return fail("anchor read after its emission")
			}
			continue
		}
		recordSeen = true
		var l logLine
		l.no = no
		switch {
		case phaseRE.MatchString(line):
			m := phaseRE.FindStringSubmatch(line)
			l.mono, l.thread, l.name = num(m[1]), m[2], m[3]
			l.start, l.dur, l.attrs = num(m[4]), num(m[5]), m[6]
			idx := slices.Index(trace.BindSegments(), l.name)
			switch {
			case idx < 0:
				return fail("unknown segment %q", l.name)
			case len(l.attrs) > 95:
				return fail("attributes over the 95-character cap")
			case len(cur.orch) > 0 || len(cur.spans) > 0:
				return fail("bind phase= after host-orch lines or spans")
			case idx <= lastEnum:
				return fail("%s out of enum order", l.name)
			}
			lastEnum = idx
			toks := strings.Fields(l.attrs)
			for j, tok := range toks {
				// A token cut by the cap is the runtime's text too.
				if !attrTokenRE.MatchString(tok) && !(len(l.attrs) == 95 && j == len(toks)-1) {
					return fail("attribute token %q", tok)
				}
			}
			l.kv = kvs(l.attrs)
			cur.phases = append(cur.phases, l)
		case orchRE.MatchString(line):
			m := orchRE.FindStringSubmatch(line)
			l.mono, l.thread, l.name = num(m[1]), m[2], m[3]
			l.total, l.count, l.dropped = num(m[4]), num(m[5]), num(m[7])
			l.detailSum, _ = strconv.ParseUint(m[6], 10, 64)
			idx := slices.Index(OrchNames[:], l.name)
			switch {
			case idx < 0:
				return fail("unknown orchestrator kind %q", l.name)
			case 12+idx <= lastEnum:
				return fail("%s out of enum order", l.name)
			case l.count == 0:
				return fail("a kind with count 0 is not written")
			case len(cur.phases) == 0 || len(cur.spans) > 0:
				return fail("host-orch line outside a pass's lines")
			}
			lastEnum = 12 + idx
			cur.orch = append(cur.orch, l)
		case spanRE.MatchString(line):
			m := spanRE.FindStringSubmatch(line)
			l.mono, l.thread = num(m[1]), m[2]
			l.pid, l.tid = int(num(m[3])), int(num(m[4]))
			l.inv, _ = strconv.ParseUint(m[5], 10, 64)
			l.hid, l.depth = m[6], int(num(m[7]))
			l.name, l.start, l.dur, l.attrs = m[8], num(m[9]), num(m[10]), m[11]
			depth, known := map[string]int{"chip.run.bind": 1, "chip.run.validate": 1, "chip.run": 0}[l.name]
			switch {
			case l.attrs != "":
				return fail("chip spans of a sim run carry no attributes")
			case w.pid != 0 && l.pid != w.pid:
				return fail("pid %d, want %d", l.pid, w.pid)
			case w.tid != 0 && l.tid != w.tid:
				return fail("tid %d, want %d", l.tid, w.tid)
			case l.inv != inv:
				return fail("inv %d, want %d", l.inv, inv)
			case len(cur.phases) == 0:
				return fail("span outside a pass")
			case !known:
				return fail("unexpected span %s", l.name)
			case l.depth != depth:
				return fail("depth %d of %s", l.depth, l.name)
			}
			cur.spans = append(cur.spans, l)
			if l.name == "chip.run" {
				if err := checkPass(cur); err != nil {
					return fail("%v", err)
				}
				pl.passes = append(pl.passes, cur)
				cur, lastEnum = pass{}, -1
				inv++
			}
		default:
			return fail("does not match the grammar")
		}
		if l.mono < lastMono[l.thread] {
			return fail("mono_ns went back on thread %s", l.thread)
		}
		lastMono[l.thread] = l.mono
	}
	switch {
	case len(cur.phases) > 0:
		return pl, fmt.Errorf("an unfinished pass at the end of the log")
	case w.anchor && pl.anchors != 1:
		return pl, fmt.Errorf("%d [CLOCK_ANCHOR] lines, want 1", pl.anchors)
	case w.binds > 0 && len(pl.passes) != w.binds:
		return pl, fmt.Errorf("%d passes, want %d", len(pl.passes), w.binds)
	}
	return pl, nil
}

// checkPass checks a finished pass: spans bind, validate, root in that
// order; every segment inside chip.run.bind and written by its thread; the
// root around both.
func checkPass(p pass) error {
	if len(p.spans) != 3 || p.spans[0].name != "chip.run.bind" || p.spans[1].name != "chip.run.validate" {
		return fmt.Errorf("want spans chip.run.bind, chip.run.validate, chip.run")
	}
	bind, val, root := p.spans[0], p.spans[1], p.spans[2]
	for _, s := range append(append([]logLine(nil), p.phases...), p.orch...) {
		if s.thread != bind.thread {
			return fmt.Errorf("%s written by another thread than chip.run.bind", s.name)
		}
	}
	for _, s := range p.phases {
		if s.start < bind.start || s.start+s.dur > bind.start+bind.dur {
			return fmt.Errorf("%s is not inside chip.run.bind", s.name)
		}
	}
	switch {
	case val.start < bind.start+bind.dur:
		return fmt.Errorf("chip.run.validate overlaps chip.run.bind")
	case root.start > bind.start || root.start+root.dur < val.start+val.dur:
		return fmt.Errorf("chip.run does not contain its children")
	case val.hid != bind.hid || root.hid != bind.hid:
		return fmt.Errorf("hid differs between the spans of one invocation")
	}
	return nil
}

// checkLog is parseHarnessLog for tests that expect a valid log.
func checkLog(t *testing.T, text string, w wantLog) parsedLog {
	t.Helper()
	pl, err := parseHarnessLog(text, w)
	require.NoError(t, err)
	return pl
}

// maskLog replaces what changes from run to run (times, counters, ids,
// host facts) so that the rest can be compared with a golden file.
func maskLog(text string) string {
	for _, r := range []struct{ re, to string }{
		// E2 counters are cut by the 95-character cap wherever the digits
		// end; TestE2CountersAreTheMeasuredOnes checks them instead.
		{`(?m)^(.*bind phase=.*?) minflt=.*$`, "${1} <counters>"},
		{`\b(mono_ns|start_ns|dur_ns|total_ns|wall_ns|ts|dur|pid|tid|minflt|tminflt|nivcsw|nvcsw|cpu_ns|rec_cpu_ns)=\d+`, "${1}=N"},
		{`\[T0x[0-9a-f]+\]`, "[T0xH]"},
		{`nproc=\d+ thp=\S+ glibc=\S+`, "nproc=N thp=M glibc=V"},
	} {
		text = regexp.MustCompile(r.re).ReplaceAllString(text, r.to)
	}
	return text
}

// TestLogCheckerCatchesDefects feeds the checker broken logs: a checker
// that accepts anything would make every test built on it vacuous.
func TestLogCheckerCatchesDefects(t *testing.T) {
	good := strings.Join([]string{
		"[stamp] hbgkit-harness x",
		"[mono_ns=10][T0xab][TIMING] clock_anchor: [CLOCK_ANCHOR] v=1 pid=7 mono_ns=9 wall_ns=100",
		"[mono_ns=20][T0xab][TIMING] host_phase_trace_end: [host_phase_trace.cpp:393] bind phase=args start_ns=11 dur_ns=2 bytes=8",
		"[mono_ns=21][T0xab][TIMING] host_phase_trace_end: [host_phase_trace.cpp:393] bind phase=gm_heap start_ns=13 dur_ns=1 ",
		"[mono_ns=22][T0xab][TIMING] host_phase_trace_end: [host_phase_trace.cpp:402] host-orch phase=submit_task total_ns=5 count=1 detail_sum=3 dropped=0",
		"[mono_ns=23][T0xab][TIMING] emit_host_span: [STRACE] v=1 pid=7 tid=7 inv=1 hid=abc depth=1 name=chip.run.bind ts=10 dur=10 ",
		"[mono_ns=24][T0xab][TIMING] emit_host_span: [STRACE] v=1 pid=7 tid=7 inv=1 hid=abc depth=1 name=chip.run.validate ts=21 dur=1 ",
		"[mono_ns=25][T0xab][TIMING] emit_host_span: [STRACE] v=1 pid=7 tid=7 inv=1 hid=abc depth=0 name=chip.run ts=10 dur=13 ",
	}, "\n") + "\n"
	w := wantLog{pid: 7, tid: 7, anchor: true, firstInv: 1, binds: 1}
	checkLog(t, good, w)

	two := func(s string) string {
		a := strings.Split(s, "\n")[1]
		return strings.Replace(s, a, a+"\n"+a, 1)
	}
	for _, tc := range []struct {
		name, from, to string
		mutate         func(string) string
	}{
		{name: "no stamp", from: "[stamp] ", to: "[stamp]"},
		{name: "enum order", from: "phase=gm_heap", to: "phase=args"},
		{name: "no trailing space", from: "dur=1 \n", to: "dur=1\n"},
		{name: "level", from: "[TIMING] emit", to: "[INFO] emit"},
		{name: "padded T0x", from: "[T0xab][TIMING] host", to: "[T0x0ab][TIMING] host"},
		{name: "inv", from: "inv=1 hid=abc depth=0", to: "inv=2 hid=abc depth=0"},
		{name: "depth", from: "depth=1 name=chip.run.validate", to: "depth=2 name=chip.run.validate"},
		{name: "segment outside bind", from: "start_ns=13 dur_ns=1", to: "start_ns=13 dur_ns=100"},
		{name: "attribute cap", from: "bytes=8", to: "bytes=8 " + strings.Repeat("x", 95)},
		{name: "count 0", from: "count=1", to: "count=0"},
		{name: "mono back", from: "[mono_ns=25]", to: "[mono_ns=2]"},
		{name: "two anchors", mutate: two},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var bad string
			if tc.mutate != nil {
				bad = tc.mutate(good)
			} else {
				require.Contains(t, good, tc.from)
				bad = strings.Replace(good, tc.from, tc.to, 1)
			}
			_, err := parseHarnessLog(bad, w)
			require.Error(t, err)
		})
	}
}

package runtimeharness

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// This file extends the independent grammar checker of logcheck_test.go to
// the span-only generations (docs/harness.md "Log generations"): E3
// (chip.run.bind.<segment> at depth 2 with the six counters, no
// [CLOCK_ANCHOR]) and PR-1870 (the simpler_run.bind.* set of
// docs/accounting.md "1. From any log to passes of canonical segments",
// with its depths and nesting).

var countersRE = regexp.MustCompile(`(^| )minflt=\d+ tminflt=\d+ nivcsw=\d+ nvcsw=\d+ cpu_ns=\d+ rec_cpu_ns=\d+$`)

// spanPass is the spans of one invocation, in log order.
type spanPass struct {
	spans []logLine
}

func (p spanPass) named(name string) []logLine {
	var out []logLine
	for _, s := range p.spans {
		if s.name == name {
			out = append(out, s)
		}
	}
	return out
}

func inside(in, out logLine) bool {
	return in.start >= out.start && in.start+in.dur <= out.start+out.dur
}

// e3Depth and pr1870Depth give the depth each span name may have.
var (
	e3Depth = map[string][]int{
		"chip.run": {0}, "chip.run.bind": {1}, "chip.run.validate": {1},
		"chip.run.bind.h2d_graph": {2, 3},
	}
	e3Segments  = []string{"args", "arena_build", "static_arena", "gm_heap", "runtime_init", "host_orch", "graph_pack", "shared_mem", "arena_h2d", "host_view_close"}
	pr1870Depth = map[string][]int{
		"simpler_run": {0}, "simpler_run.bind": {1}, "simpler_run.validate": {1},
		"simpler_run.bind.args": {2}, "simpler_run.bind.prebuilt": {2}, "simpler_run.bind.orch_h2d_pipe": {2},
		"simpler_run.bind.host_orch": {3}, "simpler_run.bind.host_orch.setup": {4},
		"simpler_run.bind.host_orch.entry": {4}, "simpler_run.bind.h2d_graph": {3, 4, 5},
		"simpler_run.bind.relocate": {2}, "simpler_run.bind.h2d_sm": {2}, "simpler_run.bind.h2d_arena": {2},
	}
)

func init() {
	for _, s := range e3Segments {
		e3Depth["chip.run.bind."+s] = []int{2}
	}
}

// parseSpanLog checks a span-only log (epoch e3 or pr1870) line by line and
// pass by pass, and returns its passes.
func parseSpanLog(text string, epoch Epoch, w wantLog) ([]spanPass, error) {
	if !strings.HasSuffix(text, "\n") {
		return nil, fmt.Errorf("log does not end with a newline")
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if !stampRE.MatchString(lines[0]) {
		return nil, fmt.Errorf("first line is not a [stamp]: %q", lines[0])
	}
	depths, root := e3Depth, "chip.run"
	if epoch == EpochPR1870 {
		depths, root = pr1870Depth, "simpler_run"
	}
	var passes []spanPass
	var cur spanPass
	inv := w.firstInv
	anchors := 0
	lastMono := map[string]int64{}
	for i, line := range lines[1:] {
		no := i + 2
		fail := func(f string, a ...any) ([]spanPass, error) {
			return nil, fmt.Errorf("line %d: %s: %q", no, fmt.Sprintf(f, a...), line)
		}
		if anchorRE.MatchString(line) {
			anchors++
			if epoch == EpochE3 {
				return fail("e3 has no [CLOCK_ANCHOR]")
			}
			continue
		}
		m := spanRE.FindStringSubmatch(line)
		if m == nil {
			return fail("does not match the [STRACE] grammar")
		}
		l := logLine{no: no, mono: num(m[1]), thread: m[2], pid: int(num(m[3])), tid: int(num(m[4])),
			hid: m[6], depth: int(num(m[7])), name: m[8], start: num(m[9]), dur: num(m[10]), attrs: m[11]}
		l.inv, _ = strconv.ParseUint(m[5], 10, 64)
		l.kv = kvs(l.attrs)
		allowed, known := depths[l.name]
		switch {
		case !known:
			return fail("span %s is not of the %s set", l.name, epoch)
		case !containsInt(allowed, l.depth):
			return fail("depth %d of %s", l.depth, l.name)
		case len(l.name) > 64 || len(l.attrs) > 192:
			return fail("over the name or attribute cap")
		case l.inv != inv:
			return fail("inv %d, want %d", l.inv, inv)
		case w.pid != 0 && l.pid != w.pid:
			return fail("pid %d, want %d", l.pid, w.pid)
		case w.tid != 0 && l.tid != w.tid:
			return fail("tid %d, want %d", l.tid, w.tid)
		case l.mono < lastMono[l.thread]:
			return fail("mono_ns went back")
		}
		for _, tok := range strings.Fields(l.attrs) {
			if !attrTokenRE.MatchString(tok) {
				return fail("attribute token %q", tok)
			}
		}
		if epoch == EpochE3 && l.depth == 2 && !countersRE.MatchString(l.attrs) {
			return fail("an e3 segment without the six counters in order")
		}
		lastMono[l.thread] = l.mono
		cur.spans = append(cur.spans, l)
		if l.name == root {
			if err := checkSpanPass(cur, epoch); err != nil {
				return fail("%v", err)
			}
			passes = append(passes, cur)
			cur = spanPass{}
			inv++
		}
	}
	switch {
	case len(cur.spans) > 0:
		return nil, fmt.Errorf("an unfinished pass at the end of the log")
	case w.anchor && anchors != 1:
		return nil, fmt.Errorf("%d [CLOCK_ANCHOR] lines, want 1", anchors)
	case w.binds > 0 && len(passes) != w.binds:
		return nil, fmt.Errorf("%d passes, want %d", len(passes), w.binds)
	}
	return passes, nil
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// checkSpanPass checks the nesting of one invocation's spans.
func checkSpanPass(p spanPass, epoch Epoch) error {
	one := func(name string) (logLine, error) {
		s := p.named(name)
		if len(s) != 1 {
			return logLine{}, fmt.Errorf("%d %s spans, want 1", len(s), name)
		}
		return s[0], nil
	}
	root := "chip.run"
	if epoch == EpochPR1870 {
		root = "simpler_run"
	}
	bind, err := one(root + ".bind")
	if err != nil {
		return err
	}
	rs, err := one(root)
	if err != nil {
		return err
	}
	orch, err := one(root + ".bind.host_orch")
	if err != nil {
		return err
	}
	for _, s := range p.spans {
		if s.depth >= 2 && !inside(s, bind) {
			return fmt.Errorf("%s is not inside %s.bind", s.name, root)
		}
		if !inside(s, rs) {
			return fmt.Errorf("%s is not inside %s", s.name, root)
		}
	}
	if epoch == EpochE3 {
		for _, s := range p.named("chip.run.bind.h2d_graph") {
			if s.depth == 3 && !inside(s, orch) {
				return fmt.Errorf("a depth-3 h2d_graph outside host_orch")
			}
			if s.depth == 2 && s.start < orch.start+orch.dur {
				return fmt.Errorf("a depth-2 h2d_graph before host_orch ended")
			}
		}
		for _, seg := range e3Segments {
			if _, err := one("chip.run.bind." + seg); err != nil {
				return err
			}
		}
		return nil
	}
	pipe, err := one("simpler_run.bind.orch_h2d_pipe")
	if err != nil {
		return err
	}
	setup, err := one("simpler_run.bind.host_orch.setup")
	if err != nil {
		return err
	}
	entry, err := one("simpler_run.bind.host_orch.entry")
	if err != nil {
		return err
	}
	switch {
	case !inside(orch, pipe):
		return fmt.Errorf("host_orch outside orch_h2d_pipe")
	case !inside(setup, orch) || !inside(entry, orch) || setup.start+setup.dur > entry.start:
		return fmt.Errorf("host_orch.setup and .entry not in order inside host_orch")
	}
	var leftover []logLine
	for _, s := range p.named("simpler_run.bind.h2d_graph") {
		switch s.depth {
		case 5:
			if !inside(s, entry) {
				return fmt.Errorf("a per-layer h2d_graph outside host_orch.entry")
			}
		case 3:
			if !inside(s, pipe) || s.start < orch.start+orch.dur {
				return fmt.Errorf("the leftover h2d_graph is not after host_orch in orch_h2d_pipe")
			}
			leftover = append(leftover, s)
		}
	}
	for _, s := range p.named("simpler_run.bind.h2d_graph") {
		if s.depth == 4 && (len(leftover) != 1 || !inside(s, leftover[0])) {
			return fmt.Errorf("a depth-4 h2d_graph outside the leftover upload")
		}
	}
	for _, name := range []string{"args", "prebuilt", "relocate", "h2d_sm", "h2d_arena"} {
		if _, err := one("simpler_run.bind." + name); err != nil {
			return err
		}
	}
	return nil
}

// checkSpanLog is parseSpanLog for tests that expect a valid log.
func checkSpanLog(t *testing.T, text string, epoch Epoch, w wantLog) []spanPass {
	t.Helper()
	p, err := parseSpanLog(text, epoch, w)
	require.NoError(t, err)
	return p
}

// TestSpanCheckerCatchesDefects feeds the span checker broken logs.
func TestSpanCheckerCatchesDefects(t *testing.T) {
	env := "[mono_ns=%d][T0xab][TIMING] emit_host_span: [STRACE] v=1 pid=7 tid=7 inv=1 hid=abc depth=%d name=%s ts=%d dur=%d %s"
	c := " minflt=1 tminflt=1 nivcsw=0 nvcsw=0 cpu_ns=5 rec_cpu_ns=0"
	var ls []string
	ls = append(ls, "[stamp] x")
	ts := int64(100)
	for i, seg := range e3Segments {
		attrs := "k=1" + c
		ls = append(ls, fmt.Sprintf(env, 1000+i, 2, "chip.run.bind."+seg, ts, 10, attrs))
		if seg == "host_orch" {
			ls = append(ls[:len(ls)-1], fmt.Sprintf(env, 1000+i, 3, "chip.run.bind.h2d_graph", ts+2, 3, "layer=0 bytes=9"), ls[len(ls)-1])
		}
		ts += 10
	}
	ls = append(ls, fmt.Sprintf(env, 2000, 1, "chip.run.bind", 100, ts-100, ""))
	ls = append(ls, fmt.Sprintf(env, 2001, 1, "chip.run.validate", ts+1, 1, ""))
	ls = append(ls, fmt.Sprintf(env, 2002, 0, "chip.run", 99, ts-97, ""))
	good := strings.Join(ls, "\n") + "\n"
	w := wantLog{pid: 7, firstInv: 1, binds: 1}
	_, err := parseSpanLog(good, EpochE3, w)
	require.NoError(t, err)
	for _, tc := range []struct{ name, from, to string }{
		{"counters missing", "k=1" + c + "\n", "k=1\n"},
		{"counters out of order", "minflt=1 tminflt=1", "tminflt=1 minflt=1"},
		{"h2d_graph outside host_orch", "name=chip.run.bind.h2d_graph ts=", "name=chip.run.bind.h2d_graph ts=9"},
		{"depth", "depth=2 name=chip.run.bind.args", "depth=3 name=chip.run.bind.args"},
		{"graph_upload in e3", "chip.run.bind.graph_pack", "chip.run.bind.graph_upload"},
		{"a segment missing", "name=chip.run.bind.gm_heap", "name=chip.run.bind.runtime_init"},
		{"anchor in e3", "[stamp] x\n", "[stamp] x\n[mono_ns=1][T0xab][TIMING] clock_anchor: [CLOCK_ANCHOR] v=1 pid=7 mono_ns=1 wall_ns=5\n"},
		{"percent in attrs", "layer=0", "layer=%20"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Contains(t, good, tc.from)
			_, err := parseSpanLog(strings.Replace(good, tc.from, tc.to, 1), EpochE3, w)
			require.Error(t, err)
		})
	}
}

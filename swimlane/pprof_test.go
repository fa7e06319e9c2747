package swimlane_test

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/hbgkit/hbgkit/phases"
	"github.com/hbgkit/hbgkit/swimlane"
	"github.com/hbgkit/hbgkit/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func span(pid, tid int64, inv uint64, depth int64, name string, ts, dur int64, attrs string) trace.Span {
	return trace.Span{Pid: pid, Tid: tid, Inv: inv, Hid: "abc", Depth: depth, Name: name, Ts: ts, Dur: dur, Attrs: attrs}
}

// roundTrip writes p and parses it back with pprof's own package, as a
// reader of the file would.
func roundTrip(t *testing.T, p *swimlane.Profile) *profile.Profile {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, p.Write(&buf))
	q, err := profile.Parse(&buf)
	require.NoError(t, err)
	require.NoError(t, q.CheckValid())
	return q
}

// selfByStack sums each sample type per stack ("leaf;parent;…").
func selfByStack(p *profile.Profile) map[string][2]int64 {
	out := make(map[string][2]int64)
	for _, s := range p.Sample {
		var names []string
		for _, l := range s.Location {
			names = append(names, l.Line[0].Function.Name)
		}
		k := strings.Join(names, ";")
		v := out[k]
		v[0] += s.Value[0]
		v[1] += s.Value[1]
		out[k] = v
	}
	return out
}

func TestProfileSelfTimes(t *testing.T) {
	l := &trace.Log{Spans: []trace.Span{
		span(1, 1, 7, 0, "chip.run", 0, 1000, ""),
		span(1, 1, 7, 1, "chip.run.bind", 100, 800, ""),
		// An upload with exactly host_orch's interval, written first:
		// host_orch still contains it (log order never decides).
		span(1, 1, 7, 2, "chip.run.bind.graph_upload", 200, 300, ""),
		span(1, 1, 7, 2, "chip.run.bind.host_orch", 200, 300, ""),
		// Two overlapping spans inside the bind: their union (600..750)
		// is subtracted once.
		span(1, 1, 7, 2, "chip.run.bind.relocate", 600, 100, ""),
		span(1, 1, 7, 2, "chip.run.bind.arena_h2d", 650, 100, ""),
		// Another thread and another invocation are never nested.
		span(1, 2, 7, 2, "chip.run.bind.args", 150, 50, ""),
		span(1, 1, 8, 2, "chip.run.bind.args", 150, 50, ""),
		// Device spans are their own sample type, nested among themselves.
		span(1, 1, 7, 0, "chip.run.device", 0, 500, "clk=dev"),
		span(1, 1, 7, 1, "chip.run.device.kernel", 100, 200, "clk=dev"),
	}}
	p := roundTrip(t, swimlane.Build(l, nil).Profile(swimlane.ProfileOptions{
		PerInvocation: true,
		Round:         func(pid int64, inv uint64) (int, bool) { return int(inv) - 7, inv == 7 },
	}))
	require.Len(t, p.SampleType, 3)
	assert.Equal(t, "host", p.SampleType[0].Type)
	assert.Equal(t, "device", p.SampleType[1].Type)
	assert.Equal(t, "spans", p.SampleType[2].Type)
	assert.Equal(t, "count", p.SampleType[2].Unit)
	assert.Equal(t, "host", p.DefaultSampleType)
	assert.Len(t, p.Sample, len(l.Spans), "no two spans share a stack and labels")
	got := selfByStack(p)
	want := map[string][2]int64{
		"chip.run":               {1000 - 800, 0},
		"chip.run.bind;chip.run": {800 - 300 - 150, 0},
		"chip.run.bind.host_orch;chip.run.bind;chip.run":                            {0, 0},
		"chip.run.bind.graph_upload;chip.run.bind.host_orch;chip.run.bind;chip.run": {300, 0},
		"chip.run.bind.relocate;chip.run.bind;chip.run":                             {100, 0},
		"chip.run.bind.arena_h2d;chip.run.bind;chip.run":                            {100, 0},
		"chip.run.bind.args":                     {100, 0}, // two roots: tid 2 and inv 8
		"chip.run.device":                        {0, 300},
		"chip.run.device.kernel;chip.run.device": {0, 200},
	}
	assert.Equal(t, want, got)
	for _, s := range p.Sample {
		assert.Equal(t, []string{"1"}, s.Label["pid"])
		if s.Label["inv"][0] == "7" {
			assert.Equal(t, []string{"0"}, s.Label["round"])
		} else {
			assert.NotContains(t, s.Label, "round")
		}
		require.Len(t, s.Label["lane"], 1)
	}
}

// TestProfileMatchesAccounting checks that the profile nests the way the
// HBG accounting does: on the PR-1870 fixture (per-layer h2d_graph inside
// host_orch), per bind, the self time of host_orch's subtree outside any
// H2D copy equals the accounting's HostOrch.
func TestProfileMatchesAccounting(t *testing.T) {
	srcs, err := trace.Inputs([]string{"../fixtures/hbg-pr1870.log"}, nil)
	require.NoError(t, err)
	l, err := trace.ReadLog(srcs)
	require.NoError(t, err)
	passes := phases.BindPassesFromSpans(l.Spans)
	require.NotEmpty(t, passes)
	want := make(map[uint64]int64)
	for _, bp := range passes {
		m := phases.ComputePassMetrics(bp)
		v, ok := m.Get(phases.StageHostOrch)
		require.True(t, ok)
		want[bp.Inv] += v
	}
	p := roundTrip(t, swimlane.Build(l, nil).Profile(swimlane.ProfileOptions{PerInvocation: true}))
	got := make(map[uint64]int64)
	for _, s := range p.Sample {
		underOrch, underCopy := false, false
		for _, loc := range s.Location {
			name := loc.Line[0].Function.Name
			leaf := name[strings.LastIndexByte(name, '.')+1:]
			if strings.Contains(name, "bind.host_orch") {
				underOrch = true
			}
			switch leaf {
			case "h2d_graph", "h2d_sm", "h2d_arena", "h2d_image", "graph_upload":
				underCopy = true
			}
		}
		if underOrch && !underCopy {
			inv, err := strconv.ParseUint(s.Label["inv"][0], 10, 64)
			require.NoError(t, err)
			got[inv] += s.Value[0]
		}
	}
	assert.Equal(t, want, got)
}

// TestProfileGoToolPprof runs `go tool pprof -top` on a profile of the E1
// fixture: bind-phase lines are segments under chip.run.bind.
func TestProfileGoToolPprof(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool")
	}
	srcs, err := trace.Inputs([]string{"../fixtures/hbg-e1.log"}, nil)
	require.NoError(t, err)
	l, err := trace.ReadLog(srcs)
	require.NoError(t, err)
	sp := swimlane.Build(l, nil).Profile(swimlane.ProfileOptions{})
	path := filepath.Join(t.TempDir(), "e1.pb.gz")
	var buf bytes.Buffer
	require.NoError(t, sp.Write(&buf))
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	p := roundTrip(t, sp)
	out, err := exec.Command(goTool, "tool", "pprof", "-top", path).CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, name := range []string{"chip.run.bind\n", "chip.run.bind.host_orch\n", "chip.run.bind.graph_upload\n", "Type: host"} {
		assert.Contains(t, string(out), name)
	}
	st := selfByStack(p)
	assert.Positive(t, st["chip.run.bind.host_orch;chip.run.bind;chip.run"][0])
}

// The encoder writes what pprof's own parser reads back field for field,
// for an empty profile and for one with large values and odd label text.
func TestProfileEncodingRoundTrips(t *testing.T) {
	q := roundTrip(t, &swimlane.Profile{})
	assert.Empty(t, q.Sample)
	require.Len(t, q.SampleType, 3)
	assert.Equal(t, swimlane.SampleHost, q.DefaultSampleType)

	p := &swimlane.Profile{
		Functions:     []string{"chip.run", "chip.run.bind", "naïve name with spaces"},
		DurationNanos: 1 << 40,
		Samples: []swimlane.Sample{
			{Locations: []uint64{2, 1}, Values: [3]int64{1<<62 + 5, 0, 3}, Labels: [][2]string{{"lane", "bind (T0xab)"}, {"round", "0"}}},
			{Locations: []uint64{3}, Values: [3]int64{0, 300, 1}, Labels: [][2]string{{"lane", ""}}},
		},
	}
	q = roundTrip(t, p)
	assert.Equal(t, int64(1<<40), q.DurationNanos)
	assert.Equal(t, "span", q.PeriodType.Type)
	assert.Equal(t, int64(1), q.Period)
	require.Len(t, q.Sample, 2)
	s := q.Sample[0]
	require.Len(t, s.Location, 2)
	assert.Equal(t, "chip.run.bind", s.Location[0].Line[0].Function.Name)
	assert.Equal(t, "chip.run", s.Location[1].Line[0].Function.Name)
	assert.Equal(t, []int64{1<<62 + 5, 0, 3}, s.Value)
	assert.Equal(t, map[string][]string{"lane": {"bind (T0xab)"}, "round": {"0"}}, s.Label)
	assert.Equal(t, "naïve name with spaces", q.Sample[1].Location[0].Line[0].Function.Name)
	assert.Equal(t, []int64{0, 300, 1}, q.Sample[1].Value)
}

// TestProfileBoundsDeepStacks: 10,000 spans nested by time made stacks of
// every depth, 50 million frames in all (a gigabyte). Stacks stop at
// MaxStackDepth, the outer spans folded into one frame, so the frames are
// linear in the spans, and self times are unchanged.
func TestProfileBoundsDeepStacks(t *testing.T) {
	const n = 10000
	spans := make([]trace.Span, n)
	for i := range spans {
		spans[i] = span(1, 1, 1, int64(min(i, 99)), "chip.run.s"+strconv.Itoa(i), int64(i)*10, int64(n-i)*20, "")
	}
	p := swimlane.Build(&trace.Log{Spans: spans}, nil).Profile(swimlane.ProfileOptions{})
	require.Len(t, p.Samples, n)
	assert.Equal(t, n-swimlane.MaxStackDepth, p.Truncated)
	frames := 0
	var total int64
	for _, s := range p.Samples {
		require.LessOrEqual(t, len(s.Locations), swimlane.MaxStackDepth)
		frames += len(s.Locations)
		total += s.Values[0]
	}
	assert.LessOrEqual(t, frames, n*swimlane.MaxStackDepth)
	assert.Equal(t, spans[0].Dur, total, "self times add up to the outermost span")

	q := roundTrip(t, p)
	byStack := selfByStack(q)
	deepest := make([]string, 0, swimlane.MaxStackDepth)
	for i := n - 1; i > n-swimlane.MaxStackDepth; i-- {
		deepest = append(deepest, "chip.run.s"+strconv.Itoa(i))
	}
	deepest = append(deepest, swimlane.TruncatedFrame)
	assert.Contains(t, byStack, strings.Join(deepest, ";"))
	// The shallowest spans keep their whole ancestry.
	assert.Contains(t, byStack, "chip.run.s127;"+strings.Join(func() []string {
		var s []string
		for i := 126; i >= 0; i-- {
			s = append(s, "chip.run.s"+strconv.Itoa(i))
		}
		return s
	}(), ";"))
}

// TestProfileMergesIdenticalSamples: 5,000 identical spans nested into one
// chain (one interval) and 5,000 flat ones under a root are one sample per
// distinct stack and label set, their self times summed and their spans
// counted in the sample type spans, so the profile does not grow with the
// spans; pprof reads back the same self time per stack as one sample per
// span gave, and the same span count. Another invocation with the same
// spans on the same thread joins their samples, unless PerInvocation
// labels them apart.
func TestProfileMergesIdenticalSamples(t *testing.T) {
	const n = 5000
	var spans []trace.Span
	for range n {
		spans = append(spans, span(1, 1, 1, 1, "chip.run.same", 100, 50, ""))
	}
	for inv := uint64(2); inv <= 3; inv++ {
		spans = append(spans, span(1, 2, inv, 0, "chip.run", 0, 10*n, ""))
		for i := range n {
			spans = append(spans, span(1, 2, inv, 1, "chip.run.step", int64(10*i+1), 5, ""))
		}
	}
	const total = 3*n + 2
	// The chain: a stack for each depth 1..MaxStackDepth, then every
	// deeper one truncated alike; the flat ones: the root's and one step
	// stack, per invocation with PerInvocation.
	for _, perInv := range []bool{false, true} {
		p := swimlane.Build(&trace.Log{Spans: spans}, nil).Profile(swimlane.ProfileOptions{PerInvocation: perInv})
		want := swimlane.MaxStackDepth + 1 + 2
		labels := 3 // lane, pid, tid
		if perInv {
			want += 2
			labels++ // inv
		}
		require.Len(t, p.Samples, want, "PerInvocation %v", perInv)
		assert.Equal(t, total, p.Spans)

		q := roundTrip(t, p)
		require.Len(t, q.Sample, len(p.Samples))
		require.Len(t, q.SampleType, 3)
		var spansRead int64
		for _, s := range q.Sample {
			spansRead += s.Value[2]
			assert.Len(t, s.Label, labels)
		}
		assert.Equal(t, int64(total), spansRead)
		byStack := selfByStack(q)
		assert.Equal(t, [2]int64{2 * 5 * n, 0}, byStack["chip.run.step;chip.run"])
		assert.Equal(t, [2]int64{2 * (10*n - 5*n), 0}, byStack["chip.run"])
		var host int64
		for _, v := range byStack {
			host += v[0]
		}
		assert.Equal(t, int64(2*10*n+50), host, "the chain's self times add up to one span's")
	}
}

// TestProfileSumsSaturate: merged self times past the int64 range stay at
// its end instead of wrapping negative.
func TestProfileSumsSaturate(t *testing.T) {
	var spans []trace.Span
	for inv := range uint64(3) { // three invocations: one sample
		spans = append(spans, span(1, 1, inv, 0, "chip.run", 0, math.MaxInt64/2, ""))
	}
	p := swimlane.Build(&trace.Log{Spans: spans}, nil).Profile(swimlane.ProfileOptions{})
	require.Len(t, p.Samples, 1)
	assert.Equal(t, int64(math.MaxInt64), p.Samples[0].Values[0])
	assert.Equal(t, int64(3), p.Samples[0].Values[2])
}

package phases

import (
	"testing"

	"github.com/hbgkit/hbgkit/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// viewsSpan builds a span for the tpot, tree and rounds tests.
func viewsSpan(pid int64, inv uint64, hid string, depth int64, name string, ts, dur int64, attrs string) trace.Span {
	return trace.Span{Pid: pid, Tid: pid, Inv: inv, Hid: hid, Depth: depth, Name: name, Ts: ts, Dur: dur, Attrs: attrs}
}

// viewsInvs groups spans into invocations the way the commands do.
func viewsInvs(spans []trace.Span) []*trace.Invocation {
	return trace.GroupInvocations(trace.InvocationSpans(spans))
}

// viewsRound is one invocation of the rounds tests: durations in ns, 0 for
// a span that is absent.
type viewsRound struct {
	host, device, orch, sched int64
}

func viewsRounds(pid int64, hid string, firstInv uint64, rounds []viewsRound) []trace.Span {
	var out []trace.Span
	for i, r := range rounds {
		inv := firstInv + uint64(i)
		ts := int64(i) * 1_000_000
		if r.host > 0 {
			out = append(out, viewsSpan(pid, inv, hid, 0, "chip.run", ts, r.host, ""))
		}
		if r.device > 0 {
			out = append(out, viewsSpan(pid, inv, hid, 2, "chip.run.runner_run.device_wall", 0, r.device, "clk=dev"))
		}
		if r.orch > 0 {
			out = append(out, viewsSpan(pid, inv, hid, 3, "chip.run.runner_run.device_wall.orch", 100, r.orch, "clk=dev"))
		}
		if r.sched > 0 {
			out = append(out, viewsSpan(pid, inv, hid, 3, "chip.run.runner_run.device_wall.sched", 150, r.sched, "clk=dev"))
		}
	}
	return out
}

func columnNames(r *Rounds) []string {
	var out []string
	for _, c := range r.Columns {
		out = append(out, c.Name)
	}
	return out
}

func TestComputeRoundsHostDevice(t *testing.T) {
	// The reference's own test of the Host and Device columns.
	spans := viewsRounds(7, "abc", 1, []viewsRound{{host: 100_000, device: 20_000}, {host: 120_000, device: 24_000}})
	r := ComputeRounds(viewsInvs(spans))
	require.NotNil(t, r)
	assert.Equal(t, "abc", r.Hid)
	assert.Equal(t, []string{MetricHost, MetricDevice}, columnNames(r))
	assert.Equal(t, []RoundRow{{Round: 0, Pid: 7, Inv: 1}, {Round: 1, Pid: 7, Inv: 2}}, r.Rows)
	assert.Equal(t, []float64{100, 120}, r.Column(MetricHost).Values)
	assert.Equal(t, []Average{
		{Metric: MetricHost, Value: 110, Unit: UnitMicros, N: 2, Of: 2},
		{Metric: MetricDevice, Value: 22, Unit: UnitMicros, N: 2, Of: 2},
	}, r.Averages)
	assert.Nil(t, r.Trimmed)
	assert.Nil(t, r.Column(MetricOrch))
}

func TestComputeRoundsTrimmed(t *testing.T) {
	tests := []struct {
		name       string
		n          int
		deviceIn   int // rounds (the first ones) with a device span
		wantUsed   int // 0: no trimmed line
		wantDevice bool
		wantDevN   int
	}{
		{name: "21 rounds trim to one", n: 21, deviceIn: 21, wantUsed: 1, wantDevice: true, wantDevN: 21},
		{name: "20 rounds have no trimmed line", n: 20, deviceIn: 20, wantDevN: 20},
		{name: "device in 19 of 25 rounds is not trimmed", n: 25, deviceIn: 19, wantUsed: 5, wantDevN: 19},
		{name: "device in 21 of 25 rounds is trimmed", n: 25, deviceIn: 21, wantUsed: 5, wantDevice: true, wantDevN: 21},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var rounds []viewsRound
			for i := 0; i < tc.n; i++ {
				r := viewsRound{host: int64(1000+i) * 1000}
				if i < tc.deviceIn {
					r.device = int64(500+i) * 1000
				}
				rounds = append(rounds, r)
			}
			r := ComputeRounds(viewsInvs(viewsRounds(3, "h", 1, rounds)))
			dev := r.Averages[1]
			assert.Equal(t, MetricDevice, dev.Metric)
			assert.Equal(t, tc.wantDevN, dev.N)
			assert.Equal(t, tc.n, dev.Of)
			if tc.wantUsed == 0 {
				assert.Nil(t, r.Trimmed)
				return
			}
			require.NotNil(t, r.Trimmed)
			assert.Equal(t, tc.wantUsed, r.Trimmed.Used)
			assert.Equal(t, RoundsTrim, r.Trimmed.Low)
			assert.Equal(t, RoundsTrim, r.Trimmed.High)
			assert.Equal(t, MetricHost, r.Trimmed.Averages[0].Metric)
			// Hosts are 1000..1000+n-1 µs: the middle ones average to the middle.
			assert.InDelta(t, 1000+float64(tc.n-1)/2, r.Trimmed.Averages[0].Value, 1e-9)
			if tc.wantDevice {
				require.Len(t, r.Trimmed.Averages, 2)
				assert.Equal(t, MetricDevice, r.Trimmed.Averages[1].Metric)
				assert.InDelta(t, 500+float64(tc.deviceIn-1)/2, r.Trimmed.Averages[1].Value, 1e-9)
			} else {
				assert.Len(t, r.Trimmed.Averages, 1)
			}
		})
	}
}

func TestComputeRoundsAveragesSkipZeros(t *testing.T) {
	spans := viewsRounds(3, "h", 1, []viewsRound{
		{host: 100_000, device: 30_000, orch: 10_000},
		{host: 200_000},
		{host: 300_000, device: 50_000, orch: 20_000, sched: 40_000},
	})
	r := ComputeRounds(viewsInvs(spans))
	assert.Equal(t, []string{MetricHost, MetricDevice, MetricEffective, MetricOrch, MetricSched}, columnNames(r))
	got := map[string]Average{}
	for _, a := range r.Averages {
		got[a.Metric] = a
	}
	assert.Equal(t, Average{Metric: MetricHost, Value: 200, Unit: UnitMicros, N: 3, Of: 3}, got[MetricHost])
	assert.Equal(t, Average{Metric: MetricDevice, Value: 40, Unit: UnitMicros, N: 2, Of: 3}, got[MetricDevice])
	assert.Equal(t, Average{Metric: MetricOrch, Value: 15, Unit: UnitMicros, N: 2, Of: 3}, got[MetricOrch])
	assert.Equal(t, Average{Metric: MetricSched, Value: 40, Unit: UnitMicros, N: 1, Of: 3}, got[MetricSched])
	// Effective: orch alone = its duration; orch [100, 20100) with sched
	// [150, 40150) = 40050 ns.
	assert.Equal(t, []float64{10, 0, 40.05}, r.Column(MetricEffective).Values)
}

func TestComputeRoundsSelection(t *testing.T) {
	tests := []struct {
		name     string
		spans    []trace.Span
		wantHid  string
		wantRows []RoundRow
		wantHost []float64
	}{
		{
			name: "invocations without chip.run are left out before the busiest is chosen",
			spans: append(
				[]trace.Span{
					viewsSpan(1, 1, "pre", 0, "chip.prewarm.build", 0, 5, ""),
					viewsSpan(1, 2, "pre", 0, "chip.prewarm.build", 0, 5, ""),
					viewsSpan(1, 3, "pre", 0, "chip.prewarm.build", 0, 5, ""),
				},
				viewsRounds(1, "run", 10, []viewsRound{{host: 1000}, {host: 3000}})...),
			wantHid:  "run",
			wantRows: []RoundRow{{0, 1, 10}, {1, 1, 11}},
			wantHost: []float64{1, 3},
		},
		{
			name: "legacy simpler_run names are looked up, chip.run wins over them",
			spans: []trace.Span{
				viewsSpan(1, 1, "h", 0, "simpler_run", 0, 4000, ""),
				viewsSpan(1, 1, "h", 2, "simpler_run.runner_run.device_wall", 0, 2000, "clk=dev"),
				viewsSpan(1, 2, "h", 0, "simpler_run", 0, 9000, ""),
				viewsSpan(1, 2, "h", 0, "chip.run", 0, 5000, ""),
			},
			wantHid:  "h",
			wantRows: []RoundRow{{0, 1, 1}, {1, 1, 2}},
			wantHost: []float64{4, 5},
		},
		{
			name: "the earliest span of a name counts",
			spans: []trace.Span{
				viewsSpan(1, 1, "h", 0, "chip.run", 500, 7000, ""),
				viewsSpan(1, 1, "h", 0, "chip.run", 100, 6000, ""),
			},
			wantHid:  "h",
			wantRows: []RoundRow{{0, 1, 1}},
			wantHost: []float64{6},
		},
		{
			name: "two ranks interleave by inv, equal inv in pid order",
			spans: append(viewsRounds(20, "h", 1, []viewsRound{{host: 1000}, {host: 2000}}),
				viewsRounds(10, "h", 2, []viewsRound{{host: 3000}})...),
			wantHid:  "h",
			wantRows: []RoundRow{{0, 20, 1}, {1, 10, 2}, {2, 20, 2}},
			wantHost: []float64{1, 3, 2},
		},
		{
			name: "node and ext spans are never rounds",
			spans: []trace.Span{
				viewsSpan(1, 1, "h", 0, "node.chip.run", 0, 5, ""),
				viewsSpan(1, 0, "0", 0, "ext.chip.run", 0, 5, ""),
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := ComputeRounds(viewsInvs(tc.spans))
			assert.Equal(t, tc.wantHid, r.Hid)
			assert.Equal(t, tc.wantRows, r.Rows)
			if tc.wantRows == nil {
				assert.Empty(t, r.Columns)
				assert.Empty(t, r.Averages)
				return
			}
			assert.Equal(t, tc.wantHost, r.Column(MetricHost).Values)
		})
	}
}

func TestComputeRoundsLegacyDevice(t *testing.T) {
	spans := []trace.Span{
		viewsSpan(1, 1, "h", 0, "simpler_run", 0, 4000, ""),
		viewsSpan(1, 1, "h", 2, "simpler_run.runner_run.device_wall", 0, 2000, "clk=dev"),
		viewsSpan(1, 1, "h", 3, "simpler_run.runner_run.device_wall.orch", 10, 500, "clk=dev"),
		viewsSpan(1, 1, "h", 3, "simpler_run.runner_run.device_wall.sched", 20, 1000, "clk=dev"),
	}
	r := ComputeRounds(viewsInvs(spans))
	assert.Equal(t, []string{MetricHost, MetricDevice, MetricEffective, MetricOrch, MetricSched}, columnNames(r))
	assert.Equal(t, []float64{2}, r.Column(MetricDevice).Values)
	assert.Equal(t, []float64{1.01}, r.Column(MetricEffective).Values)
}

func TestComputeRoundsPerRank(t *testing.T) {
	spans := append(viewsRounds(20, "h", 1, []viewsRound{{host: 1000, device: 500}, {host: 2000, device: 700}}),
		viewsRounds(10, "h", 5, []viewsRound{{host: 3000}})...)
	// A busier callable in one rank alone still decides for both ranks.
	spans = append(spans, viewsRounds(10, "other", 100, []viewsRound{{host: 1}, {host: 1}})...)
	spans = append(spans, viewsRounds(20, "other", 100, []viewsRound{{host: 1}, {host: 1}})...)
	got := ComputeRoundsPerRank(viewsInvs(spans))
	require.Len(t, got, 2)
	assert.Equal(t, int64(10), got[0].Pid)
	assert.Equal(t, int64(20), got[1].Pid)
	assert.Equal(t, "other", got[0].Rounds.Hid)
	assert.Equal(t, []RoundRow{{0, 10, 100}, {1, 10, 101}}, got[0].Rounds.Rows)
	assert.Equal(t, []RoundRow{{0, 20, 100}, {1, 20, 101}}, got[1].Rounds.Rows)

	spans = append(viewsRounds(20, "h", 1, []viewsRound{{host: 1000, device: 500}, {host: 2000, device: 700}}),
		viewsRounds(10, "h", 5, []viewsRound{{host: 3000}})...)
	got = ComputeRoundsPerRank(viewsInvs(spans))
	require.Len(t, got, 2)
	assert.Equal(t, []string{MetricHost}, columnNames(got[0].Rounds))
	assert.Equal(t, []string{MetricHost, MetricDevice}, columnNames(got[1].Rounds))
	assert.Equal(t, 1.5, got[1].Rounds.Averages[0].Value)

	assert.Empty(t, ComputeRoundsPerRank(nil))
}

func TestColumnKey(t *testing.T) {
	for _, tc := range []struct {
		col  Column
		want string
	}{
		{Column{Name: MetricHost, Unit: UnitMicros}, "host_us"},
		{Column{Name: MetricEffective, Unit: UnitMicros}, "effective_us"},
		{Column{Name: "ControlPlane", Unit: "ms"}, "controlplane_ms"},
	} {
		assert.Equal(t, tc.want, tc.col.Key())
	}
}

func TestRunSpan(t *testing.T) {
	for name, want := range map[string]bool{
		"chip.run": true, "simpler_run": true, "chip.run.bind": false,
		"chip.run.device_wall": false, "simpler_run.bind": false, "chip.runx": false, "": false,
	} {
		if got := RunSpan(name); got != want {
			t.Errorf("RunSpan(%q) = %v, want %v", name, got, want)
		}
	}
}

package swimlane

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hbgkit/hbgkit/trace"
	"github.com/stretchr/testify/require"
)

// randomLog builds a log of mixed families, roles, slots, flows, device
// spans, anchors and bind-phase lines, and an artifact for some of its
// binds, from one seed.
func randomLog(r *rand.Rand) (*trace.Log, string) {
	l := &trace.Log{}
	pids := []int64{7, 8, 41, 90}
	names := []string{
		"chip.run", "chip.run.bind", "chip.run.runner_run", "chip.run.runner_run.device_wall",
		"node.graph_build", "node.submit", "node.dispatch", "network1.submit", "network1.dispatch",
		"node.activate", "node.complete", "node.scheduler_loop", "ext.pypto.step", "ext.app.x.y",
		"ext.", "ext..x", "core.pipe", "simpler_run", "odd%20name",
	}
	attrs := []string{
		"", "role=facade", "role=scheduler", "role=worker worker_id=3", "role=worker",
		"clk=dev", "slot_id=0", "slot_id=1", "slot_id=x", "host_phase_thread=graph_submit_main",
		"host_phase_thread=graph_record_worker", "depth=99 os_tid=1 inv=x", "task_slot=1", "slot=2",
		"run_id=1", "run_id=2", "group_index=0 dispatch_id=5", "big=123456789012345678901234567890",
		"bad=%FF%00%22", "wall_ts_ns=1",
	}
	n := r.IntN(60)
	for i := 0; i < n; i++ {
		pid := pids[r.IntN(len(pids))]
		a := ""
		for k := r.IntN(4); k > 0; k-- {
			a += attrs[r.IntN(len(attrs))] + " "
		}
		s := trace.Span{
			Pid: pid, Tid: pid*10 + int64(r.IntN(3)), Inv: uint64(r.IntN(4)), Hid: "abc",
			Depth: int64(r.IntN(3)), Name: names[r.IntN(len(names))],
			Ts: int64(r.IntN(1000)), Dur: int64(r.IntN(300)), Attrs: a,
			Thread: fmt.Sprintf("%x", pid),
		}
		l.Spans = append(l.Spans, s)
	}
	if r.IntN(2) == 0 {
		l.Anchors = append(l.Anchors, trace.Anchor{Pid: pids[r.IntN(len(pids))], MonoNs: int64(r.IntN(500)), WallNs: 1_700_000_000_000_000_000})
	}
	phases := []string{"args", "host_orch", "arena_h2d", "host_view_close", "mystery"}
	for i := r.IntN(10); i > 0; i-- {
		l.BindPhases = append(l.BindPhases, trace.BindPhase{
			Phase: phases[r.IntN(len(phases))], StartNs: int64(r.IntN(1000)), DurNs: int64(r.IntN(100)),
			Thread: fmt.Sprintf("%x", pids[r.IntN(len(pids))]), Enveloped: r.IntN(4) != 0,
		})
	}
	var passes string
	recPhases := []string{"args", "graph_pack", "record_node", "record_sub_task", "graph_submit", "submit_task"}
	for i := r.IntN(4); i > 0; i-- {
		var recs []string
		for k := r.IntN(6); k > 0; k-- {
			start := int64(r.IntN(1000))
			recs = append(recs, rec(recPhases[r.IntN(len(recPhases))], start, start+int64(r.IntN(200))-20,
				r.IntN(3), int64(r.IntN(3))*42-1))
		}
		var pid any = pids[r.IntN(len(pids))]
		if r.IntN(5) == 0 {
			pid = fmt.Sprintf("%q", fmt.Sprint(pid))
		}
		passes += pass(pid, r.IntN(4), recs...)
	}
	if r.IntN(3) == 0 {
		passes += `{"pid": 7, "inv": 1, "records": [{"phase": "args", "start_n`
	}
	return l, passes
}

// TestSwimlaneProperties decodes the documents of many random logs and
// checks the invariants every document must keep.
func TestSwimlaneProperties(t *testing.T) {
	for seed := uint64(0); seed < 300; seed++ {
		r := rand.New(rand.NewPCG(seed, 1))
		l, passes := randomLog(r)
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			d, sw := swimlaneDoc(t, l, loadPasses(t, passes))
			checkInvariants(t, d)
			sum := sw.Summary()
			require.Equal(t, len(l.Spans), sum.HostSpans+sum.DeviceSpans)
			require.Len(t, d.xEvents(), sum.HostSpans+sum.BindPhases+sum.Records)
			require.Len(t, d.UnalignedDeviceSpans, sum.DeviceSpans)

			var buf bytes.Buffer
			_, err := WriteChromeTrace(&buf, l)
			require.NoError(t, err)
			checkInvariants(t, decodeDoc(t, buf.Bytes()))
		})
	}
}

// Package perflog generates large, deterministic host logs for benchmarks:
// the shape of shared/tools/gen_perf.py (a DeepSeek-V4-like run), written
// in Go so that a benchmark needs no Python and no file on disk.
package perflog

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
)

// Generate returns about size bytes of a DeepSeek-V4-like host log, the
// shape of shared/tools/gen_perf.py: per round an L3 parent's node spans
// and an ext span, and two forked ranks each with one bind pass of
// `bind phase=` and `host-orch phase=` lines, a chip.run tree, 16 device
// task-slot spans and INFO/DEBUG noise; about a third of neighbouring
// records of different ranks share a physical line.
func Generate(size int) []byte {
	rng := rand.New(rand.NewSource(20260820))
	var b bytes.Buffer
	th := func(tid int) string { return fmt.Sprintf("7f%010x", (0x3C9A2FB740+tid*0x10C0)&0xFFFFFFFFFF) }
	b.WriteString("[stamp] 6ebaf77 env SIMPLER_HBG_BIND_BREAKDOWN_ENABLE=1 SIMPLER_LOG_LEVEL=TIMING python test_dsv4_flash_decode.py -p a2a3 --rounds 999999\n")
	for k, pid := range []int{90210, 90244, 90245} {
		mono := 879991000000 + k*2000000
		fmt.Fprintf(&b, "[mono_ns=%d][T0x%s][TIMING] clock_anchor: [CLOCK_ANCHOR] v=1 pid=%d mono_ns=%d wall_ns=%d\n",
			mono+350, th(pid), pid, mono, 1787212805000000000+k*2000000)
	}
	span := func(tid, pid, inv int, hid string, depth int, name string, ts, dur int, attrs string) string {
		return fmt.Sprintf("[mono_ns=%d][T0x%s][TIMING] emit_host_span: [STRACE] v=1 pid=%d tid=%d inv=%d hid=%s depth=%d name=%s ts=%d dur=%d %s",
			ts+dur+300, th(tid), pid, tid, inv, hid, depth, name, ts, dur, attrs)
	}
	segs := []string{"args", "arena_build", "static_arena", "gm_heap", "shared_mem", "runtime_init", "host_orch", "graph_upload", "arena_h2d", "host_view_close"}
	segAttrs := []string{"ntensor=92 staged=1 bytes=8", "bytes=11515648 device=2242048", "heap=2147483648 arena=2242048", "", "bytes=5620195", "",
		"tasks=1131 heap_used=2038508544", "defs=1 bytes=671144 submissions=20", "nt=1131 bytes=5631523 copied=8704 sm=5620195 subs=2624 args=2262/2480/310", "count=1 bytes=8"}
	const hid = "5e0d7c9b3a214f68"
	t := 880000000000
	for r := 1; b.Len() < size; r++ {
		var lines []string
		lines = append(lines, span(90210, 90210, r, "0", 0, "node.graph_build", t, 270000, fmt.Sprintf("run_id=%d role=facade", r)))
		for w, pid := range []int{90244, 90245} {
			tid := pid + 3
			common := fmt.Sprintf("run_id=%d task_slot=%d group_index=%d worker_id=%d dispatch_id=%d endpoint_kind=local_mailbox prepare_only=0", r, r%4, w, w, 2*r+w)
			lines = append(lines, span(90231, 90210, r, hid, 0, "node.dispatch", t+300000, 7000, common+" role=scheduler slot_id=0 generation=1"))
			x := t + 400000
			for i, s := range segs {
				d := 1000 + rng.Intn(400000)
				lines = append(lines, fmt.Sprintf("[mono_ns=%d][T0x%s][TIMING] host_phase_trace_end: [host_phase_trace.cpp:393] bind phase=%s start_ns=%d dur_ns=%d %s", x+i, th(tid), s, x, d, segAttrs[i]))
				x += d + 1000
			}
			for _, o := range []string{"submit_task", "alloc_tensors", "record_node", "graph_submit", "build_definition"} {
				lines = append(lines, fmt.Sprintf("[mono_ns=%d][T0x%s][TIMING] host_phase_trace_end: [host_phase_trace.cpp:402] host-orch phase=%s total_ns=%d count=%d detail_sum=%d dropped=0", x, th(tid), o, rng.Intn(1000000), 839, 2517))
			}
			lines = append(lines, span(tid, pid, r, hid, 1, "chip.run.bind", t+399000, x-t-399000, ""))
			dev := 30000000 + rng.Intn(15000000)
			for k := 0; k < 12; k++ {
				lines = append(lines, fmt.Sprintf("[mono_ns=%d][T0x%s][INFO] launch_aicpu: [device_runner.cpp:%d] launching AICPU kernel on stream 0x5591ab3c%04x blockDim=4", x+k, th(tid), 380+k, rng.Intn(0xffff)))
			}
			for k := 0; k < 16; k++ {
				lines = append(lines, span(tid, pid, r, hid, 3, fmt.Sprintf("chip.run.runner_run.device_wall.task_slot_%d", k), k*(dev/16), dev/40, "clk=dev"))
			}
			lines = append(lines, span(tid, pid, r, hid, 2, "chip.run.runner_run.device_wall", 0, dev, "clk=dev"))
			lines = append(lines, span(tid, pid, r, hid, 1, "chip.run.runner_run", x+20000, dev+250000, ""))
			lines = append(lines, span(tid, pid, r, hid, 0, "chip.run", t+350000, x+dev+2000000-t, fmt.Sprintf("run_id=%d dispatch_id=%d slot_id=0 generation=%d run_epoch=%d", r, 2*r+w, r, r)))
		}
		lines = append(lines, span(90210, 90210, 0, "0", 0, "ext.pypto.decode_step", t-40000, 50000000, fmt.Sprintf("step=%d batch=4 seq_len=%d", r, 3583+r)))
		for i, l := range lines {
			b.WriteString(l)
			if i+1 < len(lines) && isSpanLine(l) && isSpanLine(lines[i+1]) && rng.Intn(10) < 3 {
				continue // two records on one physical line
			}
			b.WriteByte('\n')
		}
		t += 50000000
	}
	return b.Bytes()
}

func isSpanLine(l string) bool { return strings.Contains(l, "[STRACE]") }

// Callables returns a host log of n invocations of n distinct callables
// (hids), one chip.run span each on one rank: the input of the benchmarks
// that views stay linear in the number of distinct callables (about 150
// bytes a callable).
func Callables(n int) []byte {
	var b bytes.Buffer
	b.Grow(n * 160)
	t := 880000000000
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "[mono_ns=%d][T0x7f3cb13e20c0][TIMING] emit_host_span: [STRACE] v=1 pid=90210 tid=90210 inv=%d hid=%016x depth=0 name=chip.run ts=%d dur=%d\n",
			t+5000, i, uint64(i)*0x9e3779b97f4a7c15, t, 4000+i%997)
		t += 10000
	}
	return b.Bytes()
}

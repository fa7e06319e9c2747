# gen.py writes run.log and host_phase_records.jsonl: two binds of pid 9
# (tid 9), each with six graph_submit records 10 us long and 1 us apart but
# for one injected 300 us gap after the third. In bind 1 recorder tid 43
# writes its first record inside that gap (tid 42 recorded before it); in
# bind 2 tid 44 is born inside its gap. The last build_definition of each
# bind ends 37 us after its last graph_submit: the commit wait.
# Regenerate with: python3 gen.py
import json

log = ["[stamp] gaps fixture: swimlane/testdata/gaps/gen.py"]
recs = []
for inv, newtid in ((1, 43), (2, 44)):
    base = inv * 10_000_000
    run, bind = base, base + 100_000
    orch = bind + 200_000
    r = [dict(phase="args", start_ns=bind + 1_000, end_ns=bind + 150_000, detail=0, tid=9),
         dict(phase="host_orch", start_ns=orch, end_ns=orch + 900_000, detail=0, tid=9)]
    ts = orch + 100_000
    for i in range(6):
        r.append(dict(phase="graph_submit", start_ns=ts, end_ns=ts + 10_000, detail=4294967296 + i, tid=9))
        ts += 10_000
        if i == 2:
            gap = ts
            ts += 300_000
        else:
            ts += 1_000
    last = ts - 1_000
    if inv == 1:
        r.append(dict(phase="record_node", start_ns=orch + 105_000, end_ns=orch + 106_000, detail=1, tid=42))
    r.append(dict(phase="record_node", start_ns=gap + 50_000, end_ns=gap + 60_000, detail=1, tid=newtid))
    r.append(dict(phase="record_node", start_ns=gap + 305_000, end_ns=gap + 306_000, detail=1, tid=42))
    r.append(dict(phase="build_definition", start_ns=orch + 200_000, end_ns=orch + 250_000, detail=0, tid=42))
    r.append(dict(phase="build_definition", start_ns=last + 20_000, end_ns=last + 37_000, detail=0, tid=newtid))
    recs.append(dict(pid=9, inv=inv, clock="host_monotonic_ns", dropped=0, records=r))
    for depth, name, t, d in ((1, "chip.run.bind", bind, 1_500_000), (0, "chip.run", run, 2_000_000)):
        log.append("[mono_ns=%d][T0x7f0000000009][TIMING] emit_host_span: [STRACE] v=1 pid=9 tid=9 inv=%d "
                   "hid=5e0d7c9b3a214f68 depth=%d name=%s ts=%d dur=%d " % (t + d, inv, depth, name, t, d))
with open("run.log", "w") as f:
    f.write("\n".join(log) + "\n")
with open("host_phase_records.jsonl", "w") as f:
    for p in recs:
        f.write(json.dumps(p) + "\n")

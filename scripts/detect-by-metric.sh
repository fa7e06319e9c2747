#!/bin/sh
# detect-by-metric.sh [CAMPAIGNS] [DELAY_US] [METRICS]: how often a
# campaign finds an injected host_orch delay, per metric. Runs CAMPAIGNS
# (default 10) campaigns of the embedded model, per_bind E3 against the same
# with delay_us=DELAY_US (default 800, about +10% of ControlPlane on a
# 2-core AMD EPYC VM), 10 rounds of 5 passes, seeds 1..CAMPAIGNS, with two
# busy loops beside them (BUSY=0 leaves them out). For each metric of
# METRICS (default ControlPlane cpu.ControlPlane cpu_ns minflt) it counts
# the campaigns whose 95% CI lies wholly above the margin: the verdict the
# metric would get as the primary. Prints the CPU model, the load after
# each campaign and one line per metric; journals stay in a temporary
# directory, removed at exit. Needs python3 (as the conformance runner).
set -u
n=${1:-10}
delay=${2:-800}
metrics=${3:-ControlPlane cpu.ControlPlane cpu_ns minflt}
busy=${BUSY:-1}
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d)
go build -o "$tmp/hbgbench" ./cmd/hbgbench || exit 1
pids=""
if [ "$busy" = 1 ]; then
    ( while :; do :; done ) & pids="$pids $!"
    ( while :; do :; done ) & pids="$pids $!"
fi
trap 'kill $pids 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
grep -m1 'model name' /proc/cpuinfo
echo "cpus: $(nproc)  busy loops: $busy  delay_us: $delay  campaigns: $n"
base=embedded:mirror=per_bind,epoch=e3
for i in $(seq 1 "$n"); do
    "$tmp/hbgbench" ab --base "$base" --head "$base,delay_us=$delay" \
        --rounds 10 --block 5 --seed "$i" --journal "$tmp/c$i.jsonl" \
        --format json >"$tmp/c$i.json" 2>/dev/null || echo "campaign $i failed"
    echo "campaign $i: load $(cut -d' ' -f1-3 /proc/loadavg)"
done
python3 - "$tmp" "$n" $metrics <<'EOF'
import json, statistics, sys
tmp, n, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
rows = {m: [] for m in names}
for i in range(1, n + 1):
    try:
        d = json.load(open(f"{tmp}/c{i}.json"))
    except (OSError, ValueError):
        continue
    for m in d["metrics"]:
        if m["name"] in rows:
            rows[m["name"]].append((m, d["margin"]))
print(f"{'metric':<18} {'found':>7} {'median delta':>13} {'median sigma_d':>15}")
for name in names:
    got = rows[name]
    found = sum(1 for m, margin in got if m["ci_lo"] is not None and m["ci_lo"] > margin)
    deltas = [m["delta"] for m, _ in got if m["delta"] is not None]
    sigmas = [m["sigma_d"] for m, _ in got if m["sigma_d"] is not None]
    med = lambda v: f"{100 * statistics.median(v):.1f}%" if v else "n/a"
    print(f"{name:<18} {found:>3}/{len(got):<3} {med(deltas):>13} {med(sigmas):>15}")
EOF

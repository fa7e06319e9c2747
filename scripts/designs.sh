#!/bin/sh
# designs.sh [CAMPAIGNS] [DELAYS] [DESIGNS]: detection rate, A/A verdict
# rate, rounds and wall time of hbgbench's campaign designs, side by side.
#
# For each seed 1..CAMPAIGNS (default 10), each delay of DELAYS (default
# "0 125 250 625": µs of busy wait added to host_orch of the head; 0 is
# A/A) and each design of DESIGNS (default "fixed cpus seq"), runs one
# campaign of the embedded default workload with the retained mirror on
# both arms, the head with delay_us=DELAY:
#   fixed  hbgbench's default fixed design (no flag)
#   cpus   the same pinned with --cpus 1
#   seq    --until-decided (its default looks and --max-rounds)
# Designs and delays are interleaved within each seed, so the machine's
# load falls on all of them alike. EXTRA is added to every command line;
# FIRST (default 1) is the first seed.
# The true Δ of a delay is reported as the median Δ of cpu_ns (the bind
# thread's CPU time, which load barely moves; E2 has no cpu.ControlPlane)
# over its campaigns. Prints the CPU model, the load after each seed and a table:
# design, delay, true Δ, SLOWER k/n (for delay 0: faster or slower k/n),
# median rounds, median wall seconds. Journals stay in a temporary
# directory, removed at exit. Needs python3 (as the conformance runner).
set -u
n=${1:-10}
delays=${2:-0 125 250 625}
designs=${3:-fixed cpus seq}
first=${FIRST:-1}
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
go build -o "$tmp/hbgbench" ./cmd/hbgbench || exit 1
grep -m1 'model name' /proc/cpuinfo
echo "cpus: $(nproc)  campaigns per cell: $n  delays: $delays  designs: $designs"
base=embedded:mirror=retained,epoch=e2
for i in $(seq "$first" $((first + n - 1))); do
    for delay in $delays; do
        for design in $designs; do
            case $design in
            fixed) flags= ;;
            cpus) flags="--cpus 1" ;;
            seq) flags="--until-decided" ;;
            *) echo "unknown design $design" >&2; exit 2 ;;
            esac
            out="$tmp/$design-$delay-$i"
            start=$(date +%s.%N)
            # shellcheck disable=SC2086 # flags and EXTRA are word lists
            "$tmp/hbgbench" ab --base "$base" --head "$base,delay_us=$delay" \
                --seed "$i" --journal "$out.jsonl" $flags ${EXTRA:-} \
                --format json >"$out.json" 2>"$out.err" || echo "$design delay $delay seed $i failed: $(tail -1 "$out.err")"
            awk "BEGIN { print $(date +%s.%N) - $start }" >"$out.wall"
        done
    done
    echo "seed $i: load $(cut -d' ' -f1-3 /proc/loadavg)"
done
python3 - "$tmp" "$first" "$n" "$delays" "$designs" <<'EOF'
import json, statistics, sys
tmp, first, n, delays, designs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4].split(), sys.argv[5].split()
print(f"{'design':<7} {'delay_us':>8} {'true delta':>10} {'verdict':>16} {'rounds':>7} {'wall s':>7}")
for design in designs:
    for delay in delays:
        called, got, rounds, walls, cpu = 0, 0, [], [], []
        for i in range(first, first + n):
            f = f"{tmp}/{design}-{delay}-{i}"
            try:
                d = json.load(open(f + ".json"))
                walls.append(float(open(f + ".wall").read()))
            except (OSError, ValueError):
                continue
            got += 1
            rounds.append(d["complete_rounds"])
            for m in d["metrics"]:
                if m["primary"]:
                    v = m["verdict"]
                    if (delay == "0" and v in ("faster", "slower")) or (delay != "0" and v == "slower"):
                        called += 1
                if m["name"] == "cpu_ns" and m["delta"] is not None:
                    cpu.append(m["delta"])
        what = "faster/slower" if delay == "0" else "SLOWER"
        true = f"{100 * statistics.median(cpu):+.1f}%" if cpu else "n/a"
        med = lambda v, f: f.format(statistics.median(v)) if v else "n/a"
        print(f"{design:<7} {delay:>8} {true:>10} {what:>13} {called:>2}/{got:<2} {med(rounds, '{:.0f}'):>7} {med(walls, '{:.1f}'):>7}")
EOF

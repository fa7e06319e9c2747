#!/bin/bash
# measure-defaults.sh [ITER] [ROUNDS] [OUT]: the measurement behind the
# default block size and block statistic (docs/ab-measurements.md "How the
# defaults were chosen"). Each of ITER iterations (default 12) runs, in a shuffled order,
# one campaign of ROUNDS rounds (default 16) per block size 5, 10, 20, 40 and
# head arm: A/A twice (embedded: on both sides), +400 µs and +800 µs of
# injected delay (embedded:delay_us=..., about +5% and +10% of ControlPlane's
# median on the 2-core VM). Everything runs interleaved in one sitting; the
# load average is logged every 10 s and after every campaign. The journals
# go to OUT (default a fresh /tmp directory), never into the repository;
# scripts/measure-defaults.py OUT analyses them (both block statistics from
# the same journals).
set -u
iter=${1:-12}
rounds=${2:-16}
out=${3:-$(mktemp -d /tmp/hbgbench-defaults.XXXXXX)}
mkdir -p "$out" || exit 1
cd "$(dirname "$0")/.." || exit 1
go build -o "$out/hbgbench" ./cmd/hbgbench || exit 1
{ grep -m1 'model name' /proc/cpuinfo; echo "nproc $(nproc)"; date -u; } > "$out/machine.txt"
( while :; do echo "$(date -u +%s) $(cut -d' ' -f1-3 /proc/loadavg)"; sleep 10; done ) > "$out/load.log" &
sampler=$!
trap 'kill $sampler 2>/dev/null' EXIT
trap 'exit 130' INT TERM
echo "journals in $out"
printf 'iter\tblock\tdelay\trep\tseed\tstart\tend\tload\texit\n' > "$out/campaigns.tsv"
seed=1000
for i in $(seq 1 "$iter"); do
    cells=""
    for b in 5 10 20 40; do
        cells="$cells $b:0:1 $b:0:2 $b:400:1 $b:800:1"
    done
    for c in $(echo $cells | tr " " "\n" | shuf --random-source=<(yes "$i")); do
        b=${c%%:*}; rest=${c#*:}; d=${rest%%:*}; rep=${rest#*:}
        seed=$((seed + 1))
        head=embedded:
        [ "$d" -gt 0 ] && head=embedded:delay_us=$d
        j="$out/b$b-d$d-r$rep-i$i.jsonl"
        s=$(date -u +%s.%N)
        "$out/hbgbench" ab --base embedded: --head "$head" --rounds "$rounds" --block "$b" \
            --seed "$seed" --journal "$j" --format json > /dev/null 2>> "$out/stderr.log"
        rc=$?
        e=$(date -u +%s.%N)
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$i" "$b" "$d" "$rep" "$seed" "$s" "$e" \
            "$(cut -d' ' -f1 /proc/loadavg)" "$rc" >> "$out/campaigns.tsv"
    done
    echo "iteration $i done: $(cut -d' ' -f1-3 /proc/loadavg)"
done

#!/bin/sh
# time-default-campaign.sh [PAIRS] [OUT]: wall time and disk use of the
# default campaign (`hbgbench ab`, per_bind vs retained) against the
# defaults before issue 24 (`--block 5 --block-stat median`), run
# alternately PAIRS times (default 3) in one sitting, with the load average
# after each. Journals go to OUT (default a fresh /tmp directory).
set -u
pairs=${1:-3}
out=${2:-$(mktemp -d /tmp/hbgbench-default-time.XXXXXX)}
mkdir -p "$out" || exit 1
cd "$(dirname "$0")/.." || exit 1
go build -o "$out/hbgbench" ./cmd/hbgbench || exit 1
grep -m1 'model name' /proc/cpuinfo
echo "nproc $(nproc); $(date -u)"
for i in $(seq 1 "$pairs"); do
    for which in new old; do
        flags=""
        [ "$which" = old ] && flags="--block 5 --block-stat median"
        s=$(date +%s.%N)
        # shellcheck disable=SC2086
        "$out/hbgbench" ab $flags --journal "$out/$which-$i.jsonl" --format json > "$out/$which-$i.json" 2> /dev/null
        e=$(date +%s.%N)
        kb=$(du -sk "$out/$which-$i.jsonl" "$out/$which-$i.d" | awk '{t += $1} END {print t}')
        verdict=$(python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); p=[m for m in a["metrics"] if m["primary"]][0]; print(p["verdict"], "%+.1f%%" % (100*p["delta"]), "sigma_d %.1f%%" % (100*a["noise"]["sigma_d"]))' "$out/$which-$i.json")
        printf '%s %d: %.1f s, %s KB, %s; load %s\n' "$which" "$i" "$(echo "$e - $s" | bc)" "$kb" "$verdict" "$(cut -d' ' -f1-3 /proc/loadavg)"
    done
done

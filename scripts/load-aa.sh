#!/bin/sh
# load-aa.sh: what --load does to the A/A noise (σ_d) and to the ceiling
# on the embedded harness. Runs `hbgbench aa` with and without --load N,
# interleaved in one sitting (without, with, without, with, ...), REPS
# times each, and prints per campaign the load, σ_d and each arm's min,
# median, p90 and max of ControlPlane (json via jq). docs/ab-measurements.md
# "Under load" quotes its output.
#
# usage: scripts/load-aa.sh [REPS] [N]   (defaults 3 and 2)
set -eu
reps=${1:-3}
n=${2:-2}
hb=${HBGBENCH:-hbgbench}
dir=$(mktemp -d)
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs; $(uptime | sed 's/.*load/load/')"
echo "load sigma_d base_min base_median base_p90 base_max"
i=0
while [ "$i" -lt "$reps" ]; do
	for l in 0 "$n"; do
		j="$dir/aa-$i-$l.jsonl"
		"$hb" aa --rounds 8 --load "$l" --journal "$j" --format json 2>/dev/null >"$dir/aa-$i-$l.json" || true
		jq -r --arg l "$l" '(.metrics[] | select(.primary)) as $m |
			[$l, (.noise.sigma_d*100|tostring+"%"), $m.arms[0].min_us, $m.arms[0].median_us, $m.arms[0].p90_us, $m.arms[0].max_us] | @tsv' "$dir/aa-$i-$l.json"
	done
	i=$((i + 1))
done
echo "# $(uptime | sed 's/.*load/load/')"
rm -rf "$dir"

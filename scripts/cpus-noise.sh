#!/bin/sh
# cpus-noise.sh [CAMPAIGNS] [PINS]: does --cpus make campaigns quieter?
# Runs CAMPAIGNS (default 10) campaigns per cell of the default design
# (10 rounds, 5 passes per block, block median) on the embedded model:
# an A/A (aa) and an A/B whose head adds a busy delay of 10% of the base
# ControlPlane (measured first, by a 6-round aa), each unpinned and with
# every --cpus in PINS (default "1 0"). The cells are interleaved: every
# pass of the outer loop runs one campaign of each cell, in an order
# rotated by one each pass, so load drifts reach every cell alike.
# Prints one TSV line per campaign (cell, σ_d, Δ, verdict, load, seconds),
# then per cell the median and mean σ_d, the median Δ and how many
# campaigns called SLOWER or FASTER, with the CPU model and the load.
# Keeps the journals under $OUT (default a temporary directory). $ARGS
# (say "--block 20 --block-stat min") is added to every campaign.
# cpus-noise.sh --summary DIR prints the summary of DIR/campaigns.tsv
# again. The summary ends with, for each pinned set against no pinning,
# the Mann-Whitney rank-sum test of σ_d (the A/A and the +10% campaigns
# pooled: σ_d is the noise of either), two-sided p by the normal
# approximation.
set -u

# summary RES: the per-cell table and the rank-sum tests of RES.
summary() {
	res=$1
	printf '\ncpus\tkind\tn\tmedian σ_d\tmean σ_d\tmedian Δ\tslower\tfaster\tmean load1\n'
	for cell in $(awk -F'\t' 'NR > 1 && !seen[$2 "/" $3]++ {print $2 "/" $3}' "$res"); do
		pin=${cell%/*}
		kind=${cell#*/}
		awk -F'\t' -v p="$pin" -v k="$kind" 'NR > 1 && $2 == p && $3 == k' "$res" >"$res.cell"
		cnt=$(wc -l <"$res.cell")
		med() { cut -f"$1" "$res.cell" | sort -g | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
		awk -F'\t' -v p="$pin" -v k="$kind" -v c="$cnt" -v ms="$(med 4)" -v md="$(med 5)" '
			{s += $4; l += $7; if ($6 == "slower") sl++; if ($6 == "faster") fa++}
			END {printf "%s\t%s\t%d\t%.1f%%\t%.1f%%\t%+.1f%%\t%d\t%d\t%.1f\n", p, k, c, 100*ms, 100*s/c, 100*md, sl, fa, l/c}' "$res.cell"
	done
	rm -f "$res.cell"
	echo
	for pin in $(awk -F'\t' 'NR > 1 && $2 != "none" && !seen[$2]++ {print $2}' "$res"); do
		awk -F'\t' -v p="$pin" 'NR > 1 && ($2 == "none" || $2 == p) {print $4, ($2 == p)}' "$res" | sort -g | awk -v p="$pin" '
			{x[NR] = $1; g[NR] = $2}
			END {
				# mid-ranks for ties
				for (i = 1; i <= NR; ) {
					j = i; while (j < NR && x[j+1] == x[i]) j++
					for (k = i; k <= j; k++) r[k] = (i + j) / 2
					i = j + 1
				}
				for (i = 1; i <= NR; i++) if (g[i]) {n1++; rs += r[i]} else n0++
				u = rs - n1 * (n1 + 1) / 2
				mu = n1 * n0 / 2; sd = sqrt(n1 * n0 * (n1 + n0 + 1) / 12)
				z = (u - mu) / sd
				a = z < 0 ? -z : z; a /= sqrt(2)
				t = 1 / (1 + 0.3275911 * a)
				erfc = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))) * exp(-a * a)
				printf "σ_d, --cpus %s (n=%d) against unpinned (n=%d): P(pinned σ_d > unpinned) = %.2f, rank-sum z = %+.2f, two-sided p = %.3f\n", p, n1, n0, u / (n1 * n0), z, erfc
			}'
	done
}

if [ "${1:-}" = --summary ]; then
	summary "$2/campaigns.tsv"
	exit
fi
n=${1:-10}
pins=${2:-"1 0"}
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
bin=$out/hbgbench
go build -o "$bin" ./cmd/hbgbench || exit 1
grep -m1 'model name' /proc/cpuinfo
echo "nproc $(nproc); journals in $out; campaign flags: ${ARGS:-(defaults)}"
echo "load at start: $(cat /proc/loadavg)"

json() { "$bin" report "$1" --format json 2>/dev/null; }

"$bin" aa --rounds 6 --journal "$out/base.jsonl" >/dev/null 2>&1
base=$(json "$out/base.jsonl" | jq '.metrics[] | select(.primary) | .arms[0].median_us')
delay=$(echo "$base" | awk '{printf "%d", $1 / 10}')
echo "base ControlPlane median ${base} µs: +10% is delay_us=$delay"

cells=""
for p in none $pins; do
	cells="$cells $p/aa $p/d10"
done
ncells=$(echo $cells | wc -w)
res=$out/campaigns.tsv
printf 'pass\tcpus\tkind\tsigma_d\tdelta\tverdict\tload1\tseconds\n' >"$res"
i=1
while [ "$i" -le "$n" ]; do
	shift_by=$(( (i - 1) % ncells ))
	order=$(echo $cells | tr ' ' '\n' | awk -v s="$shift_by" -v n="$ncells" '{c[NR-1]=$0} END {for (k=0;k<n;k++) print c[(k+s)%n]}')
	for cell in $order; do
		pin=${cell%/*}
		kind=${cell#*/}
		j=$out/$pin-$kind-$i.jsonl
		# shellcheck disable=SC2086 # ARGS is a list of flags
		set -- --journal "$j" ${ARGS:-}
		[ "$pin" = none ] || set -- "$@" --cpus "$pin"
		t0=$(date +%s)
		if [ "$kind" = aa ]; then
			"$bin" aa "$@" >/dev/null 2>&1
		else
			"$bin" ab --base embedded: --head "embedded:delay_us=$delay" "$@" >/dev/null 2>&1
		fi
		t1=$(date +%s)
		line=$(json "$j" | jq -r '[.noise.sigma_d, (.metrics[] | select(.primary) | .delta, .verdict)] | @tsv')
		printf '%d\t%s\t%s\t%s\t%s\t%d\n' "$i" "$pin" "$kind" "$line" "$(cut -d' ' -f1 /proc/loadavg)" $((t1 - t0)) | tee -a "$res"
	done
	i=$((i + 1))
done
echo "load at end: $(cat /proc/loadavg)"
summary "$res"

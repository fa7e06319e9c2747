#!/bin/sh
# until-decided.sh [CAMPAIGNS]: measure hbgbench ab --until-decided against
# the default fixed design on the embedded harness, side by side in one
# sitting: CAMPAIGNS (default 10) campaigns per cell, the cells interleaved
# campaign by campaign. Cells: A/A (identical arms), +10% and +25% injected
# head delay (delay_us chosen from the baseline ControlPlane measured
# first), each with the default fixed design (--rounds 10) and with
# --until-decided --max-rounds 40 --look-every 5. Prints one line per
# campaign (cell, verdict, rounds, seconds, load) and the table of
# docs/ab-measurements.md "--until-decided on the harness, measured":
# verdict counts, median rounds and median wall time per cell, with the CPU model and the load sampled after every
# campaign.
set -u
n=${1:-10}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
bin=$work/hbgbench
(cd "$here" && go build -o "$bin" ./cmd/hbgbench) || exit 1
cd "$work" || exit 1
grep -m1 'model name' /proc/cpuinfo
echo "nproc $(nproc)"

# The baseline: the trimmed mean of ControlPlane of the default model.
"$bin" aa --journal "$work/base.jsonl" --rounds 6 --seed 1 --format json 2>/dev/null >"$work/base.json" || exit 1
cp=$(jq '[.metrics[] | select(.primary)][0].arms[0].trimmed_mean_us' "$work/base.json")
d10=$(jq -n "$cp * 0.10 | floor")
d25=$(jq -n "$cp * 0.25 | floor")
echo "baseline ControlPlane ${cp} µs; +10%: delay_us=$d10, +25%: delay_us=$d25; load $(cut -d' ' -f1-3 /proc/loadavg)"

fixed="--rounds 10"
seq="--until-decided --max-rounds 40 --look-every 5"
results=$work/results.tsv
: >"$results"
i=0
while [ "$i" -lt "$n" ]; do
    i=$((i + 1))
    for cell in "aa fixed" "aa seq" "+10% fixed" "+10% seq" "+25% fixed" "+25% seq"; do
        set -- $cell
        effect=$1 design=$2
        case $effect in
        aa) head="embedded:" ;;
        +10%) head="embedded:delay_us=$d10" ;;
        +25%) head="embedded:delay_us=$d25" ;;
        esac
        flags=$fixed
        [ "$design" = seq ] && flags=$seq
        j="$work/c-$i-$effect-$design.jsonl"
        t0=$(date +%s.%N)
        # shellcheck disable=SC2086
        "$bin" ab --journal "$j" --base embedded: --head "$head" $flags --seed "$((1000 + i))" --format json >"$j.json" 2>/dev/null || echo "campaign $i $cell failed" >&2
        t1=$(date +%s.%N)
        verdict=$(jq -r '[.metrics[] | select(.primary)][0].verdict' "$j.json")
        rounds=$(jq -r '.complete_rounds' "$j.json")
        secs=$(jq -n "$t1 - $t0 | . * 10 | round / 10")
        load=$(cut -d' ' -f1 /proc/loadavg)
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$effect" "$design" "$verdict" "$rounds" "$secs" "$load" | tee -a "$results"
    done
done

echo
echo "| true Δ | design | slower | faster | no change | inconclusive | median rounds | median wall (s) |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for cell in "aa fixed" "aa seq" "+10% fixed" "+10% seq" "+25% fixed" "+25% seq"; do
    set -- $cell
    awk -F'\t' -v e="$1" -v d="$2" '
        function median(a, k,   i, j, t) {
            for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
            return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
        }
        $1 == e && $2 == d {
            k++; r[k] = $4; w[k] = $5
            if ($3 == "slower") s++; else if ($3 == "faster") f++; else if ($3 == "no change" || $3 == "~ small") nc++; else inc++
        }
        END {
            name = (d == "seq") ? "--until-decided (max 40, look every 5)" : "fixed, --rounds 10"
            printf "| %s | %s | %d/%d | %d/%d | %d/%d | %d/%d | %g | %g |\n", e, name, s, k, f, k, nc, k, inc, k, median(r, k), median(w, k)
        }' "$results"
done
awk -F'\t' '{ s += $6; if (min == "" || $6 < min) min = $6; if ($6 > max) max = $6 } END { printf "load average (1 min) after each campaign: %.1f to %.1f, mean %.1f\n", min, max, s / NR }' "$results"

#!/bin/sh
# stop-within.sh [CAMPAIGNS] [BOUNDS]: what --stop-within W does to
# hbgbench ab --until-decided on the embedded harness, measured.
#
# Runs CAMPAIGNS (default 10) A/A campaigns (both arms the default
# embedded model) and as many with the head 10% slower (delay_us chosen
# from the baseline ControlPlane measured first), interleaved, each with
# --until-decided (at most 40 rounds, a look every 5) and --stop-within
# 0.01%: a bound no look reaches, so every look journals its equivalence
# interval (the 90% repeated CI) and the campaign runs as it would without
# the stop. For each bound W of BOUNDS (default "3 4 5 6 7.5 10", in %)
# the stop each campaign would have made is then read off its looks: the
# first look that decides on efficacy or no change, or whose equivalence
# interval lies within ±W. Prints the CPU model, one line per campaign
# and, per W, the A/A faster/slower calls, the A/A stops for "no change of
# W or more", the A/A median rounds, the +10% campaigns called slower and
# their median rounds, with the load average after each campaign.
# Journals stay in a temporary directory, removed at exit. Needs jq.
set -u
n=${1:-10}
bounds=${2:-3 4 5 6 7.5 10}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
bin=$work/hbgbench
(cd "$here" && go build -o "$bin" ./cmd/hbgbench) || exit 1
cd "$work" || exit 1
grep -m1 'model name' /proc/cpuinfo
echo "nproc $(nproc)"

"$bin" aa --journal "$work/base.jsonl" --rounds 6 --seed 1 --format json 2>/dev/null >"$work/base.json" || exit 1
cp=$(jq '[.metrics[] | select(.primary)][0].level[0]' "$work/base.json")
d10=$(jq -n "$cp * 0.10 | floor")
echo "baseline ControlPlane ${cp} µs (block min); +10%: delay_us=$d10; load $(cut -d' ' -f1-3 /proc/loadavg)"

looks=$work/looks.tsv
: >"$looks"
i=0
while [ "$i" -lt "$n" ]; do
    i=$((i + 1))
    for effect in aa +10%; do
        head="embedded:"
        [ "$effect" = +10% ] && head="embedded:delay_us=$d10"
        j="$work/c-$i-$effect.jsonl"
        "$bin" ab --journal "$j" --base embedded: --head "$head" --until-decided --stop-within 0.01% \
            --seed "$((2000 + i))" --format json >"$j.json" 2>/dev/null || echo "campaign $i $effect failed" >&2
        load=$(cut -d' ' -f1 /proc/loadavg)
        # One line per look: campaign, effect, round, decision, W needed.
        jq -r --arg c "$i" --arg e "$effect" 'select(.type == "look") |
            [$c, $e, .round, .decision, ([(.eq_lo // -1 | fabs), (.eq_hi // 1e9 | fabs)] | max)] | @tsv' "$j" >>"$looks"
        echo "campaign $i $effect: $(jq -r '[.metrics[] | select(.primary)][0].verdict' "$j.json") after $(jq -r '.complete_rounds' "$j.json") rounds; load $load"
        echo "$load" >>"$work/load"
    done
done

echo
echo "| W | A/A faster or slower | A/A stopped for no change | A/A median rounds | +10% slower | +10% median rounds |"
echo "|---:|---:|---:|---:|---:|---:|"
for w in $bounds; do
    awk -F'\t' -v w="$w" -v n="$n" '
        function median(a, k,   i, j, t) {
            for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
            return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
        }
        { key = $1 SUBSEP $2 }
        done[key] { next }
        $4 != "inconclusive" || $5 <= w / 100 {
            done[key] = 1; r[key] = $3
            call[key] = ($4 != "inconclusive") ? $4 : "bounded"
        }
        { last[key] = $3; eff[key] = $2 }
        END {
            for (key in last) {
                rounds = (key in r) ? r[key] : last[key]
                if (eff[key] == "aa") {
                    ka++; ra[ka] = rounds
                    if (call[key] == "faster" || call[key] == "slower") fs++
                    if (call[key] == "bounded") b++
                } else {
                    ks++; rs[ks] = rounds
                    if (call[key] == "slower") s++
                }
            }
            printf "| %s%% | %d/%d | %d/%d | %g | %d/%d | %g |\n", w, fs, ka, b, ka, median(ra, ka), s, ks, median(rs, ks)
        }' "$looks"
done
awk '{ s += $1; if (min == "" || $1 < min) min = $1; if ($1 > max) max = $1 } END { printf "load average (1 min) after each campaign: %.1f to %.1f, mean %.1f\n", min, max, s / NR }' "$work/load"
